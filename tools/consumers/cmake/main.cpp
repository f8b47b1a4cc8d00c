// A program outside the cws tree, built against an installed cws (tools/check.sh,
// step "install + consumers"): a few recursive fork/join phases replayed
// under stows, the traces saved to a file and read back with cws::traces::read.
// Prints one line; exits non-zero if anything is off.
#include <cws/cws.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <thread>

#include <unistd.h>

#ifndef CWS_CONSUMER_KIND
#define CWS_CONSUMER_KIND "consumer"
#endif

namespace {

std::uint64_t fib(unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0;
  cws::spawn([&] { a = fib(n - 1); });
  const std::uint64_t b = fib(n - 2);
  cws::sync();
  return a + b;
}

int fail(const std::string& what) {
  std::fprintf(stderr, "cws consumer (%s): FAILED: %s\n", CWS_CONSUMER_KIND, what.c_str());
  return 1;
}

}  // namespace

int main() try {
  auto cfg = cws::runtime_config::from_env();
  if (std::getenv("CWS_WORKERS") == nullptr)  // two workers, or one on a one-CPU machine
    cfg.workers = std::clamp(std::thread::hardware_concurrency(), 1u, 2u);
  cws::runtime rt(cfg);

  constexpr unsigned n = 22;
  constexpr std::uint64_t expected = 17711;
  constexpr int runs = 3;
  auto& step = rt.schedule("fib", cws::policy::stows);
  for (int i = 0; i < runs; ++i) {
    std::uint64_t r = 0;
    rt.run(step, [&] { r = fib(n); });
    if (r != expected) return fail("fib(" + std::to_string(n) + ") = " + std::to_string(r));
  }

  const auto path = std::filesystem::temp_directory_path() / ("cws-consumer-" + std::to_string(::getpid()) + ".cwst");
  rt.save_traces(path.string());
  const cws::traces::trace_file f = cws::traces::read(path.string());
  std::filesystem::remove(path);

  if (f.phases.size() != static_cast<std::size_t>(runs))
    return fail("trace has " + std::to_string(f.phases.size()) + " phase runs, expected " + std::to_string(runs));
  for (const auto& p : f.phases)
    if (p.schedule != "fib") return fail("trace names schedule '" + p.schedule + "'");
  if (f.header.options.workers != rt.workers())
    return fail("trace says " + std::to_string(f.header.options.workers) + " workers");

  std::printf(
      "cws consumer (%s): fib(%u) = %llu in %d runs of 'fib' under stows on %u workers; "
      "trace read back: %zu phase runs, last ran as '%s' (cws %s)\n",
      CWS_CONSUMER_KIND, n, static_cast<unsigned long long>(expected), runs, rt.workers(), f.phases.size(),
      f.phases.back().policy.c_str(), f.header.cws_version.c_str());
  return 0;
} catch (const std::exception& e) {
  return fail(e.what());
}
