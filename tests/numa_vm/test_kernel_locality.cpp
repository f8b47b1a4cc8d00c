// The locality checks of the synthetic suite (support/locality_checks.hpp) on
// this kernel's real NUMA nodes, with the kernel page-home backend: memcopy's
// copy following init under STOWS, random stealing over first-touched and
// interleaved pages, and heat under evolve with relocalization.

#include <gtest/gtest.h>
#include <numa.h>

#include "cws/cws.hpp"
#include "support/locality_checks.hpp"

namespace {

cws::runtime_config kernel_config() {
  cws::runtime_config c;  // this machine's topology, one worker per core
  c.pages = cws::page_backend::kernel;
  cws::schedulers::knobs_of(c).replay.evolve_slowdown_pct = 0;  // emulated CPUs: run times are noise
  // Emulated vCPUs can stand still for long stretches at once; these tests
  // are about pages, not stall detection (tests/schedulers/test_stall.cpp),
  // so a slow guest is given 2 s before a replay counts as stalled.
  cws::schedulers::knobs_of(c).replay.stall_ms = 2000;
  // Nor a phase released from its replay by a vCPU that stood still (CWS_REPLAY_GRACE_US).
  cws::schedulers::knobs_of(c).replay.grace_us = 0;
  return c;
}

class KernelLocality : public ::testing::Test {
 protected:
  void SetUp() override {
    if (numa_available() < 0 || numa_num_configured_nodes() < 2) GTEST_SKIP() << "needs >= 2 NUMA nodes";
  }
};

TEST_F(KernelLocality, CopyFollowingInitUnderStowsIsLocalAndRelocalizationMovesNothing) {
  cws::test::check_copy_follows_init(kernel_config());
}

TEST_F(KernelLocality, RandomFirstTouchAndInterleavedPagesStayBelowTheReplay) {
  cws::test::check_random_and_interleave(kernel_config());
}

TEST_F(KernelLocality, EvolveRelocalizesHeatUntilConvergedThenStaysLocal) {
  cws::test::check_evolve_heat(kernel_config());
}

}  // namespace
