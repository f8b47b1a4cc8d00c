// Locality under the replaying policies on synthetic 2-, 4- and 8-node
// topologies with the simulated page backend; the numa-vm suite runs the same
// checks (support/locality_checks.hpp) on real multi-node kernels.

#include <gtest/gtest.h>

#include <string>

#include "cws/cws.hpp"
#include "support/locality_checks.hpp"
#include "support/runtime_fixture.hpp"

namespace {

class Locality : public ::testing::TestWithParam<unsigned> {
 protected:
  cws::runtime_config config() const {
    const unsigned nodes = GetParam();
    cws::runtime_config c = cws::test::config(nodes, "pack:" + std::to_string(nodes) + " numa:1 core:1 pu:1");
    // Up to 8 workers share 2 cores here: STOWS run times are noise, and
    // evolve must not go back to RELWS because of them in these tests.
    cws::schedulers::knobs_of(c).replay.evolve_slowdown_pct = 0;
    return c;
  }
};

TEST_P(Locality, BackendIsSimulated) {
  cws::runtime rt(config());
  EXPECT_EQ(rt.page_homes().name(), "simulated");
}

TEST_P(Locality, CopyFollowingInitUnderStowsIsLocalAndRelocalizationMovesNothing) {
  cws::test::check_copy_follows_init(config());
}

TEST_P(Locality, RandomFirstTouchAndInterleavedPagesStayBelowTheReplay) {
  cws::test::check_random_and_interleave(config());
}

TEST_P(Locality, EvolveRelocalizesHeatUntilConvergedThenStaysLocal) { cws::test::check_evolve_heat(config()); }

INSTANTIATE_TEST_SUITE_P(Synthetic, Locality, ::testing::Values(2u, 4u, 8u),
                         [](const auto& param_info) { return std::to_string(param_info.param) + "nodes"; });

}  // namespace
