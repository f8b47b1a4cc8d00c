// Micro-benchmarks of evolve's per-phase bookkeeping (issue 21: a converged
// evolve phase must cost no more than a stows one): the slowdown watch that
// every converged run feeds (slowdown_watch.hpp).
#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <random>

#include <cws/schedulers/slowdown_watch.hpp>

#include "micro.hpp"

namespace {

// Run times of a 10 us phase with the noise a loaded machine adds: mostly a
// few percent, now and then a descheduled worker (several times the phase).
std::array<double, 4096> noisy_times() {
  std::array<double, 4096> t{};
  std::mt19937_64 rng(21);
  std::lognormal_distribution<double> jitter(0.0, 0.05);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (double& x : t) x = 10e-6 * jitter(rng) * (u(rng) < 0.02 ? 5.0 : 1.0);
  return t;
}

// One add() per iteration, on a full watch (its steady state), with the
// default threshold (CWS_EVOLVE_SLOWDOWN=25).
void slowdown_watch_add(benchmark::State& state) {
  static const std::array<double, 4096> times = noisy_times();
  cws::schedulers::detail::slowdown_watch watch;
  for (std::size_t i = 0; i < 128; ++i) watch.add(times[i], 25);
  std::size_t i = 128, verdicts = 0;
  for (auto _ : state) {
    verdicts += watch.add(times[i++ % times.size()], 25);
    benchmark::DoNotOptimize(verdicts);
  }
  // Noise alone, however slow single runs are, is no slowdown.
  cws_micro::check(state, verdicts == 0, "noise alone made the watch call a slowdown");
}
BENCHMARK(slowdown_watch_add)->Unit(benchmark::kNanosecond);

}  // namespace
