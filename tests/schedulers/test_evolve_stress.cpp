// evolve with its default rules (balance required, the bound's audit run and
// planner, the best tree at the bound) on 4 and 8 workers over this
// machine's cores: oversubscribed workers are preempted at random, which is
// what made the bound path pick trees that strict replay could not finish.
// Whatever the schedule of each run, no run may stall (a stall is reported
// as a divergence), the results stay right, and every schedule converges
// within its bound.

#include <gtest/gtest.h>

#include <string>

#include "schedulers/replay_support.hpp"

namespace {

struct machine {
  unsigned workers;
  std::string topology;
};

class evolve_stress : public ::testing::TestWithParam<machine> {};

void expect_converged_without_stalls(const cws::runtime& rt, const std::string& name, unsigned bound) {
  const cws::schedule* s = rt.find_schedule(name);
  ASSERT_NE(s, nullptr) << name;
  std::size_t converged_at = 0;
  for (std::size_t i = 0; i < s->history().size(); ++i) {
    const auto& r = s->history()[i];
    EXPECT_FALSE(r.diverged()) << name << " run " << i << " (" << r.template_from << "): " << r.reason;
    if (r.converged && converged_at == 0) converged_at = i;
  }
  EXPECT_NE(converged_at, 0u) << name << " never converged";
  EXPECT_LE(converged_at, bound) << name;
}

TEST_P(evolve_stress, no_stall_on_oversubscribed_workers) {
  cws::runtime_config cfg = cws::test::config(GetParam().workers, GetParam().topology);
  // A preempted stows run is no reason to learn again here.
  cws::schedulers::knobs_of(cfg).replay.evolve_slowdown_pct = 0;
  cws::runtime rt(cfg);
  const unsigned bound = cws::schedulers::knobs_of(rt.config()).replay.evolve_bound;
  for (int round = 0; round < 3; ++round) {
    const std::string heat = "heat_" + std::to_string(round), fib = "fib_" + std::to_string(round);
    auto& h = rt.schedule(heat, cws::policy::evolve);
    auto& f = rt.schedule(fib, cws::policy::evolve);
    cws::test::heat_grid grid(96), serial(96);
    for (int it = 0; it < 24; ++it) {
      rt.run(h, [&] { grid.step(2); });
      serial.serial_step();
      std::uint64_t result = 0;
      rt.run(f, [&] { result = cws::test::fib(17); });
      ASSERT_EQ(result, cws::test::serial_fib(17)) << fib << " run " << it;
    }
    EXPECT_EQ(grid.a, serial.a) << heat;
    expect_converged_without_stalls(rt, heat, bound);
    expect_converged_without_stalls(rt, fib, bound);
  }
}

INSTANTIATE_TEST_SUITE_P(machines, evolve_stress,
                         ::testing::Values(machine{4, cws::test::four_cores}, machine{8, cws::test::eight_cores}),
                         [](const auto& p) { return std::to_string(p.param.workers) + "_workers"; });

}  // namespace
