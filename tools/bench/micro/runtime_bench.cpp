// Micro-benchmarks of the runtime's primitives: a spawn, a steal, one phase.
// Each benchmark builds its runtime once, outside the timed loop, from the
// CWS_* environment with the worker count the benchmark names; every phase
// is checked after it ran (micro.hpp). Timed by the wall clock (UseRealTime):
// the work runs on the workers' threads too, not only on the timing thread.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include <cws/cws.hpp>

#include "micro.hpp"

namespace {

using cws_micro::check;

cws::runtime_config with_workers(unsigned workers) {
  cws::runtime_config c = cws::runtime_config::from_env();
  c.workers = workers;
  return c;
}

// Cost per spawn (and its join) of a fib-like recursion: one phase of fib(20),
// 10 945 spawns, so the phase's own cost is spread thin. Arg: workers.
void spawn_fib(benchmark::State& state) {
  constexpr unsigned n = 20;
  cws::runtime rt(with_workers(static_cast<unsigned>(state.range(0))));
  auto& s = rt.schedule("spawn_fib");
  for (auto _ : state) {
    std::uint64_t r = 0;
    rt.run(s, [&] { r = cws_micro::fib(n); });
    if (!check(state, r == cws_micro::serial_fib(n), "fib(20) returned a wrong value")) return;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * cws_micro::fib_spawns(n)));
}
BENCHMARK(spawn_fib)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond);

// One stolen hand-off with 2 workers: the root spawns a child and, without
// syncing (a sync would run the child itself), waits until the child has
// started, which only the other worker can make happen, by stealing it; then
// it joins. The time per hand-off is spawn -> steal -> child runs -> join.
// 64 hand-offs per phase keep the phase's own cost out of the figure.
void steal_handoff(benchmark::State& state) {
  constexpr int handoffs = 64;
  cws::runtime rt(with_workers(2));
  auto& s = rt.schedule("steal_handoff");
  for (auto _ : state) {
    const cws::run_report& r = rt.run(s, [] {
      for (int i = 0; i < handoffs; ++i) {
        std::atomic<bool> started{false};
        cws::spawn([&started] { started.store(true, std::memory_order_release); });
        while (!started.load(std::memory_order_acquire)) {
        }
        cws::sync();
      }
    });
    if (!check(state, r.steals() >= handoffs, "a hand-off ran without a steal")) return;
  }
  state.SetItemsProcessed(state.iterations() * handoffs);
}
BENCHMARK(steal_handoff)->UseRealTime()->Unit(benchmark::kMicrosecond);

// The floor under every hand-off here, and no runtime's: two plain threads
// pass a counter back and forth, each writing its own cache line and
// spinning on the other's, so a round trip moves each line once between the
// cores. The fork and join of a phase are made of a few of these
// (docs/measured.md); this says what one costs on the machine at hand.
void cache_line_round_trip(benchmark::State& state) {
  constexpr std::uint64_t trips = 1024;
  struct alignas(64) line {
    std::atomic<std::uint64_t> value{0};
  };
  line ping, pong;
  std::atomic<bool> stop{false};
  // Past this many spins the other thread is not running (the two share a
  // core, e.g. beside a parallel ctest): yield it the core instead of
  // spinning out a time slice per trip. A trip on two cores is far shorter.
  constexpr unsigned spins_before_yield = 1u << 14;
  const auto wait_until = [](auto arrived) {
    for (unsigned spins = 0; !arrived(); ++spins)
      if (spins >= spins_before_yield) std::this_thread::yield();
  };
  std::thread echo([&] {
    for (std::uint64_t seen = 0, now = 0;; seen = now) {
      wait_until([&] {
        now = ping.value.load(std::memory_order_acquire);
        return now != seen || stop.load(std::memory_order_relaxed);
      });
      if (now == seen) return;  // stopped
      pong.value.store(now, std::memory_order_release);
    }
  });
  std::uint64_t sent = 0;
  for (auto _ : state)
    for (std::uint64_t i = 0; i < trips; ++i) {
      ping.value.store(++sent, std::memory_order_release);
      wait_until([&] { return pong.value.load(std::memory_order_acquire) == sent; });
    }
  stop.store(true, std::memory_order_relaxed);
  echo.join();
  check(state, pong.value.load() == sent, "the echo thread missed a value");
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * trips));
}
BENCHMARK(cache_line_round_trip)->UseRealTime()->Unit(benchmark::kMicrosecond);

// One phase with nothing in it, and one whose root spawns and joins one task:
// the fork/join of the phase itself (wake the workers, run the root, wait for
// them to go idle, record the tree). Arg: workers.
void empty_phase(benchmark::State& state) {
  cws::runtime rt(with_workers(static_cast<unsigned>(state.range(0))));
  auto& s = rt.schedule("empty_phase");
  bool ran = false;
  for (auto _ : state) rt.run(s, [&ran] { ran = true; });
  check(state, ran, "the phase's root did not run");
}
BENCHMARK(empty_phase)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond);

void one_task_phase(benchmark::State& state) {
  cws::runtime rt(with_workers(static_cast<unsigned>(state.range(0))));
  auto& s = rt.schedule("one_task_phase");
  for (auto _ : state) {
    int x = 0;
    rt.run(s, [&x] {
      cws::spawn([&x] { x = 1; });
      cws::sync();
    });
    if (!check(state, x == 1, "the phase's one task did not run")) return;
  }
}
BENCHMARK(one_task_phase)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond);


// A solver's iteration: four schedules run one after the other, each phase a
// root that spawns one leaf per worker (nothing in the leaves), under one
// policy. What a phase costs once the policy has its template: fork, join and
// the after-phase work (recorder, policy, report). Args: policy, workers.
constexpr const char* solver_policies[] = {"random", "stows", "stuws", "evolve"};

void solver_phase(benchmark::State& state) {
  const char* policy = solver_policies[state.range(0)];
  const unsigned workers = static_cast<unsigned>(state.range(1));
  cws::runtime rt(with_workers(workers));
  cws::schedule* steps[4];
  for (int i = 0; i < 4; ++i) steps[i] = &rt.schedule("solver_step_" + std::to_string(i), policy);
  std::atomic<unsigned> leaves{0};
  const auto phase = [&leaves, workers] {
    for (unsigned w = 1; w < workers; ++w) cws::spawn([&leaves] { leaves.fetch_add(1, std::memory_order_relaxed); });
    leaves.fetch_add(1, std::memory_order_relaxed);
    cws::sync();
  };
  for (int warm = 0; warm < 64; ++warm)  // past learning: evolve converges within its bound
    for (cws::schedule* s : steps) rt.run(*s, phase);
  leaves = 0;
  std::uint64_t phases = 0;
  for (auto _ : state) {
    rt.run(*steps[phases % 4], phase);
    ++phases;
  }
  check(state, leaves.load() == phases * workers, "a leaf did not run exactly once");
  state.SetLabel(policy);
}
BENCHMARK(solver_phase)
    ->ArgsProduct({{0, 1, 2, 3}, {1, 2}})
    ->ArgNames({"policy", "workers"})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
