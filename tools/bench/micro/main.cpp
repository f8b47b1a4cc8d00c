// cws-micro-bench's main: Google Benchmark's, except that it exits 1 when a
// benchmark failed its check (micro.hpp) or when no benchmark matched the
// filter, so the ctest run catches a broken benchmark.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "micro.hpp"

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (ran == 0) {
    std::fprintf(stderr, "cws-micro-bench: no benchmark matched the filter\n");
    return 1;
  }
  if (const int failed = cws_micro::failures.load(); failed > 0) {
    std::fprintf(stderr, "cws-micro-bench: %d benchmark(s) failed their check (see the ERROR lines above)\n", failed);
    return 1;
  }
  return 0;
}
