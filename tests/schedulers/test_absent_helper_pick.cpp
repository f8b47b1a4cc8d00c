// A strict replay's first template is picked from random runs
// (schedulers/src/template_pick.hpp). A run in which a helper was absent (it
// had not joined when the caller finished the phase) while the phase had
// work to steal is the machine's timing, not the phase's balance: it does not
// count as a try until the allowance is used up. Without that rule, a
// schedule whose first phases ran before its helper woke replays a
// one-worker tree for ever.
//
// The helper is held where it cannot run (support/held_helper.hpp), so every
// run below has it absent: the outcome does not depend on timing. Not in the
// tsan label (signals).

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "cws/cws.hpp"
#include "cws/schedulers/knobs.hpp"
#include "cws/schedulers/schedule_store.hpp"
#include "support/held_helper.hpp"
#include "support/runtime_fixture.hpp"
#include "template_pick.hpp"

namespace {

namespace cs = cws::schedulers;
using cs::detail::template_pick;
using cws::test::held_helper;

// Two workers, `tries` for the pick, the balance rule at 10 %.
cws::runtime_config two_workers_trying(unsigned tries) {
  cws::runtime_config cfg = cws::test::config(2);
  cs::knobs_of(cfg).replay.template_tries = tries;
  cs::knobs_of(cfg).replay.evolve_balance_pct = 10;
  return cfg;
}

// Holds worker 1 (found as the thief of a phase that needs one).
void hold_the_helper(cws::runtime& rt, held_helper& helper) {
  const cws::test::stolen_child probe = cws::test::run_phase_needing_a_helper(rt, rt.schedule("probe"));
  ASSERT_TRUE(probe.stolen) << "worker 1 never took the child";
  ASSERT_TRUE(helper.hold(probe.thread)) << "the helper never ran the signal handler";
}

// Holds worker 1, runs `phase` on rt's "step" schedule (stows) up to `runs`
// times while `seen(report, run index)` returns true, then lets the helper go;
// fails if a phase waited for it (the watchdog freed it). In ASSERT_NO_FATAL_FAILURE.
template <class Phase, class Seen>
void run_with_the_helper_held(cws::runtime& rt, int runs, const Phase& phase, Seen seen) {
  held_helper helper;
  ASSERT_NO_FATAL_FAILURE(hold_the_helper(rt, helper));
  auto& s = rt.schedule("step", "stows");
  for (int i = 0; i < runs && seen(rt.run(s, phase), i); ++i) {
  }
  const bool waited = helper.watchdog_fired();
  held_helper::release();
  ASSERT_FALSE(waited) << "a phase waited for a helper that could not run";
}

TEST(absent_helper_pick, runs_without_the_helper_count_as_tries_only_past_the_allowance) {
  constexpr unsigned bound = 3;
  cws::runtime rt(two_workers_trying(bound));
  constexpr unsigned allowance = template_pick::absent_allowance;
  constexpr unsigned recorded = allowance + bound;  // then the most balanced of them is the template
  std::vector<cws::ran_as> ran_as;
  std::vector<std::string> reasons, notes;
  unsigned joined_alone = 0;
  const auto phase = [] {
    for (int k = 0; k < 8; ++k) cws::spawn([] {});
    (void)cws::test::spin_for(std::chrono::microseconds(3), 1);  // long enough for a helper to join (helper_join_s)
    cws::sync();
  };
  ASSERT_NO_FATAL_FAILURE(run_with_the_helper_held(rt, recorded + 1, phase, [&](const cws::run_report& r, int) {
    ran_as.push_back(r.ran_as);
    reasons.push_back(r.reason);
    notes.push_back(r.note);
    joined_alone += r.workers_joined == 1;
    return true;
  }));
  ASSERT_EQ(joined_alone, recorded + 1) << "the held helper was counted among the workers that joined";

  for (unsigned i = 0; i < recorded; ++i) EXPECT_EQ(ran_as[i], cws::ran_as::random_no_template) << "run " << i;
  EXPECT_EQ(ran_as[recorded], cws::ran_as::stows);
  EXPECT_EQ(reasons[0], "no template yet");
  EXPECT_EQ(reasons[1], "no balanced run yet: 0 of 3 tried, 1 more with a helper absent");
  EXPECT_EQ(reasons[allowance],
            fmt::format("no balanced run yet: 0 of 3 tried, {} more with a helper absent", allowance));
  EXPECT_EQ(reasons[allowance + 1],
            fmt::format("no balanced run yet: 1 of 3 tried, {} more with a helper absent", allowance));
  EXPECT_NE(notes[0].find("not a template: a helper had not joined when the phase ended"), std::string::npos)
      << notes[0];
  EXPECT_NE(notes[allowance].find("not a template: busiest worker x2.00 of its fair share of the busy time, 1 idle"),
            std::string::npos)
      << notes[allowance];
  EXPECT_NE(notes[recorded - 1].find("no random run balanced in 3: run #0"), std::string::npos) << notes[recorded - 1];
  EXPECT_EQ(cs::store_of(rt).at("step").template_from, "recorded run #0, the most balanced of 3 random runs");
}

// A helper that joins a phase late counts the time before it joined as idle
// (stats.hpp), so that wall_s less idle_s is the time it worked: held while
// the phase starts and let go 2 ms into it, it then runs the one child the
// caller waits for and nothing else.
TEST(absent_helper_pick, a_helper_that_joins_late_counts_the_time_before_as_idle) {
  cws::runtime rt(cws::test::config(2));
  held_helper helper;
  ASSERT_NO_FATAL_FAILURE(hold_the_helper(rt, helper));
  std::atomic<bool> started{false};
  bool came = false;
  const cws::run_report& r = rt.run(rt.schedule("late", cws::policy::random), [&] {
    cws::spawn([&] { started = true; });
    (void)cws::test::spin_for(std::chrono::milliseconds(2), 1);
    held_helper::release();
    came = cws::test::wait_for([&] { return started.load(); });  // only the helper can start it
    cws::sync();
  });
  ASSERT_FALSE(helper.watchdog_fired());
  ASSERT_TRUE(came) << "the helper never took the child";
  ASSERT_EQ(r.workers_joined, 2u);
  ASSERT_GE(r.per_worker[1].segments, 1u);
  EXPECT_GE(r.per_worker[1].idle_s, 2e-3) << "held through the phase's first 2 ms";
  EXPECT_LE(r.per_worker[1].idle_s, r.wall_s);
  EXPECT_GT(r.balance.busy_over_fair, 1.5) << "the caller was busy throughout, the helper for one empty task";
}

// A phase shorter than template_pick::helper_join_s that the helper missed
// was too short for any helper: its run counts as a try at once. Which runs
// are that short is the machine's doing (an AddressSanitizer build on a
// loaded machine had fewer than 3 of 999 empty spawns under 2 us), so the
// test reads each run's wall time and checks the rule against whatever
// happened: the template comes right after the bound-th short run, and never
// while fewer than `bound` runs were short (a longer run with the helper
// absent does not count, and the runs stop short of the allowance). The
// rule itself, on chosen wall times: template_pick's
// a_helper_is_absent_only_from_a_spawning_phase_long_enough_to_join.
TEST(absent_helper_pick, runs_too_short_for_a_helper_count_at_once) {
  constexpr unsigned bound = 3;
  cws::runtime rt(two_workers_trying(bound));
  unsigned short_runs = 0;
  int counted_through = -1, adopted_at = -1;
  const auto phase = [] {
    cws::spawn([] {});
    cws::sync();
  };
  constexpr int runs = static_cast<int>(template_pick::absent_allowance) - 1;
  ASSERT_NO_FATAL_FAILURE(run_with_the_helper_held(rt, runs, phase, [&](const cws::run_report& r, int i) {
    if (r.ran_as == cws::ran_as::stows) {
      adopted_at = i;
      return false;
    }
    EXPECT_EQ(r.workers_joined, 1u) << "run " << i;
    // The last run's adoption would come after the runs end: not counted.
    if (r.wall_s < template_pick::helper_join_s && i + 1 < runs && ++short_runs == bound) counted_through = i;
    return true;
  }));
  if (counted_through < 0) {
    EXPECT_EQ(adopted_at, -1) << "adopted after " << short_runs << " short run(s) of the " << bound << " it takes";
    return;
  }
  EXPECT_EQ(adopted_at, counted_through + 1);
  EXPECT_NE(cs::store_of(rt).at("step").template_from.find("the most balanced of 3 random runs"), std::string::npos)
      << cs::store_of(rt).at("step").template_from;
}

// A phase that spawns nothing leaves no work to steal: an absent helper
// changes nothing about it, and its runs count as tries at once.
TEST(absent_helper_pick, a_phase_without_spawns_counts_its_runs_with_the_helper_absent) {
  cws::runtime rt(two_workers_trying(2));
  std::vector<cws::ran_as> ran_as;
  const auto spawns_nothing = [] {};
  ASSERT_NO_FATAL_FAILURE(run_with_the_helper_held(rt, 3, spawns_nothing, [&](const cws::run_report& r, int) {
    ran_as.push_back(r.ran_as);
    return true;
  }));
  EXPECT_EQ(ran_as[0], cws::ran_as::random_no_template);
  EXPECT_EQ(ran_as[1], cws::ran_as::random_no_template);
  EXPECT_EQ(ran_as[2], cws::ran_as::stows);
}

}  // namespace
