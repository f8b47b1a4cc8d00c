// A helper takes part in a phase only if it joins while the phase is open
// (scheduler.hpp, Joining): a phase the caller finishes alone does not wait
// for a helper the OS has not run, that helper reports nothing for it, and it
// joins later phases again.
//
// The helper is held where no scheduling can free it (support/held_helper.hpp).
// While it is held, the caller runs phases alone; with the old protocol (the
// caller waits for every helper to pass through each phase) the first of them
// would never return, so a watchdog lets the helper go after a deadline and
// the test fails instead of hanging. Not in the tsan label (signals).

#include <gtest/gtest.h>

#include <cstdint>

#include "cws/cws.hpp"
#include "support/held_helper.hpp"
#include "support/runtime_fixture.hpp"

namespace {

using cws::test::held_helper;
using cws::test::run_phase_needing_a_helper;
using cws::test::stolen_child;
using cws::test::wait_for;

TEST(PhaseJoin, ACallerFinishesItsPhasesAloneWhileAHelperCannotRunAndTheHelperJoinsLater) {
  cws::runtime rt(cws::test::config(2));
  auto& s = rt.schedule("join");
  const stolen_child first = run_phase_needing_a_helper(rt, s);
  ASSERT_TRUE(first.stolen) << "worker 1 never took the child";
  ASSERT_EQ(first.helper_segments, 1u);

  held_helper helper;
  ASSERT_TRUE(helper.hold(first.thread)) << "the helper never ran the signal handler";

  constexpr int alone = 50;
  int helper_segments = 0, joined = 0;
  std::uint64_t caller_tasks = 0;
  for (int i = 0; i < alone; ++i) {
    const cws::run_report& r = rt.run(s, [] {
      for (int k = 0; k < 8; ++k) cws::spawn([] {});
      cws::sync();
    });
    helper_segments += static_cast<int>(r.per_worker.at(1).segments + r.per_worker.at(1).tasks);
    caller_tasks += r.per_worker.at(0).tasks;
    joined += r.workers_joined == 1;
  }
  const bool waited = helper.watchdog_fired();
  held_helper::release();
  EXPECT_FALSE(waited) << "a phase waited for a helper that could not run";
  EXPECT_EQ(helper_segments, 0) << "a helper that never ran reported work";
  EXPECT_EQ(caller_tasks, alone * 9u) << "the caller ran the root and its 8 children in every phase";
  EXPECT_EQ(joined, alone) << "a phase counted the held helper among the workers that joined";

  // The helper, free again, joins the next phase that needs it.
  const stolen_child after = run_phase_needing_a_helper(rt, s);
  EXPECT_TRUE(after.stolen) << "the helper did not join a phase after it was held";
  EXPECT_EQ(after.helper_segments, 1u);
  EXPECT_EQ(after.workers_joined, 2u);
}

}  // namespace
