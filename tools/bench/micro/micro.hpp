#pragma once
// What the micro-benchmarks share: the fib recursion they spawn, and the check
// that turns a wrong result into a failed run (main.cpp exits 1), so the ctest
// that runs them briefly tests that they still work, not how fast.

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <string>

#include <cws/cws.hpp>

namespace cws_micro {

inline std::uint64_t fib(unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0;
  cws::spawn([&a, n] { a = fib(n - 1); });
  const std::uint64_t b = fib(n - 2);
  cws::sync();
  return a + b;
}

// fib(n) without the runtime, and the spawns fib(n) makes: every call with
// n >= 2 spawns one child, so fib_spawns(n) = fib_spawns(n-1) + fib_spawns(n-2) + 1.
constexpr std::uint64_t serial_fib(unsigned n) { return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2); }
constexpr std::uint64_t fib_spawns(unsigned n) { return n < 2 ? 0 : fib_spawns(n - 1) + fib_spawns(n - 2) + 1; }

// Benchmarks that failed a check in this process.
inline std::atomic<int> failures{0};

// Marks the benchmark as failed with `why` (shown in its output line) unless `ok`.
inline bool check(benchmark::State& state, bool ok, const std::string& why) {
  if (!ok) {
    failures.fetch_add(1);
    state.SkipWithError(why.c_str());
  }
  return ok;
}

}  // namespace cws_micro
