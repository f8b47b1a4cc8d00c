// Locality under the replaying policies, on synthetic 2-, 4- and 8-node
// topologies with the simulated page backend (the numa-vm suite runs the same
// scenarios on real kernels):
//   * schedule follows data: memcopy's copy phase replaying the init phase's
//     template under STOWS finds every page it touches local, and
//     relocalizing it moves nothing;
//   * evolve relocalizes the heat step's pages after its RELWS runs and, once
//     converged, runs with >= 99% local bytes and moves no more pages;
//   * random stealing with first touch, and interleaved pages, stay below.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cws/cws.hpp"
#include "support/locality_scenarios.hpp"
#include "support/runtime_fixture.hpp"

namespace {

using cws::test::heat_scenario;
using cws::test::memcopy_scenario;
using cws::test::share_of;

class Locality : public ::testing::TestWithParam<unsigned> {
 protected:
  unsigned nodes() const { return GetParam(); }
  cws::runtime_config config() const {
    cws::runtime_config c = cws::test::config(nodes(), "pack:" + std::to_string(nodes()) + " numa:1 core:1 pu:1");
    // Up to 8 workers share 2 cores here: STOWS run times are noise, and
    // evolve must not go back to RELWS because of them in these tests.
    c.evolve_slowdown_pct = 0;
    return c;
  }
};

TEST_P(Locality, CopyFollowingInitUnderStowsIsLocalAndRelocalizationMovesNothing) {
  cws::runtime rt(config());
  ASSERT_EQ(rt.page_homes().name(), "simulated");
  memcopy_scenario m(rt, 16);
  auto& init = rt.schedule("init", "stows");
  auto& copy = rt.schedule("copy", "stows").follow("init");
  m.init(init);  // no template yet: random; first touch places the pages
  EXPECT_DOUBLE_EQ(share_of(init), 1.0);
  for (int it = 0; it < 5; ++it) {
    m.copy(copy);
    EXPECT_DOUBLE_EQ(share_of(copy), 1.0) << "copy " << it;
  }
  EXPECT_TRUE(m.copied());
  const cws::relocalization_report& r = rt.relocalize(copy);
  EXPECT_EQ(r.pages_examined, 2 * m.n * sizeof(double) / cws::test::system_page());
  EXPECT_EQ(r.pages_moved, 0u);
  EXPECT_EQ(r.pages_failed, 0u);
}

TEST_P(Locality, RandomFirstTouchAndInterleavedPagesStayBelowTheReplay) {
  cws::runtime rt(config());
  std::vector<double> random_shares, interleaved_shares;
  double lowest_random = 1.0;
  for (int run = 0; run < 8; ++run) {
    memcopy_scenario m(rt, 16);
    m.init(rt.schedule("init/random"));
    m.copy(rt.schedule("copy/random"));
    random_shares.push_back(share_of(rt.schedule("copy/random")));
    lowest_random = std::min(lowest_random, random_shares.back());
    memcopy_scenario mi(rt, 16, cws::numa::interleaved);
    mi.init(rt.schedule("init/interleaved"));
    interleaved_shares.push_back(share_of(rt.schedule("init/interleaved")));
  }
  const double random_mean = cws::test::mean_share(random_shares);
  const double interleaved_mean = cws::test::mean_share(interleaved_shares);
  std::printf("  %u nodes: random + first touch %.1f%% local, random + interleave %.1f%%\n", nodes(),
              100 * random_mean, 100 * interleaved_mean);
  // Interleaving puts page p on node p % N: whatever the schedule, about 1/N is local.
  EXPECT_NEAR(interleaved_mean, 1.0 / nodes(), 0.15);
  // Two independent random trees can coincide (one worker doing everything
  // on a loaded machine, say), so only some of the runs must lose locality.
  EXPECT_LT(lowest_random, 0.9);
}

TEST_P(Locality, EvolveRelocalizesHeatUntilConvergedThenStaysLocal) {
  cws::runtime rt(config());
  heat_scenario h(rt, 512, 8);  // halo rows at worker boundaries stay well under 1% of the rows
  h.init(rt.schedule("heat-init"));  // random, first touch
  auto& step = rt.schedule("heat-step", "evolve");
  const unsigned steps = 14;
  std::vector<double> shares;
  for (unsigned it = 0; it < steps; ++it) {
    h.step(step);
    shares.push_back(share_of(step));
  }
  EXPECT_DOUBLE_EQ(h.checksum(), heat_scenario::serial_checksum(h.rows, steps));

  const auto* state = cws::schedulers::store_of(rt).find("heat-step");
  ASSERT_NE(state, nullptr);
  std::string history;
  for (const auto& r : state->history)
    history += "\n  #" + std::to_string(r.iteration) + " " + r.ran_as + " " + r.note + " " + r.divergence;
  ASSERT_TRUE(state->converged) << "evolve did not converge within " << steps << " iterations:" << history;
  const std::uint64_t converged_at = state->converged_at;
  // Relocalized after the runs up to convergence, never after it.
  ASSERT_NE(step.last_relocalization(), nullptr);
  EXPECT_EQ(step.last_relocalization()->iteration, converged_at);
  for (std::uint64_t it = converged_at + 1; it < steps; ++it)
    EXPECT_GE(shares[it], 0.99) << "iteration " << it << " (converged at " << converged_at << ")";
  std::printf("  %u nodes: evolve converged at iteration %llu; local share first %.1f%%, last %.2f%%\n", nodes(),
              static_cast<unsigned long long>(converged_at), 100 * shares.front(), 100 * shares.back());
  EXPECT_EQ(rt.relocalize(step).pages_moved, 0u);
}

INSTANTIATE_TEST_SUITE_P(Synthetic, Locality, ::testing::Values(2u, 4u, 8u),
                         [](const auto& info) { return std::to_string(info.param) + "nodes"; });

}  // namespace
