// Micro-benchmarks of the trace codec: encoding and decoding recorded steal
// trees (fib phases on 2 workers, captured from a live runtime), per archive
// kind, and the CRC-32 that checksums the header and every record.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include <cws/cws.hpp>
#include <cws/traces/trace_file.hpp>

#include "micro.hpp"

namespace {

namespace tr = cws::traces;
using cws_micro::check;

// Eight recorded phases of fib(22) on 2 workers: trees with the steals random
// stealing made, the header with this machine's topology and placement.
const tr::trace_file& recorded_trees() {
  static const tr::trace_file f = [] {
    cws::runtime_config c = cws::runtime_config::from_env();
    c.workers = 2;
    c.record = true;
    cws::runtime rt(c);
    auto& s = rt.schedule("fib");
    for (int i = 0; i < 8; ++i) rt.run(s, [] { benchmark::DoNotOptimize(cws_micro::fib(22)); });
    return tr::capture(rt);
  }();
  return f;
}

tr::archive_kind kind_of(const benchmark::State& state) { return static_cast<tr::archive_kind>(state.range(0)); }

void describe(benchmark::State& state, std::size_t file_bytes) {
  state.SetLabel(std::string(tr::to_string(kind_of(state))));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * file_bytes));
  std::size_t segments = 0;
  for (const auto& r : recorded_trees().phases) segments += r.steals.segments.size();
  state.counters["file_bytes"] = static_cast<double>(file_bytes);
  state.counters["segments"] = static_cast<double>(segments);
}

void trace_encode(benchmark::State& state) {
  const tr::trace_file& f = recorded_trees();
  std::string b;
  for (auto _ : state) {
    b = tr::encode(f, kind_of(state));
    benchmark::DoNotOptimize(b.data());
  }
  if (check(state, tr::identical(tr::decode(b, "bench.cwst"), f), "encode did not round-trip"))
    describe(state, b.size());
}

void trace_decode(benchmark::State& state) {
  const tr::trace_file& f = recorded_trees();
  const std::string b = tr::encode(f, kind_of(state));
  tr::trace_file back;
  for (auto _ : state) {
    back = tr::decode(b, "bench.cwst");
    benchmark::DoNotOptimize(back.phases.data());
  }
  if (check(state, tr::identical(back, f), "decode did not give back the trace")) describe(state, b.size());
}

constexpr auto text = static_cast<std::int64_t>(tr::archive_kind::text);
constexpr auto xml = static_cast<std::int64_t>(tr::archive_kind::xml);
constexpr auto binary = static_cast<std::int64_t>(tr::archive_kind::binary);
BENCHMARK(trace_encode)->Arg(text)->Arg(xml)->Arg(binary)->Unit(benchmark::kMicrosecond);
BENCHMARK(trace_decode)->Arg(text)->Arg(xml)->Arg(binary)->Unit(benchmark::kMicrosecond);

// CRC-32 throughput over 1 MiB (the codec checksums the header and every record).
void crc32_1mib(benchmark::State& state) {
  std::string bytes(std::size_t{1} << 20, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 2654435761u) >> 24);
  if (!check(state, tr::crc32("123456789") == 0xCBF43926u, "crc32 gives the wrong check value")) return;
  for (auto _ : state) benchmark::DoNotOptimize(tr::crc32(bytes));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
}
BENCHMARK(crc32_1mib)->Unit(benchmark::kMicrosecond);

}  // namespace
