// A strict replay (or user's designations) whose spawner reaches its sync
// before the designated thief has joined the phase: random stealing would
// run that child on the spawner, so the phase is released at once
// (ran_as::random_released), whatever CWS_REPLAY_GRACE_US is; the grace is
// for thieves already in the phase but busy (test_replay_grace).
//
// Worker 1 is held where it cannot run (support/held_helper.hpp), so it never
// joins: the outcome does not depend on timing. The grace is the largest the
// knob takes (10 s): without the rule the spawner would wait it out and
// report that it waited. Not in the tsan label (signals).

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <string_view>

#include "cws/cws.hpp"
#include "cws/schedulers/knobs.hpp"
#include "cws/schedulers/schedule_store.hpp"
#include "support/held_helper.hpp"
#include "support/runtime_fixture.hpp"
#include "support/seeded_schedule.hpp"
#include "support/steal_tree_builders.hpp"

namespace {

namespace st = cws::steal_tree;
using cws::test::held_helper;

constexpr unsigned longest_grace_us = 10'000'000;

cws::runtime_config with_longest_grace() {
  cws::runtime_config c = cws::test::config(2);
  cws::schedulers::knobs_of(c).replay.grace_us = longest_grace_us;
  return c;
}

// The root's first spawn, A, goes to worker 1.
st::tree a_to_worker_1() { return cws::test::root_handing_spawn_to(2, 0, 1); }

void hold_the_helper(cws::runtime& rt, held_helper& helper) {
  const cws::test::stolen_child probe = cws::test::run_phase_needing_a_helper(rt, rt.schedule("probe"));
  ASSERT_TRUE(probe.stolen) << "worker 1 never took the child";
  ASSERT_TRUE(helper.hold(probe.thread)) << "the helper never ran the signal handler";
}

// Spawns A (designated to worker 1 when `designate`), then syncs; once
// `wait_for_a`, only after A started (the thief is in the phase then).
unsigned run_a(cws::runtime& rt, cws::schedule& s, bool designate, bool wait_for_a, const cws::run_report** out) {
  std::atomic<unsigned> a_on{99};
  const cws::run_report& r = rt.run(s, [&] {
    if (designate) cws::designate_after_next_spawn(1);
    cws::spawn([&] { a_on = cws::this_worker(); });
    if (wait_for_a) cws::test::wait_for([&] { return a_on.load() != 99; });
    cws::sync();
  });
  *out = &r;
  return a_on.load();
}

TEST(absent_thief_release, the_spawner_runs_the_task_of_a_thief_not_in_the_phase_at_once) {
  for (const std::string_view policy : {cws::policy::stows, cws::policy::stuws, cws::policy::user}) {
    SCOPED_TRACE(std::string(policy));
    cws::runtime rt(with_longest_grace());
    const bool user = policy == cws::policy::user;
    const cws::test::seeded_schedule a = cws::test::seed_unless_user(rt, "a", policy, a_to_worker_1());
    cws::schedule& s = a.schedule;
    {
      held_helper helper;
      ASSERT_NO_FATAL_FAILURE(hold_the_helper(rt, helper));
      for (int run = 0; run < 3; ++run) {
        const cws::run_report* r = nullptr;
        EXPECT_EQ(run_a(rt, s, user, false, &r), 0u) << "A can only have run on its spawner";
        EXPECT_EQ(r->ran_as, cws::ran_as::random_released) << r->label() << ": " << r->reason;
        EXPECT_EQ(r->planned, cws::ran_as_from_string(policy));
        EXPECT_EQ(r->reason,
                  "worker 0 reached a sync before worker 1, the thief of its designated task, had joined the phase");
        EXPECT_EQ(r->workers_joined, 1u);
        EXPECT_EQ(r->taken_back(), 1u);
        EXPECT_FALSE(r->diverged());
      }
      EXPECT_FALSE(helper.watchdog_fired()) << "a phase waited for the held helper";
    }
    EXPECT_EQ(a.current(rt), a.templ) << "a thief not in the phase is no reason to drop the template";
    // Worker 1 free again and in the phase when the root syncs: the template replays.
    const cws::run_report* r = nullptr;
    EXPECT_EQ(run_a(rt, s, user, true, &r), 1u);
    EXPECT_EQ(r->ran_as, cws::ran_as_from_string(policy)) << r->label() << ": " << r->reason;
    EXPECT_EQ(r->designated(), 1u);
  }
}

}  // namespace
