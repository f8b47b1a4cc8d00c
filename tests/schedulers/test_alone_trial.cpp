// A small strict replay timed against the calling thread alone
// (CWS_REPLAY_ALONE_US, schedulers/src/alone_trial.hpp): the trial's rule on
// given wall times, and the policy on the real runtime, where what a run
// does follows from the run count and the decision the run's note states,
// never from what the timing happens to give.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "alone_trial.hpp"
#include "cws/cws.hpp"
#include "cws/schedulers/knobs.hpp"
#include "cws/schedulers/schedule_store.hpp"
#include "support/runtime_fixture.hpp"
#include "support/steal_tree_builders.hpp"

namespace {

namespace cs = cws::schedulers;
using cs::detail::alone_trial;
constexpr unsigned per_side = alone_trial::runs_per_side;
constexpr unsigned trial_runs = alone_trial::trial_runs;

// The trial's run i goes alone: blocks of an untimed run and block_timed
// timed ones, alone first.
bool alone_in_trial(unsigned i) { return i / (alone_trial::block_timed + 1) % 2 == 0; }

std::shared_ptr<const cws::steal_tree::tree> one_steal() {
  return std::make_shared<const cws::steal_tree::tree>(cws::test::root_handing_spawn_to(2, 0, 1));
}

// Runs of `s` seconds each while watching, until the trial starts.
void watch_short_runs(alone_trial& t) {
  for (unsigned i = 0; i < per_side; ++i) {
    EXPECT_FALSE(t.alone_next()) << "watching run " << i;
    EXPECT_FALSE(t.after_run(false, 5e-6));
  }
  ASSERT_TRUE(t.trying());
}

// A trial of a one-steal template under a 20 us bound, past its watching.
alone_trial trying_one_steal() {
  alone_trial t;
  t.use(one_steal(), 20);
  watch_short_runs(t);
  return t;
}

// The trial: blocks, alone first; alone runs take `alone_s`, replayed ones
// `replayed_s`, and the untimed first run of each block 1 s (it must not count).
bool run_trial(alone_trial& t, double alone_s, double replayed_s) {
  EXPECT_EQ(trial_runs, 20u);
  for (unsigned i = 0; i < trial_runs; ++i) {
    const bool alone = t.alone_next();
    EXPECT_EQ(alone, alone_in_trial(i)) << "trial run " << i;
    const bool untimed = i % (alone_trial::block_timed + 1) == 0;
    const bool decided = t.after_run(alone, untimed ? 1.0 : alone ? alone_s : replayed_s);
    EXPECT_EQ(decided, i + 1 == trial_runs) << "trial run " << i;
  }
  return t.alone_next();
}

// cws-floyd's steps: 19 us replayed on 2 workers, both busy nearly all of
// it (36 us of work), so the caller alone would take about twice as long.
TEST(alone_trial, replays_that_keep_their_workers_busy_are_not_tried_alone) {
  alone_trial t;
  t.use(one_steal(), 20);
  for (unsigned i = 0; i + 1 < per_side; ++i) EXPECT_FALSE(t.after_run(false, 19e-6, 36e-6));
  EXPECT_TRUE(t.after_run(false, 19e-6, 36e-6)) << "the decision, without a trial";
  EXPECT_FALSE(t.trying());
  EXPECT_FALSE(t.alone_next());
  EXPECT_EQ(t.decision(),
            "replayed: its replays kept 1.9 workers busy (median of 8), so the caller alone would take about that "
            "many times as long; not tried alone");
  // Checked again after runs_between_trials runs, watching as after a trial.
  for (std::uint64_t i = 0; i + 1 < alone_trial::runs_between_trials; ++i) ASSERT_FALSE(t.after_run(false, 19e-6));
  EXPECT_FALSE(t.wants_busy_time(19e-6));
  EXPECT_FALSE(t.after_run(false, 19e-6));
  EXPECT_TRUE(t.wants_busy_time(19e-6)) << "watching again";
  EXPECT_FALSE(t.wants_busy_time(21e-6)) << "a run over the bound resets the row: its busy time does not count";
}

TEST(alone_trial, a_few_busy_replays_in_the_row_do_not_stop_the_trial) {
  alone_trial t;
  t.use(one_steal(), 20);
  EXPECT_TRUE(t.wants_busy_time(5e-6));
  // Three of eight replays busy (a preempted caller and helper, say): the median is not.
  for (unsigned i = 0; i < per_side; ++i) EXPECT_FALSE(t.after_run(false, 5e-6, i % 3 == 0 ? 10e-6 : 6e-6));
  EXPECT_TRUE(t.trying());
  EXPECT_FALSE(t.wants_busy_time(5e-6));
}

TEST(alone_trial, a_short_phase_is_tried_alone_and_the_faster_side_is_kept) {
  alone_trial t;
  EXPECT_TRUE(t.use(one_steal(), 20));
  watch_short_runs(t);
  EXPECT_TRUE(run_trial(t, 1e-6, 3e-6));
  EXPECT_EQ(t.decision(), "alone: median 1.0 us alone against 3.0 us replaying its 1 steal (8 runs each)");
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(t.alone_next());
    EXPECT_FALSE(t.after_run(true, 1e-6));
  }

  alone_trial slower = trying_one_steal();
  EXPECT_FALSE(run_trial(slower, 6e-6, 3e-6));
  EXPECT_EQ(slower.decision(), "replayed: median 6.0 us alone against 3.0 us replaying its 1 steal (8 runs each)");
}

// A median, not a mean: one descheduled run on the alone side does not decide.
TEST(alone_trial, one_slow_run_does_not_decide) {
  alone_trial t = trying_one_steal();
  for (unsigned i = 0; i < trial_runs; ++i) {
    const bool alone = t.alone_next();
    t.after_run(alone, alone ? (i == 1 ? 5e-3 : 1e-6) : 2e-6);
  }
  EXPECT_TRUE(t.alone_next()) << t.decision();
}

TEST(alone_trial, a_long_run_while_watching_starts_the_count_again) {
  alone_trial t;
  t.use(one_steal(), 20);
  for (unsigned i = 0; i + 1 < per_side; ++i) t.after_run(false, 5e-6);
  t.after_run(false, 30e-6);  // over the bound
  for (unsigned i = 0; i + 1 < per_side; ++i) t.after_run(false, 5e-6);
  EXPECT_FALSE(t.trying());
  t.after_run(false, 5e-6);
  EXPECT_TRUE(t.trying());
}

// The phase grew past the bound: alone runs stop, and the template replays.
TEST(alone_trial, alone_runs_that_grew_go_back_to_the_template) {
  alone_trial t = trying_one_steal();
  ASSERT_TRUE(run_trial(t, 1e-6, 3e-6));
  for (unsigned i = 0; i + 1 < per_side; ++i) EXPECT_FALSE(t.after_run(true, 50e-6));
  EXPECT_TRUE(t.alone_next());
  EXPECT_TRUE(t.after_run(true, 50e-6));
  EXPECT_EQ(t.decision(), "replayed again: 8 runs alone in a row took over 20 us");
  EXPECT_FALSE(t.alone_next());
  EXPECT_FALSE(t.trying());
}

// A decision holds for runs_between_trials runs: then replayed phases are
// watched again, and alone ones tried again at once (in blocks, so that
// the replays do not come 8 in a row).
TEST(alone_trial, the_decision_is_checked_again_after_its_runs) {
  alone_trial t = trying_one_steal();
  ASSERT_FALSE(run_trial(t, 6e-6, 3e-6));
  for (std::uint64_t i = 0; i + 1 < alone_trial::runs_between_trials; ++i) t.after_run(false, 3e-6);
  EXPECT_FALSE(t.trying());
  t.after_run(false, 3e-6);
  watch_short_runs(t);
  ASSERT_TRUE(run_trial(t, 1e-6, 3e-6));
  for (std::uint64_t i = 0; i + 1 < alone_trial::runs_between_trials; ++i) {
    ASSERT_TRUE(t.alone_next());
    t.after_run(true, 1e-6);
  }
  t.after_run(true, 1e-6);
  EXPECT_TRUE(t.trying());
  EXPECT_FALSE(run_trial(t, 6e-6, 3e-6));
}

TEST(alone_trial, a_new_template_starts_over_and_the_same_one_does_not) {
  alone_trial t;
  const auto first = one_steal();
  t.use(first, 20);
  watch_short_runs(t);
  ASSERT_TRUE(run_trial(t, 1e-6, 3e-6));
  EXPECT_FALSE(t.use(first, 20));
  EXPECT_TRUE(t.alone_next());
  EXPECT_TRUE(t.use(one_steal(), 20));
  EXPECT_FALSE(t.alone_next());
  EXPECT_TRUE(t.decision().empty());
}

TEST(alone_trial, nothing_to_try_without_steals_a_bound_or_a_second_worker) {
  alone_trial t;
  EXPECT_FALSE(t.use(std::make_shared<const cws::steal_tree::tree>(cws::test::root_only(2)), 20));
  EXPECT_FALSE(t.use(one_steal(), 0));
  EXPECT_FALSE(t.use(std::make_shared<const cws::steal_tree::tree>(cws::test::root_handing_spawn_to(1, 0, 0)), 20));
  EXPECT_FALSE(t.use(nullptr, 20));
  for (unsigned i = 0; i < 3 * per_side; ++i) {
    EXPECT_FALSE(t.alone_next());
    EXPECT_FALSE(t.after_run(false, 1e-6));
  }
  EXPECT_FALSE(t.watching());
}

// ---------------------------------------------------------------- the policy

cws::runtime_config alone_up_to(unsigned us) {
  cws::runtime_config c = cws::test::config(2);
  cs::knobs_of(c).replay.alone_us = us;
  return c;
}

struct two_tasks {
  std::atomic<unsigned> ran{0};
  std::atomic<unsigned> off_caller{0};
};

// The root spawns A, which the template hands to worker 1, and runs B itself.
const cws::run_report& run_two(cws::runtime& rt, cws::schedule& s, two_tasks& p,
                               std::chrono::microseconds each = std::chrono::microseconds(0)) {
  const std::thread::id caller = std::this_thread::get_id();
  auto task = [&, caller, each] {
    if (each.count() != 0) std::this_thread::sleep_for(each);
    p.ran.fetch_add(1);
    if (std::this_thread::get_id() != caller) p.off_caller.fetch_add(1);
  };
  return rt.run(s, [&] {
    cws::spawn(task);
    task();
    cws::sync();
  });
}

// With a bound no phase exceeds, the 9th replay goes alone (the trial's
// first run): no helper joins, every task runs on the caller, nothing is
// designated, the template stays. The trial then alternates blocks, and after it
// every run follows the decision its note states.
TEST(alone_policy, stows_times_a_short_template_alone_and_follows_the_decision) {
  cws::runtime rt(alone_up_to(1000000));
  auto& store = cs::store_of(rt);
  store.seed("ab", cws::test::root_handing_spawn_to(2, 0, 1), "hand-built");
  const auto templ = store.at("ab").templ;
  auto& s = rt.schedule("ab", cws::policy::stows);
  for (unsigned run = 0; run < per_side; ++run) {
    two_tasks p;
    const cws::run_report& r = run_two(rt, s, p);
    ASSERT_EQ(r.ran_as, cws::ran_as::stows) << r.reason;
    EXPECT_EQ(r.designated(), 1u) << "watching run " << run;
    EXPECT_EQ(p.off_caller.load(), 1u);
  }
  std::string decision;
  for (unsigned run = 0; run < trial_runs; ++run) {
    two_tasks p;
    const cws::run_report& r = run_two(rt, s, p);
    ASSERT_EQ(r.ran_as, cws::ran_as::stows) << r.reason;
    ASSERT_EQ(p.ran.load(), 2u);
    if (alone_in_trial(run)) {
      EXPECT_EQ(r.workers_joined, 1u) << "trial run " << run;
      EXPECT_EQ(r.designated(), 0u);
      EXPECT_EQ(p.off_caller.load(), 0u);
      EXPECT_EQ(r.per_worker[1].tasks, 0u);
      EXPECT_EQ(r.template_from, "hand-built, timed alone");
    } else {
      EXPECT_EQ(r.designated(), 1u) << "trial run " << run;
      EXPECT_EQ(p.off_caller.load(), 1u);
      EXPECT_EQ(r.template_from, "hand-built");
    }
    EXPECT_EQ(store.at("ab").templ, templ);
    if (run + 1 == trial_runs) decision = r.note;
  }
  const bool alone = decision.starts_with("alone: median ");
  ASSERT_TRUE(alone || decision.starts_with("replayed: median ")) << decision;
  EXPECT_NE(decision.find(" replaying its 1 steal (8 runs each)"), std::string::npos) << decision;
  for (int run = 0; run < 20; ++run) {
    two_tasks p;
    const cws::run_report& r = run_two(rt, s, p);
    EXPECT_EQ(r.designated(), alone ? 0u : 1u) << decision;
    EXPECT_EQ(p.off_caller.load(), alone ? 0u : 1u) << decision;
    EXPECT_EQ(r.template_from, alone ? "hand-built, run alone" : "hand-built") << decision;
    EXPECT_TRUE(r.note.empty()) << r.note;
  }
}

// A template without a steal runs alone from its first replay: under a
// strict replay the helpers would find nothing they may run. A template
// with steals after it starts its own trial.
TEST(alone_policy, a_template_without_steals_runs_alone_at_once) {
  cws::runtime rt(alone_up_to(1000000));
  auto& store = cs::store_of(rt);
  store.seed("ab", cws::test::root_only(2), "hand-built, no steal");
  auto& s = rt.schedule("ab", cws::policy::stows);
  for (int run = 0; run < 5; ++run) {
    two_tasks p;
    const cws::run_report& r = run_two(rt, s, p);
    ASSERT_EQ(r.ran_as, cws::ran_as::stows) << r.reason;
    EXPECT_EQ(r.workers_joined, 1u) << "run " << run;
    EXPECT_EQ(p.ran.load(), 2u);
    EXPECT_EQ(p.off_caller.load(), 0u);
    EXPECT_EQ(r.template_from, "hand-built, no steal, run alone");
  }
  store.seed("ab", cws::test::root_handing_spawn_to(2, 0, 1), "hand-built");
  for (unsigned run = 0; run < per_side; ++run) {
    two_tasks p;
    const cws::run_report& r = run_two(rt, s, p);
    EXPECT_EQ(r.designated(), 1u) << "watching run " << run;
    EXPECT_EQ(p.off_caller.load(), 1u);
  }
  two_tasks p;
  const cws::run_report& r = run_two(rt, s, p);
  EXPECT_EQ(r.template_from, "hand-built, timed alone");
  EXPECT_EQ(r.workers_joined, 1u);
  EXPECT_EQ(p.off_caller.load(), 0u);
}

// A converged evolve replays under stows, so it times its template alone too:
// an alone run keeps it converged on the same template. (Nor does an alone
// run relocalize: its touches are all the caller's. These phases declare
// none, so that part is not what this test checks.)
TEST(alone_policy, converged_evolve_times_alone_and_stays_converged) {
  cws::runtime rt(alone_up_to(1000000));
  auto& store = cs::store_of(rt);
  store.seed("ab", cws::test::root_handing_spawn_to(2, 0, 1), "hand-built");
  store.mark_converged("ab");
  const auto templ = store.at("ab").templ;
  auto& s = rt.schedule("ab", cws::policy::evolve);
  for (unsigned run = 0; run <= per_side; ++run) {
    two_tasks p;
    const cws::run_report& r = run_two(rt, s, p);
    ASSERT_EQ(r.ran_as, cws::ran_as::stows) << r.reason;
    EXPECT_TRUE(r.converged);
    EXPECT_EQ(store.at("ab").templ, templ);
    if (run < per_side) {
      EXPECT_EQ(r.designated(), 1u) << "watching run " << run;
      continue;
    }
    EXPECT_EQ(r.workers_joined, 1u);
    EXPECT_EQ(p.off_caller.load(), 0u);
    EXPECT_EQ(r.relocalization(), nullptr);
    EXPECT_NE(r.template_from.find(", timed alone"), std::string::npos) << r.template_from;
  }
}

// By default (auto) a machine with several NUMA nodes never runs a replay
// alone: a strict replay is there for its locality, and a synthetic
// topology's page homes cost no time a trial could see. (On one node the
// default is 20 us, which the runs' timing decides: not tested here.)
TEST(alone_policy, by_default_several_nodes_always_replay) {
  cws::runtime_config c = cws::test::config(2, cws::test::four_cores);
  cs::knobs_of(c).replay.alone_us = cs::replay_knobs::alone_auto;
  cws::runtime rt(c);
  ASSERT_EQ(rt.topology().numa_nodes(), 2u);
  cs::store_of(rt).seed("ab", cws::test::root_handing_spawn_to(2, 0, 1), "hand-built");
  auto& s = rt.schedule("ab", cws::policy::stows);
  for (unsigned run = 0; run < 4 * per_side; ++run) {
    two_tasks p;
    const cws::run_report& r = run_two(rt, s, p);
    EXPECT_EQ(r.designated(), 1u) << "run " << run;
    EXPECT_EQ(p.off_caller.load(), 1u) << "run " << run;
  }
}

// Phases that cannot be short (a task sleeps past the bound) are never
// tried alone; nor are any with the knob at 0 (the test fixture's).
TEST(alone_policy, long_phases_and_a_zero_bound_always_replay) {
  for (const bool sleeps : {true, false}) {
    SCOPED_TRACE(sleeps ? "phases longer than the bound" : "CWS_REPLAY_ALONE_US=0");
    cws::runtime rt(alone_up_to(sleeps ? 100 : 0));
    cs::store_of(rt).seed("ab", cws::test::root_handing_spawn_to(2, 0, 1), "hand-built");
    auto& s = rt.schedule("ab", cws::policy::stuws);
    for (unsigned run = 0; run < 4 * per_side; ++run) {
      two_tasks p;
      const cws::run_report& r = run_two(rt, s, p, std::chrono::microseconds(sleeps ? 200 : 0));
      EXPECT_EQ(r.ran_as, cws::ran_as::stuws) << r.reason;
      EXPECT_EQ(r.designated(), 1u) << "run " << run;
      EXPECT_EQ(p.off_caller.load(), 1u) << "run " << run;
    }
  }
}

}  // namespace
