// evolve's state machine (schedulers/src/evolve_controller.hpp): its stages,
// restart(), the one place that resets evolve's state, resetting all of it,
// and the probe of a converged template after a lasting slowdown.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cws/cws.hpp"
#include "evolve_controller.hpp"
#include "support/runtime_fixture.hpp"
#include "support/steal_tree_builders.hpp"

namespace {

namespace cs = cws::schedulers;
using cs::detail::evolve_controller;
using cs::detail::evolve_stage;
using cs::detail::replay_mode;

// A schedule that ran once under evolve (a random run: its tree is the template).
cs::schedule_state& recorded(cws::runtime& rt, const std::string& name, std::string_view policy = "evolve") {
  cws::schedule& s = rt.schedule(name, policy);
  rt.run(s, [] { cws::test::fib(12); });
  cs::schedule_state& state = cs::store_of(rt).state(name);
  EXPECT_TRUE(state.templ);
  return state;
}

// Every field of evolve's state away from a new schedule's.
void set_every_field(cs::schedule_state& s, const cws::runtime_config& cfg) {
  s.mode = cs::evolve_mode::stows;
  s.converged = true;
  s.converged_at = 7;
  s.pages_settled = true;
  cs::detail::evolve_counters& c = s.evolve_counters;
  c.relws_runs = 3;
  for (int i = 0; i < 12; ++i) c.slowdown.add(1e-3, cws::schedulers::knobs_of(cfg).replay.evolve_slowdown_pct);
  c.settling_runs = 2;
  c.best = s.templ;
  c.best_run = 5;
  c.best_balanced = true;
  c.best_share = 1.5;
  c.best_local = 0.75;
  c.best_s = 0.25;
  c.planned = true;
  c.auditing = true;
  c.relearning = true;
  c.probing = true;
  c.contended = true;
  c.contended_runs = 3;
  c.contended_every = 8;
  c.switch_check_runs = 5;
  c.switch_check_s = 0.5;
  c.checked_switches = 7;
}

// Runs coarsen's search on the schedule's template until it kept a depth.
void finish_coarsen_search(cs::schedule_state& s, cws::runtime& rt) {
  cws::run_report r;
  for (int run = 0; run < 64 && !s.coarsen_search.done(); ++run) {
    r.wall_s = 1e-3 * (run + 1);
    s.coarsen_search.after_run(s, r, rt.config(), cs::store_of(rt));
  }
}

TEST(evolve_restart, resets_every_field_to_a_new_schedules) {
  cws::runtime rt(cws::test::config(2));
  cs::schedule_state& s = recorded(rt, "step", "coarsen");
  finish_coarsen_search(s, rt);
  ASSERT_TRUE(s.coarsen_search.done());
  set_every_field(s, rt.config());
  ASSERT_GT(s.evolve_counters.slowdown.runs(), 0u);
  const auto templ = s.templ;

  evolve_controller::restart(s);

  const cs::schedule_state fresh;
  EXPECT_EQ(s.mode, fresh.mode);
  EXPECT_EQ(s.converged, fresh.converged);
  EXPECT_EQ(s.converged_at, fresh.converged_at);
  EXPECT_EQ(s.pages_settled, fresh.pages_settled);
  const cs::detail::evolve_counters& c = s.evolve_counters;
  const cs::detail::evolve_counters& f = fresh.evolve_counters;
  EXPECT_EQ(c.relws_runs, f.relws_runs);
  EXPECT_EQ(c.slowdown.runs(), 0u);
  EXPECT_EQ(c.slowdown.slow_runs(), 0u);
  EXPECT_EQ(c.settling_runs, f.settling_runs);
  EXPECT_EQ(c.best, nullptr);
  EXPECT_EQ(c.best_run, f.best_run);
  EXPECT_EQ(c.best_balanced, f.best_balanced);
  EXPECT_EQ(c.best_share, f.best_share);
  EXPECT_EQ(c.best_local, f.best_local);
  EXPECT_EQ(c.best_s, f.best_s);
  EXPECT_EQ(c.planned, f.planned);
  EXPECT_EQ(c.auditing, f.auditing);
  EXPECT_EQ(c.relearning, f.relearning);
  EXPECT_EQ(c.probing, f.probing);
  EXPECT_EQ(c.contended, f.contended);
  EXPECT_EQ(c.contended_runs, f.contended_runs);
  EXPECT_EQ(c.contended_every, f.contended_every);
  EXPECT_EQ(c.switch_check_runs, f.switch_check_runs);
  EXPECT_EQ(c.switch_check_s, f.switch_check_s);
  EXPECT_EQ(c.checked_switches, f.checked_switches);
  EXPECT_FALSE(s.coarsen_search.done());
  EXPECT_EQ(evolve_controller::stage_of(s), evolve_stage::learn);
  EXPECT_EQ(s.templ, templ) << "restart leaves the template to its caller";

  // The coarsen search starts over: its next call tries the first depth again.
  cws::run_report r;
  s.coarsen_search.after_run(s, r, rt.config(), cs::store_of(rt));
  EXPECT_NE(s.template_from.find("(try 1 of "), std::string::npos) << s.template_from;
}

TEST(evolve_stages, converge_and_relearn_move_between_stages) {
  cs::schedule_state s;
  EXPECT_EQ(evolve_controller::stage_of(s), evolve_stage::learn);
  s.evolve_counters.relws_runs = 4;
  s.evolve_counters.planned = true;
  s.evolve_counters.best = std::make_shared<const cws::steal_tree::tree>();
  s.pages_settled = true;

  evolve_controller::converge(s, 9);
  EXPECT_EQ(evolve_controller::stage_of(s), evolve_stage::converged);
  EXPECT_EQ(s.mode, cs::evolve_mode::stows);
  EXPECT_TRUE(s.converged);
  EXPECT_EQ(s.converged_at, 9u);
  EXPECT_EQ(s.evolve_counters.relws_runs, 0u);
  EXPECT_FALSE(s.pages_settled) << "a converged template settles its pages again";

  evolve_controller::relearn(s);
  EXPECT_EQ(evolve_controller::stage_of(s), evolve_stage::relearn);
  EXPECT_EQ(s.mode, cs::evolve_mode::relws);
  EXPECT_FALSE(s.converged);
  EXPECT_TRUE(s.evolve_counters.planned) << "relearning keeps the planner's verdict";
  EXPECT_NE(s.evolve_counters.best, nullptr) << "relearning keeps the best tree";

  s.evolve_counters.auditing = true;
  EXPECT_EQ(evolve_controller::stage_of(s), evolve_stage::audit);
  s.evolve_counters.auditing = false;

  evolve_controller::converge(s, 10);
  s.evolve_counters.probing = true;
  EXPECT_EQ(evolve_controller::stage_of(s), evolve_stage::probe);
  evolve_controller::converge(s, 11);
  EXPECT_EQ(evolve_controller::stage_of(s), evolve_stage::converged) << "converging ends a probe";
  s.evolve_counters.probing = true;
  evolve_controller::relearn(s);
  EXPECT_EQ(evolve_controller::stage_of(s), evolve_stage::relearn) << "relearning ends a probe";
}

TEST(evolve_stages, each_stage_replays_in_its_mode) {
  cws::runtime rt(cws::test::config(2));
  cs::schedule_state& s = cs::store_of(rt).state("step");
  const evolve_controller evolve(s, cs::store_of(rt), false, cs::knobs_of(rt.config()).replay);
  cs::detail::template_plan recorded_plan, planned_plan;
  recorded_plan.nesting_known = true;  // a recorded tree's stamps give its order
  planned_plan.nesting_known = false;  // the planner's order is an estimate
  EXPECT_EQ(evolve.mode_for(&recorded_plan), replay_mode::relws);
  s.evolve_counters.auditing = true;
  EXPECT_EQ(evolve.mode_for(&planned_plan), replay_mode::stows) << "the audit run keeps the order";
  s.evolve_counters.auditing = false;
  evolve_controller::converge(s, 1);
  EXPECT_EQ(evolve.mode_for(&recorded_plan), replay_mode::stows);
  EXPECT_EQ(evolve.mode_for(&planned_plan), replay_mode::stuws);
  s.evolve_counters.probing = true;
  EXPECT_EQ(evolve.mode_for(&planned_plan), replay_mode::random) << "the probe runs under random stealing";
}

// A relws run that converges with steals it does not need: the template is
// its coarsening with the fewest steals that stays balanced, and the note
// says so; `coarsen` keeps the tree for its own timed search.
cws::run_report balanced_relws_run(std::uint64_t iteration) {
  cws::run_report r;
  r.phase.iteration = iteration;
  r.per_worker.resize(2);
  r.per_worker[1].steals = r.per_worker[1].designated = 2;  // all designated: no steal added
  r.per_worker[0].steals = r.per_worker[0].designated = 1;
  r.balance = {1.0, 0};
  return r;
}

TEST(evolve_stages, a_converged_tree_with_steals_it_does_not_need_is_pruned) {
  for (const bool coarsens : {false, true}) {
    SCOPED_TRACE(coarsens ? "coarsen" : "evolve");
    cws::runtime rt(cws::test::config(2));
    cs::schedule_state& s = cs::store_of(rt).state("step");
    evolve_controller evolve(s, cs::store_of(rt), coarsens, cs::knobs_of(rt.config()).replay);
    const auto recorded = std::make_shared<const cws::steal_tree::tree>(cws::test::late_helper_split());
    cws::run_report r = balanced_relws_run(3);
    const cws::steal_tree::phase_record record;
    evolve.after_run(replay_mode::relws, r, rt.config(), recorded, record);
    ASSERT_EQ(evolve_controller::stage_of(s), evolve_stage::converged) << r.note;
    ASSERT_TRUE(s.templ);
    if (coarsens) {
      EXPECT_EQ(s.templ, recorded);
      EXPECT_EQ(r.note.find("pruned"), std::string::npos) << r.note;
      continue;
    }
    EXPECT_EQ(s.templ->segments.size(), 2u) << "the level-1 cut: one steal";
    EXPECT_EQ(s.templ->segments[1].tasks, 16u);
    EXPECT_NE(r.note.find("; its tree pruned from 3 to 1 steal(s), as balanced"), std::string::npos) << r.note;
    EXPECT_NE(s.template_from.find(", pruned"), std::string::npos) << s.template_from;
  }
}

// ------------------------------------------------- a slowdown and its probe
// The decisions on given run times (the watch's own rules are tested in
// test_evolve_converged): a lasting slowdown of the converged template's
// runs leads to a probe, rounds of a random-stealing run and a template run,
// which keeps the template at the first round random stealing does not win
// by the margin (the machine slowed down) and sends evolve back to learn
// when it wins every round (the template stopped fitting).

// The program's involuntary context switches as the probe reads them: given
// here, since the test process itself may lose its core (ctest -j).
std::uint64_t given_switches = 0;
unsigned switch_reads = 0;  // calls of read_given_switches
std::uint64_t read_given_switches() noexcept {
  ++switch_reads;
  return given_switches;
}

cws::runtime_config with_contention(bool on) {
  cws::runtime_config c = cws::test::config(2);
  cs::knobs_of(c).replay.evolve_contention = on;
  return c;
}

struct slowed_down {
  cws::runtime rt;
  cs::schedule_state& s = cs::store_of(rt).state("step");
  evolve_controller evolve{s, cs::store_of(rt), false, cs::knobs_of(rt.config()).replay, read_given_switches};
  cws::steal_tree::phase_record record;
  cws::run_report r;

  // Converged, then runs of `before` seconds, then of `after` until the
  // watch's verdict. `contention`: CWS_EVOLVE_CONTENTION.
  slowed_down(double before, double after, bool contention = false) : rt(with_contention(contention)) {
    evolve_controller::converge(s, 1);
    for (int i = 0; i < 32; ++i) stows_run(before);
    for (int i = 0; i < 64 && !s.evolve_counters.probing; ++i) stows_run(after);
  }
  void stows_run(double seconds) {
    r.note.clear();
    r.wall_s = seconds;
    evolve.after_run(replay_mode::stows, r, rt.config(), nullptr, record);
  }
  void probe_run(double seconds) {
    r.note.clear();
    r.wall_s = seconds;
    evolve.after_run(replay_mode::random, r, rt.config(), nullptr, record);
  }
  // One probe round: random stealing, then the template (what mode_for asks for).
  void probe_round(double random_s, double template_s) {
    ASSERT_EQ(evolve.mode_for(nullptr), replay_mode::random) << "a round starts under random stealing";
    probe_run(random_s);
    ASSERT_EQ(evolve_controller::stage_of(s), evolve_stage::probe) << r.note;
    ASSERT_EQ(evolve.mode_for(nullptr), replay_mode::stows) << "the round's second run replays the template";
    stows_run(template_s);
  }
};

TEST(evolve_probe, a_lasting_slowdown_is_put_to_a_probe_under_random_stealing) {
  slowed_down t(1e-3, 3e-3);
  ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::probe) << "no verdict on a 3-times slowdown";
  EXPECT_NE(t.r.note.find("the next run probes random stealing"), std::string::npos) << t.r.note;
  EXPECT_TRUE(t.s.converged) << "the template stays until the probe says otherwise";
}

TEST(evolve_probe, random_stealing_as_slow_keeps_the_template_and_measures_from_there) {
  slowed_down t(1e-3, 3e-3);
  ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::probe);
  t.probe_round(2.5e-3, 3e-3);  // faster than the template, but by less than the 25 % margin
  EXPECT_EQ(evolve_controller::stage_of(t.s), evolve_stage::converged);
  EXPECT_TRUE(t.s.converged);
  EXPECT_NE(t.r.note.find("the machine slowed down, not the template"), std::string::npos) << t.r.note;
  EXPECT_EQ(t.s.evolve_counters.slowdown.runs(), 0u) << "the slower times are the new baseline";
  // At the new level, runs as slow as before the probe are no slowdown.
  for (int i = 0; i < 64; ++i) t.stows_run(3e-3);
  EXPECT_EQ(evolve_controller::stage_of(t.s), evolve_stage::converged);
}

TEST(evolve_probe, random_stealing_faster_by_the_margin_in_every_round_sends_evolve_back_to_learn) {
  slowed_down t(1e-3, 3e-3);
  ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::probe);
  for (unsigned round = 1; round < cs::detail::probe_rounds; ++round) {
    t.probe_round(2e-3, 3e-3);  // 3 ms / 2 ms: 50 % faster
    ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::probe) << "round " << round << ": " << t.r.note;
    EXPECT_TRUE(t.s.converged) << "round " << round;
    EXPECT_NE(t.r.note.find("the next round follows"), std::string::npos) << t.r.note;
  }
  t.probe_round(2e-3, 3e-3);
  EXPECT_EQ(evolve_controller::stage_of(t.s), evolve_stage::relearn);
  EXPECT_FALSE(t.s.converged);
  EXPECT_NE(t.r.note.find("the template stopped fitting, back to relws"), std::string::npos) << t.r.note;
}

// A loaded machine: a random run that lands in a quiet moment beats the
// template's floor, but the template run beside it is as fast, or the next
// round's random run is slow again. Either ends the probe, template kept.
TEST(evolve_probe, one_lucky_random_run_does_not_send_evolve_back_to_learn) {
  {
    slowed_down t(1e-3, 3e-3);
    t.probe_round(2e-3, 2.2e-3);  // beats the 3 ms floor by 50 %, the template beside it by 10 %
    EXPECT_EQ(evolve_controller::stage_of(t.s), evolve_stage::converged) << t.r.note;
    EXPECT_NE(t.r.note.find("the machine slowed down, not the template"), std::string::npos) << t.r.note;
  }
  {
    slowed_down t(1e-3, 3e-3);
    t.probe_round(2e-3, 3e-3);  // won
    t.probe_round(2e-3, 3e-3);  // won
    t.probe_round(3e-3, 3e-3);  // the last round lost: the wins before it do not count
    EXPECT_EQ(evolve_controller::stage_of(t.s), evolve_stage::converged) << t.r.note;
    EXPECT_TRUE(t.s.converged);
    EXPECT_EQ(t.s.evolve_counters.probe_rounds_won, 0u);
    EXPECT_EQ(t.s.evolve_counters.slowdown.runs(), 0u) << "the watch starts afresh";
  }
  {
    slowed_down t(1e-3, 3e-3);
    t.probe_round(2.6e-3, 4e-3);  // beats the template beside it by 54 %, the 3 ms floor by only 15 %
    EXPECT_EQ(evolve_controller::stage_of(t.s), evolve_stage::converged) << t.r.note;
  }
}

// A thief descheduled by another process: the strict replay waits for it,
// random stealing runs its task elsewhere and wins by any margin. A round in
// which the program lost a core is no evidence against the template. (With
// CWS_EVOLVE_CONTENTION=0, as here; evolve_contended below has the default.)
TEST(evolve_probe, a_round_in_which_the_program_lost_a_core_keeps_the_template) {
  slowed_down t(1e-3, 3e-3);
  t.probe_round(1e-3, 3e-3);  // won, on cores nobody took
  ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::probe) << t.r.note;
  ASSERT_EQ(t.evolve.mode_for(nullptr), replay_mode::random);
  t.probe_run(1e-3);
  given_switches += 2;  // during the round's template run
  t.stows_run(3e-3);
  EXPECT_EQ(evolve_controller::stage_of(t.s), evolve_stage::converged) << t.r.note;
  EXPECT_TRUE(t.s.converged);
  EXPECT_NE(t.r.note.find("2 involuntary context switch(es): other work took the program's cores"), std::string::npos)
      << t.r.note;
  // The next probe counts from the switches it starts with, not from zero.
  for (int i = 0; i < 64 && !t.s.evolve_counters.probing; ++i) t.stows_run(i < 32 ? 3e-3 : 9e-3);
  ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::probe);
  for (unsigned round = 0; round < cs::detail::probe_rounds; ++round) t.probe_round(3e-3, 9e-3);
  EXPECT_EQ(evolve_controller::stage_of(t.s), evolve_stage::relearn) << t.r.note;
}

// With CWS_EVOLVE_CONTENTION (the default outside these tests), that round
// sends evolve to random stealing, the template kept: a strict replay there
// waits a time slice per phase. The template runs every few runs, the gap
// doubling while it stays slower; converged again once it is as fast as the
// gap's fastest random run on quiet cores (no involuntary switch).
namespace {
// Involuntary switches at the rate of shared cores over `runs` runs.
constexpr unsigned busy(unsigned runs) { return cs::detail::shared_switches_per_run * runs; }

struct contended : slowed_down {
  contended() : slowed_down(1e-3, 3e-3, true) {
    probe_run(1e-3);
    given_switches += 2;  // during the round's template run
    stows_run(3e-3);
  }
  // A gap of random runs of `random_s`, then the template's run.
  void gap(unsigned runs, double random_s, double template_s, unsigned switches) {
    for (unsigned i = 0; i < runs; ++i) {
      ASSERT_EQ(evolve.mode_for(nullptr), replay_mode::random) << "run " << i << " of " << runs;
      ASSERT_TRUE(evolve.probing()) << "no page moves, the template stays";
      probe_run(random_s);
    }
    ASSERT_EQ(evolve.mode_for(nullptr), replay_mode::stows) << "after " << runs;
    given_switches += switches;
    stows_run(template_s);
  }
};
}  // namespace

TEST(evolve_contended, a_round_lost_to_other_work_runs_random_stealing_until_the_template_is_as_fast) {
  {
    contended t;
    ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::contended) << t.r.note;
    EXPECT_TRUE(t.s.converged) << "the template stays";
    EXPECT_NE(t.r.note.find("runs under random stealing until a run of it is as fast again (tried every 16 runs)"),
              std::string::npos)
        << t.r.note;
    t.gap(16, 1e-3, 3e-3, 0);  // slower: the gap doubles
    ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::contended) << t.r.note;
    EXPECT_NE(t.r.note.find("still slower; random stealing for the next 32 runs"), std::string::npos) << t.r.note;
    t.gap(32, 1e-3, 1.2e-3, busy(33));  // within the margin, but on shared cores: no evidence
    ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::contended) << t.r.note;
    EXPECT_NE(t.r.note.find("132 involuntary context switch(es) meanwhile"), std::string::npos) << t.r.note;
    t.gap(64, 1e-3, 0.9e-3, busy(65));  // a strict run no time slice hit: faster, but on shared cores
    ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::contended) << t.r.note;
    EXPECT_NE(t.r.note.find("random stealing for the next 128 runs"), std::string::npos) << t.r.note;
    t.gap(128, 1e-3, 3e-3, busy(129));
    EXPECT_NE(t.r.note.find("random stealing for the next 256 runs"), std::string::npos) << t.r.note;
    t.gap(256, 1e-3, 3e-3, busy(257));
    EXPECT_NE(t.r.note.find("random stealing for the next 256 runs"), std::string::npos) << "at most 256" << t.r.note;
    t.gap(256, 1e-3, 1.2e-3, busy(257) - 1);  // within the 25 % margin, on cores quiet enough
    EXPECT_EQ(evolve_controller::stage_of(t.s), evolve_stage::converged) << t.r.note;
    EXPECT_NE(t.r.note.find("the template is as fast again on quiet cores"), std::string::npos) << t.r.note;
    EXPECT_EQ(t.evolve.mode_for(nullptr), replay_mode::stows);
    EXPECT_EQ(t.s.evolve_counters.slowdown.runs(), 0u) << "the watch starts afresh";
  }
  {
    contended t;
    t.gap(16, 1e-3, 3e-3, busy(17));
    t.gap(32, 1e-3, 1.2e-3, 0);  // within the 25 % margin, on quiet cores
    ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::converged) << t.r.note;
    // The switches were read then: the next check, 4 runs on, compares, and
    // the contention starts from the gap the last one ended with.
    given_switches += busy(cs::detail::switch_check_every);
    unsigned runs = 0;
    for (; runs < cs::detail::switch_check_every && !t.evolve.probing(); ++runs) t.stows_run(1e-3);
    EXPECT_EQ(evolve_controller::stage_of(t.s), evolve_stage::contended) << t.r.note;
    EXPECT_EQ(runs, cs::detail::recheck_after);
    EXPECT_NE(t.r.note.find("tried every 32 runs"), std::string::npos) << "the gap it ended with: " << t.r.note;
    t.gap(32, 1e-3, 1e-3, 0);
    ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::converged) << t.r.note;
    // Quiet checks halve that gap, back to the first one.
    for (unsigned i = 0; i < cs::detail::recheck_after + cs::detail::switch_check_every; ++i) t.stows_run(1e-3);
    given_switches += busy(cs::detail::switch_check_every);
    for (runs = 0; runs < cs::detail::switch_check_every && !t.evolve.probing(); ++runs) t.stows_run(1e-3);
    ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::contended) << t.r.note;
    EXPECT_NE(t.r.note.find("tried every 16 runs"), std::string::npos) << t.r.note;
  }
}

// A machine busy from the start shows its watch no slowdown (the slow strict
// replays are its baseline): the switches, read every 16 converged runs,
// make it contended. None moving, or CWS_EVOLVE_CONTENTION=0: converged.
TEST(evolve_contended, switches_during_converged_runs_make_it_contended) {
  for (const bool contention : {true, false}) {
    slowed_down t(1e-3, 1e-3, contention);
    // An idle machine's few switches (3 per 4 runs here) are no contention.
    for (int i = 0; i < 1000; ++i) {
      given_switches += i % 4 != 0;
      t.stows_run(1e-3);
    }
    ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::converged) << "a few switches, no contention";
    given_switches += busy(cs::detail::switch_check_every);
    for (unsigned i = 0; i < cs::detail::switch_check_every && !t.evolve.probing(); ++i) t.stows_run(1e-3);
    if (!contention) {
      for (int i = 0; i < 1000; ++i, given_switches += busy(1)) t.stows_run(1e-3);
      EXPECT_EQ(evolve_controller::stage_of(t.s), evolve_stage::converged) << t.r.note;
      continue;
    }
    ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::contended) << t.r.note;
    EXPECT_NE(t.r.note.find("involuntary context switch(es) over the last 16 runs: other work shares the cores"),
              std::string::npos)
        << t.r.note;
    EXPECT_EQ(t.evolve.mode_for(nullptr), replay_mode::random);
  }
}

// Reading the switches costs a system call, so short runs read them once per
// millisecond of runs (switch_check_min_s), not every 16 runs: 1 000 runs of
// 10 us read them 10 times, not 62. Contention still shows, over the longer
// window.
TEST(evolve_contended, short_runs_read_the_switches_once_per_millisecond) {
  slowed_down t(1e-5, 1e-5, true);
  ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::converged) << t.r.note;
  const unsigned runs_per_read = static_cast<unsigned>(cs::detail::switch_check_min_s / 1e-5 + 0.5);  // 100
  const unsigned before = switch_reads;
  for (unsigned i = 0; i < 10 * runs_per_read; ++i) t.stows_run(1e-5);
  EXPECT_GE(switch_reads - before, 9u);
  EXPECT_LE(switch_reads - before, 10u);
  ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::converged) << "no switch moved";
  given_switches += busy(runs_per_read + cs::detail::switch_check_every);
  for (unsigned i = 0; i < 2 * runs_per_read && !t.evolve.probing(); ++i) t.stows_run(1e-5);
  ASSERT_EQ(evolve_controller::stage_of(t.s), evolve_stage::contended) << t.r.note;
  EXPECT_NE(t.r.note.find("over the last 100 runs: other work shares the cores"), std::string::npos) << t.r.note;
}

// On the runtime: the probe run (forced here: the watch's verdict needs real
// slow runs) runs under random stealing, keeps the template, moves no page
// and leaves the schedule converged; the next run replays under stows.
TEST(evolve_probe, the_probe_run_keeps_the_template_and_the_schedule_converged) {
  cws::runtime rt(cws::test::config(2));
  std::vector<char> data(16 * 4096);
  // Declared touches: evolve would move pages after a run that becomes its template.
  const auto touch_halves = [&] {
    cws::spawn([&] { cws::touch(data.data(), data.size() / 2); });
    cws::touch(data.data() + data.size() / 2, data.size() / 2);
    cws::sync();
  };
  // The template comes from the same program the probe runs: a template of
  // another program may diverge under stows, whatever the probe decides.
  cws::schedule& sched = rt.schedule("probe", "evolve");
  rt.run(sched, touch_halves);
  cs::schedule_state& s = cs::store_of(rt).state("probe");
  ASSERT_TRUE(s.templ);
  evolve_controller::converge(s, 1);
  const auto templ = s.templ;
  const std::string from = s.template_from;
  s.evolve_counters.probing = true;
  const cws::run_report& probe = rt.run(sched, touch_halves);
  EXPECT_EQ(probe.ran_as, cws::ran_as::random) << probe.label();
  EXPECT_TRUE(probe.converged);
  EXPECT_EQ(probe.relocalization(), nullptr);
  EXPECT_NE(probe.note.find("probe round 1 of 3: random stealing took"), std::string::npos) << probe.note;
  EXPECT_EQ(s.templ, templ);
  EXPECT_EQ(s.template_from, from);
  EXPECT_EQ(evolve_controller::stage_of(s), evolve_stage::probe) << "the round's template run comes next";
  // The round's template run: a strict replay of the kept template, moving no page.
  const cws::run_report& beside = rt.run(sched, touch_halves);
  EXPECT_EQ(beside.ran_as, cws::ran_as::stows) << beside.label();
  EXPECT_TRUE(beside.converged);
  EXPECT_EQ(beside.relocalization(), nullptr);
  EXPECT_NE(beside.note.find("probe round 1 of 3: random stealing"), std::string::npos) << beside.note;
  EXPECT_EQ(s.templ, templ);
  // Whether random stealing won the round depends on this machine's timing:
  // either way the template stays, and no run relearns within one round.
  const auto stage = evolve_controller::stage_of(s);
  EXPECT_TRUE(stage == evolve_stage::converged || stage == evolve_stage::probe) << beside.note;
}

TEST(evolve_stages, mark_converged_starts_converged_from_a_clean_slate) {
  cws::runtime rt(cws::test::config(2));
  cs::schedule_state& s = recorded(rt, "step");
  set_every_field(s, rt.config());
  cs::store_of(rt).mark_converged("step");
  EXPECT_EQ(evolve_controller::stage_of(s), evolve_stage::converged);
  EXPECT_EQ(s.converged_at, 0u);
  EXPECT_FALSE(s.pages_settled);
  EXPECT_EQ(s.evolve_counters.best, nullptr);
  EXPECT_FALSE(s.evolve_counters.planned);
  EXPECT_EQ(s.evolve_counters.slowdown.runs(), 0u);
}

}  // namespace
