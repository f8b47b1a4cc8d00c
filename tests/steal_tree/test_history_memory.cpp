// Flat memory over a long run: 10^6 phases recorded back to back hold no
// more than the first 10 000 did (the recorder keeps the last
// runtime_config::history runs per schedule and reuses their storage). The
// check is on the recorder's own byte counts; resident memory (VmRSS) is a
// secondary check. Empty phases on 2 workers: ~10 s in a Release build.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"

namespace {

namespace st = cws::steal_tree;

// Resident set size of this process, in bytes (0 when /proc is unavailable).
std::uint64_t resident_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

TEST(recorder_memory, a_million_phases_hold_what_ten_thousand_did) {
  constexpr std::uint64_t first = 10'000;
  constexpr std::uint64_t total = 1'000'000;
  cws::runtime rt(cws::test::config(2));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  auto& s = rt.schedule("tiny");
  auto& other = rt.schedule("other");
  auto phase = [] {};
  auto bytes = [&] { return rec->history_bytes() + rec->buffer_bytes(); };
  rt.run(other, [] { cws::test::fib(12); });  // a schedule that ran once: kept throughout
  for (std::uint64_t i = 0; i < first; ++i) rt.run(s, phase);
  const std::uint64_t bytes_early = bytes();
  const std::uint64_t rss_early = resident_bytes();
  for (std::uint64_t i = first; i < total; ++i) rt.run(s, phase);
  const std::uint64_t bytes_late = bytes();
  const std::uint64_t rss_late = resident_bytes();

  EXPECT_EQ(rec->phases().size(), rec->history() + 1);
  EXPECT_EQ(rec->latest("other")->iteration, 0u);
  EXPECT_EQ(rec->latest("tiny")->iteration, total - 1);
  const double per_phase = (static_cast<double>(bytes_late) - static_cast<double>(bytes_early)) / (total - first);
  std::printf(
      "recorder after %llu phases: %llu bytes (history %zu + buffers %zu); after %llu: %llu bytes; "
      "retained per phase beyond the window: %.6f bytes; VmRSS %.1f MB -> %.1f MB\n",
      static_cast<unsigned long long>(first), static_cast<unsigned long long>(bytes_early), rec->history_bytes(),
      rec->buffer_bytes(), static_cast<unsigned long long>(total), static_cast<unsigned long long>(bytes_late),
      per_phase, rss_early / 1e6, rss_late / 1e6);
  EXPECT_LT(bytes_late, bytes_early + (1u << 20));
  EXPECT_LE(bytes_late, bytes_early) << "the window was full after 10 000 phases: nothing should grow";
  if (rss_early > 0) {
    EXPECT_LT(rss_late, rss_early + (1u << 20));
  }
}

}  // namespace
