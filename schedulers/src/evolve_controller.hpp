#pragma once
// evolve's state machine (policies.hpp: evolve, coarsen, evolve-hinted), on
// the evolve fields of its schedule's state (schedule_store.hpp: mode,
// converged, converged_at, pages_settled, evolve_counters, coarsen_search):
//
//   learn      relws runs; each one is the next template. Leaves for
//              converged when a run adds no steal, takes nothing back and is
//              balanced, or at the bound (the best tree); one run before the
//              bound, with no balanced tree seen, for audit.
//   audit      the bound's last run replays the best tree under stows,
//              recording every task; after it, plan: the planner builds a
//              balanced template from it (converged on it), or the best tree
//              stays (converged on that).
//   converged  stows runs of the template (stuws for a planned one); coarsen
//              searches its pruning depths first. Leaves for probe on a
//              persistent slowdown.
//   probe      up to `probe_rounds` rounds of two runs, one under random
//              stealing, then one of the template, the template kept and no
//              page moved. A round is won when the random run beat by the
//              slowdown margin both the template run beside it and the
//              template's recent floor, and no thread of the program lost
//              its core to another process during the round (preemption.hpp).
//              All rounds won: the template stopped fitting the program
//              (relearn). The first round not won: the machine slowed down,
//              not the template (converged again, the watch starting afresh
//              from the slower times); lost only because other work took
//              the program's cores while random stealing was faster:
//              contended.
//   contended  other work shares the cores (a probe round so lost, or the
//              involuntary context switches of converged runs moved: read
//              every switch_check_every runs, since a machine busy from the
//              start shows its watch no slowdown). Random stealing, the
//              template kept and no page moved; the template runs every few
//              runs (16, doubling to 256 while it stays slower) and, once
//              it is as fast on quiet cores, converged again, the switches
//              read again 4 runs on (and switch_check_min_s of runs).
//   relearn    learn again from the converged template, keeping the best tree
//              and the planner's verdict of the earlier learning.
//
// From any stage, a diverged or template-less run restarts: learn from
// scratch, every field reset (restart(), the one place that does so).
// Everything here runs between phases, on the thread that calls runtime::run.

#include <memory>

#include "cws/schedulers/knobs.hpp"
#include "cws/run_report.hpp"
#include "cws/schedulers/schedule_store.hpp"
#include "cws/steal_tree/recorder.hpp"
#include "preemption.hpp"
#include "replay_policy.hpp"
#include "template_plan.hpp"

namespace cws::schedulers::detail {

enum class evolve_stage { learn, audit, converged, probe, contended, relearn };

// Rounds a probe must win before evolve relearns. On a loaded machine one
// random run in a few lands in a quiet moment while the template's runs beside
// it do not; a template that stopped fitting loses every round. A machine
// that slowed down ends the probe at its first round lost, so the probe
// usually costs one random run and one template run.
//
// Times alone cannot tell a template that stopped fitting from a thief
// descheduled by another process: a strict replay waits for that thief,
// random stealing runs its task elsewhere, and wins every round (PCG beside
// a parallel build relearned in most solves with the times alone). So a
// round in which the program lost a core to another process is lost too.
inline constexpr unsigned probe_rounds = 3;
// Converged runs between two reads of the involuntary context switches
// (check_switches), and random runs between two runs of the template while
// contended: first, and at most (doubling while the cores stay shared).
inline constexpr unsigned switch_check_every = 16;
// ... and at least this much phase time since the last read: reading them
// (getrusage) costs about 1 us, a sixth of a 0.3 us phase's whole cost when
// paid every 16 runs. A phase that short cannot show 4 switches per run
// anyway (a time slice is milliseconds), so nothing is missed by waiting.
inline constexpr double switch_check_min_s = 1e-3;
// A first gap of 16: a quiet stretch of 16 random runs is rare on shared
// cores, and on idle ones 16 random runs cost about what the template does.
// After the template ran as fast again, the switches are read again
// `recheck_after` runs on: a quiet stretch on shared cores is short, and each
// strict run after it may wait out a time slice.
inline constexpr unsigned contended_first_every = 16;
inline constexpr unsigned contended_last_every = 256;
inline constexpr unsigned recheck_after = 4;
// Cores are shared when the program's involuntary context switches came at
// this rate or more per run. A few come on an idle machine too (the timer,
// a kernel thread, a TBB or OpenMP pool of the same program still spinning):
// PCG 48^3 saw 0-2 per 16 runs idle and at most 33 per 32 right after its
// TBB runs, against 233-2 176 per 16 beside a parallel build.
inline constexpr unsigned shared_switches_per_run = 4;

class evolve_controller {
 public:
  // Learn from scratch: every field of evolve's state in `s` back to a new
  // schedule's. (The template stays: the caller decides what replaces it.)
  static void restart(schedule_state& s);
  // Converged on the schedule's template after run `at` (0: before any run,
  // e.g. a template loaded as converged): stows from the next run.
  static void converge(schedule_state& s, std::uint64_t at);
  // Learn again from the schedule's template (a slowdown, or a template
  // seeded from outside), keeping the best tree and the planner's verdict.
  static void relearn(schedule_state& s);
  static evolve_stage stage_of(const schedule_state& s) noexcept;

  // `coarsens`: the coarsen policy (converged: search the pruning depths
  // first). `knobs`: the runtime's (they live as long as it does; looked up
  // once, not after every run). `switches`: the program's involuntary
  // context switches so far (a given count in tests).
  evolve_controller(schedule_state& s, schedule_store& store, bool coarsens, const replay_knobs& knobs,
                    switch_counter switches = involuntary_switches) noexcept
      : s_(s), store_(store), coarsens_(coarsens), knobs_(knobs), switches_(switches) {}

  evolve_stage stage() const noexcept { return stage_of(s_); }
  // The coming run is the audit run (record every task: no serial elision).
  bool auditing() const noexcept { return s_.evolve_counters.auditing; }
  // The coming run is one of a probe's or of a contention's (random stealing
  // or the template; the template stays, no page moves).
  bool probing() const noexcept { return s_.evolve_counters.probing || s_.evolve_counters.contended; }
  // How the coming run replays the schedule's template, compiled as `plan`
  // (null: it could not be). Converged: stows, or stuws for a planned
  // template (no time stamps: its per-worker order is an estimate, which may
  // wait for a segment that only a later one lets come; its thieves are exact
  // all the same).
  replay_mode mode_for(const template_plan* plan) const noexcept;

  // After a run that replayed the template in `ran` without diverging, or
  // a probe's random run: the decision of the run's stage (r.note says it
  // when it is one).
  void after_run(replay_mode ran, run_report& r, const runtime_config& cfg,
                 std::shared_ptr<const steal_tree::tree> fresh, const steal_tree::phase_record& record);

 private:
  void after_relws(run_report& r, std::shared_ptr<const steal_tree::tree> fresh);
  void keep_if_best(const run_report& r, bool balanced, double local, std::shared_ptr<const steal_tree::tree> fresh);
  void start_audit(run_report& r);
  void converge_on_best(run_report& r);
  void prune_converged(run_report& r);
  void after_audit(run_report& r, const steal_tree::phase_record& record);
  void after_stows(run_report& r, const runtime_config& cfg);
  void check_switches(run_report& r);
  void after_probe(replay_mode ran, run_report& r);
  void contend(run_report& r, std::uint64_t switches);
  void after_contended(replay_mode ran, run_report& r);
  void converge(run_report& r);

  schedule_state& s_;
  schedule_store& store_;
  bool coarsens_;
  const replay_knobs& knobs_;
  switch_counter switches_;
};

}  // namespace cws::schedulers::detail
