#include "evolve_controller.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <utility>

#include "cws/error.hpp"
#include "cws/schedulers/knobs.hpp"
#include "format_into.hpp"
#include "template_pick.hpp"

namespace cws::schedulers::detail {

namespace {

// Whether a relws tree with these figures is a better template than evolve's
// best so far: balanced beats unbalanced; between unbalanced ones the smaller
// busiest share wins; between balanced ones the more local, then the faster.
bool better_template(const evolve_counters& c, bool balanced, double share, double local, double seconds) {
  if (!c.best) return true;
  if (balanced != c.best_balanced) return balanced;
  if (!balanced) return share < c.best_share;
  if (local != c.best_local) return local > c.best_local;
  return seconds < c.best_s;
}

// Out of the probe or the contention (converged again, relearning, or converging).
void end_probe(evolve_counters& c) {
  c.probing = false;
  c.probe_template_turn = false;
  c.probe_rounds_won = 0;
  c.contended = false;
  c.contended_runs = 0;  // contended_every stays: the gap the next contention starts from
  c.switch_check_runs = 0;
  c.switch_check_s = 0;
  c.checked_switches = evolve_counters::unread;  // the next check only reads
}

}  // namespace

// ------------------------------------------------------------- transitions

void evolve_controller::restart(schedule_state& s) {
  s.mode = evolve_mode::relws;
  s.converged = false;
  s.converged_at = 0;
  s.pages_settled = false;
  s.evolve_counters = {};
  s.coarsen_search = {};
}

void evolve_controller::converge(schedule_state& s, std::uint64_t at) {
  s.mode = evolve_mode::stows;
  s.converged = true;
  s.converged_at = at;
  s.pages_settled = false;
  evolve_counters& c = s.evolve_counters;
  c.slowdown.reset();
  c.relws_runs = 0;
  c.settling_runs = 0;
  c.relearning = false;
  end_probe(c);
  s.coarsen_search = {};
}

void evolve_controller::relearn(schedule_state& s) {
  s.mode = evolve_mode::relws;
  s.converged = false;
  s.evolve_counters.relws_runs = 0;
  s.evolve_counters.relearning = true;
  end_probe(s.evolve_counters);
}

evolve_stage evolve_controller::stage_of(const schedule_state& s) noexcept {
  if (s.evolve_counters.auditing) return evolve_stage::audit;
  if (s.evolve_counters.probing) return evolve_stage::probe;
  if (s.evolve_counters.contended) return evolve_stage::contended;
  if (s.mode == evolve_mode::stows) return evolve_stage::converged;
  return s.evolve_counters.relearning ? evolve_stage::relearn : evolve_stage::learn;
}

replay_mode evolve_controller::mode_for(const template_plan* plan) const noexcept {
  switch (stage()) {
    case evolve_stage::audit:
      return replay_mode::stows;
    case evolve_stage::probe:
    case evolve_stage::contended:
      if (!s_.evolve_counters.probe_template_turn) return replay_mode::random;
      [[fallthrough]];
    case evolve_stage::converged:
      return plan != nullptr && !plan->nesting_known ? replay_mode::stuws : replay_mode::stows;
    case evolve_stage::learn:
    case evolve_stage::relearn:
      break;
  }
  return replay_mode::relws;
}

void evolve_controller::converge(run_report& r) {
  converge(s_, r.phase.iteration);
  r.converged = true;
}

// ------------------------------------------------------------------ stages

void evolve_controller::after_run(replay_mode ran, run_report& r, const runtime_config& cfg,
                                  std::shared_ptr<const steal_tree::tree> fresh,
                                  const steal_tree::phase_record& record) {
  if (auditing()) return after_audit(r, record);
  if (s_.evolve_counters.contended) return after_contended(ran, r);
  if (probing()) return after_probe(ran, r);
  if (ran == replay_mode::relws) return after_relws(r, std::move(fresh));
  after_stows(r, cfg);
}

// learn / relearn: relws until an iteration adds no steal, takes nothing back
// (the tree stopped changing) and is balanced, or the bound is reached (then
// the best tree, or a planned one).
void evolve_controller::after_relws(run_report& r, std::shared_ptr<const steal_tree::tree> fresh) {
  evolve_counters& c = s_.evolve_counters;
  s_.templ = fresh;
  format_into(s_.template_from, "recorded run #{} (relws)", r.phase.iteration);
  ++c.relws_runs;
  const bool balanced = knobs_.balanced(r.balance.idle_workers, r.balance.max_over_fair);
  keep_if_best(r, balanced, r.locality ? r.locality->share() : -1.0, std::move(fresh));
  if (r.extra_steals() == 0 && r.taken_back() == 0 && balanced) {
    format_into(r.note, "converged after {} relws runs (busiest worker x{:.2f} of 1/P): switching to stows",
                c.relws_runs, r.balance.max_over_fair);
    prune_converged(r);
    return converge(r);
  }
  if (c.relws_runs + 1 == knobs_.evolve_bound && !c.best_balanced && !c.planned && s_.templ->workers > 1)
    return start_audit(r);
  if (c.relws_runs >= knobs_.evolve_bound) converge_on_best(r);
}

void evolve_controller::keep_if_best(const run_report& r, bool balanced, double local,
                                     std::shared_ptr<const steal_tree::tree> fresh) {
  evolve_counters& c = s_.evolve_counters;
  if (!better_template(c, balanced, r.balance.max_over_fair, local, r.wall_s)) return;
  c.best = std::move(fresh);
  c.best_run = r.phase.iteration;
  c.best_balanced = balanced;
  c.best_share = r.balance.max_over_fair;
  c.best_local = local;
  c.best_s = r.wall_s;
}

// One run left and no run showed a balanced tree (workers that never got a
// core look like workers with nothing to do): the bound's last run replays
// the best tree recording every task, so that the planner can hand out the
// work evenly. It counts against the bound, so evolve converges within it
// whatever the machine's load.
void evolve_controller::start_audit(run_report& r) {
  evolve_counters& c = s_.evolve_counters;
  c.planned = true;
  c.auditing = true;
  s_.templ = c.best;
  format_into(s_.template_from, "recorded run #{} (best relws run)", c.best_run);
  format_into(r.note,
              "no balanced tree in {} relws runs (best: run #{}, busiest x{:.2f}): the last run of the bound of {} "
              "is an audit run of it, then the planner",
              c.relws_runs, c.best_run, c.best_share, knobs_.evolve_bound);
}

void evolve_controller::converge_on_best(run_report& r) {
  const evolve_counters& c = s_.evolve_counters;
  s_.templ = c.best;
  format_into(s_.template_from, "recorded run #{} (best of the relws runs)", c.best_run);
  format_into(r.note, "bound of {} relws runs reached: the best tree (run #{}, busiest x{:.2f}{}), switching to stows",
              knobs_.evolve_bound, c.best_run, c.best_share, c.best_balanced ? "" : ", unbalanced");
  if (c.best_balanced) prune_converged(r);
  converge(r);
}

// A balanced tree evolve converges on keeps every steal its relws runs made,
// back-and-forth ones included, and a strict replay pays each of them in
// every phase: its coarsening with the fewest steals that is still balanced
// replaces it (template_pick::fewer_steals). Not for `coarsen`, whose search
// times the cuts itself.
void evolve_controller::prune_converged(run_report& r) {
  if (coarsens_ || !s_.templ || template_pick::extra_steals_of(*s_.templ) == 0) return;
  std::optional<steal_tree::tree> fewer = template_pick::fewer_steals(*s_.templ, knobs_);
  if (!fewer) return;
  const std::uint64_t before = template_pick::steals_of(*s_.templ), after = template_pick::steals_of(*fewer);
  s_.templ = store_.share(*fewer);
  s_.template_from += ", pruned";
  fmt::format_to(std::back_inserter(r.note), "; its tree pruned from {} to {} steal(s), as balanced", before, after);
}

// audit, then plan: a balanced template planned from the audit run, and
// converge on that. When the planner cannot balance it, the best relws tree.
void evolve_controller::after_audit(run_report& r, const steal_tree::phase_record& record) {
  evolve_counters& c = s_.evolve_counters;
  c.auditing = false;
  std::string refused;
  steal_tree::plan_summary summary;
  if (record.steals.audit.empty()) {
    refused = "the run recorded no audit records";
  } else {
    try {
      summary = store_.plan(s_.name);
    } catch (const cws::error& e) {
      refused = e.what();
    }
  }
  if (refused.empty() && summary.balanced) {
    // The planned tree is the converged one (it carries no time stamps, so
    // strict replay takes no nesting from it; steal_tree::plan).
    converge(r);
    format_into(r.note,
                "planned a balanced template from this audit run (busiest x{:.2f} of 1/P, {} steals): switching to "
                "stuws (a planned order is an estimate)",
                summary.after.max_share_ratio, summary.steals_after);
    return;
  }
  s_.templ = c.best;
  format_into(s_.template_from, "recorded run #{} (best of the relws runs)", c.best_run);
  format_into(r.note, "the planner could not balance it ({}): the best tree, switching to stows",
              refused.empty() ? fmt::format("busiest x{:.2f}", summary.after.max_share_ratio) : refused);
  converge(r);
}

// converged: the template stays unless the runs got slower for good
// (slowdown_watch.hpp): a slow run, or a few, is noise (a descheduled worker,
// a page-fault storm); a divergence restarts (replay_policy::end_phase). A
// lasting slowdown is put to a probe: see after_probe.
void evolve_controller::after_stows(run_report& r, const runtime_config& cfg) {
  if (coarsens_ && !s_.coarsen_search.done()) return s_.coarsen_search.after_run(s_, r, cfg, store_);
  const unsigned pct = knobs_.evolve_slowdown_pct;
  evolve_counters& c = s_.evolve_counters;
  slowdown_watch& watch = c.slowdown;
  if (!watch.add(r.wall_s, pct)) return check_switches(r);
  format_into(r.note,
              "slowdown: even the faster of the last {} stows runs (lower quartile {:.3f} ms) stayed over {}% "
              "slower than the {} before (x{:.2f}) for {} runs: the next run probes random stealing",
              slowdown_watch::recent, watch.now_s() * 1e3, pct, watch.baseline_runs(),
              watch.now_s() / watch.baseline_s(), watch.slow_runs());
  c.probing = true;
  c.probe_switches = switches_();
}

// A slowdown watch learns its baseline from the runs it sees: on a machine
// that was busy from the start (a solver loading its converged schedules
// beside a parallel build) the strict replay's slow times are the baseline,
// and no slowdown ever shows. So every `switch_check_every` converged runs
// the program's involuntary context switches are read (one system call); when
// they came at shared_switches_per_run per run or more, other work shared the
// cores: contended at once. A probe round cannot tell there: a strict
// replay's time on shared cores is a lottery of time slices (0.3 ms or 4-16
// ms per PCG phase beside a build).
void evolve_controller::check_switches(run_report& r) {
  evolve_counters& c = s_.evolve_counters;
  if (!knobs_.evolve_contention || knobs_.evolve_slowdown_pct == 0) return;
  c.switch_check_s += r.wall_s;
  if (++c.switch_check_runs < switch_check_every || c.switch_check_s < switch_check_min_s) return;
  const unsigned runs = std::exchange(c.switch_check_runs, 0u);
  c.switch_check_s = 0;
  const std::uint64_t now = switches_();
  const std::uint64_t before = std::exchange(c.checked_switches, now);
  if (before == evolve_counters::unread) return;
  const std::uint64_t moved = now - before;
  if (moved < std::uint64_t{shared_switches_per_run} * runs) {
    // quiet: the next contention's first gap shrinks back
    c.contended_every = c.contended_every / 2 < contended_first_every ? 0 : c.contended_every / 2;
    return;
  }
  format_into(r.note, "{} involuntary context switch(es) over the last {} runs: other work shares the cores; ", moved,
              runs);
  contend(r, now);
}

// Into contended; `switches`: the count just read, where the first gap starts.
void evolve_controller::contend(run_report& r, std::uint64_t switches) {
  evolve_counters& c = s_.evolve_counters;
  end_probe(c);
  c.contended = true;
  c.contended_every = std::max(contended_first_every, c.contended_every);
  c.probe_random_s = 0;
  c.checked_switches = switches;
  fmt::format_to(std::back_inserter(r.note),
                 "the template stays, and runs under random stealing until a run of it is as fast again (tried "
                 "every {} runs)",
                 c.contended_every);
}

// The probe: rounds of a run under random stealing and a run of the
// template, in the conditions the slow stows runs met. A template that
// stopped fitting the program (its work moved between tasks) loses to random
// stealing by the slowdown margin in every round; a machine that got slower
// (a parallel build started beside the solver) slows random stealing as
// much, or takes cores from the program, and the template stays. Only random
// stealing beating the template run beside it and the template's recent
// floor, round after round, on cores nobody took, is evidence against it.
void evolve_controller::after_probe(replay_mode ran, run_report& r) {
  evolve_counters& c = s_.evolve_counters;
  if (ran == replay_mode::random) {  // the round's first run; its template run comes next
    c.probe_random_s = r.wall_s;
    c.probe_template_turn = true;
    format_into(r.note, "probe round {} of {}: random stealing took {:.3f} ms; the template runs next",
                c.probe_rounds_won + 1, probe_rounds, r.wall_s * 1e3);
    return;
  }
  c.probe_template_turn = false;
  const double margin = 1.0 + knobs_.evolve_slowdown_pct / 100.0;
  const double floor_s = c.slowdown.now_s();
  const bool faster = c.probe_random_s * margin < r.wall_s && c.probe_random_s * margin < floor_s;
  const std::uint64_t switches = switches_();
  const std::uint64_t preempted = switches - c.probe_switches;
  c.probe_switches = switches;
  format_into(r.note,
              "probe round {} of {}: random stealing {:.3f} ms, the template {:.3f} ms beside it, its recent floor "
              "{:.3f} ms, {} involuntary context switch(es): ",
              c.probe_rounds_won + 1, probe_rounds, c.probe_random_s * 1e3, r.wall_s * 1e3, floor_s * 1e3, preempted);
  if (faster && preempted != 0) {
    r.note += "other work took the program's cores, where a strict replay waits for a descheduled thief: ";
    if (knobs_.evolve_contention) return contend(r, switches);
  }
  if (!faster || preempted != 0) {
    end_probe(c);
    c.slowdown.reset();
    if (!faster) r.note += "random stealing not faster than both by the margin: ";
    r.note += "the machine slowed down, not the template; staying converged, slowdowns measured from here";
    return;
  }
  if (++c.probe_rounds_won < probe_rounds) {
    r.note += "random stealing faster than both by the margin; the next round follows";
    return;
  }
  // relearn refines the converged template; the best tree and the planner's
  // verdict of the earlier learning stay (planning again allocates, and
  // would plan from the same kind of run).
  relearn(s_);
  r.note +=
      "random stealing faster than both by the margin in every round: the template stopped fitting, back "
      "to relws";
}

// contended: random stealing, the template kept and no page moved (a
// descheduled thief costs a strict replay a time slice per phase: 5-11 times
// random stealing's time beside a parallel build, docs/measured.md). Every
// `contended_every` random runs the template runs once. Converged again when
// it is as fast (by the slowdown margin) as the fastest random run of the
// gap, and the gap and the template run were quiet (fewer involuntary
// context switches than shared_switches_per_run per run). The switches
// decide, not the times alone: a strict run on shared cores that no time
// slice hit beats random stealing, while most of them wait one out.
// Otherwise the next try waits twice as long, up to contended_last_every
// runs. The gap outlives the contention: the next one starts from it, and
// each quiet check of the converged runs halves it.
void evolve_controller::after_contended(replay_mode ran, run_report& r) {
  evolve_counters& c = s_.evolve_counters;
  if (ran == replay_mode::random) {
    if (c.probe_random_s == 0 || r.wall_s < c.probe_random_s) c.probe_random_s = r.wall_s;
    if (++c.contended_runs >= c.contended_every) c.probe_template_turn = true;
    return;
  }
  c.probe_template_turn = false;
  c.contended_runs = 0;
  const double random_s = std::exchange(c.probe_random_s, 0.0);
  const std::uint64_t now = switches_();
  const std::uint64_t moved = now - std::exchange(c.checked_switches, now);
  const double margin = 1.0 + knobs_.evolve_slowdown_pct / 100.0;
  format_into(r.note,
              "the template took {:.3f} ms, the fastest of {} random runs before it {:.3f} ms, {} involuntary "
              "context switch(es) meanwhile: ",
              r.wall_s * 1e3, c.contended_every, random_s * 1e3, moved);
  const bool quiet = moved < std::uint64_t{shared_switches_per_run} * (c.contended_every + 1);
  if (quiet && r.wall_s <= random_s * margin) {
    r.note += "the template is as fast again on quiet cores; converged, slowdowns measured from here";
    end_probe(c);
    c.slowdown.reset();
    c.checked_switches = now;  // the next check compares, recheck_after runs on
    c.switch_check_runs = switch_check_every - recheck_after;
    c.switch_check_s = 0;
    return;
  }
  c.contended_every = std::min(2 * c.contended_every, contended_last_every);
  fmt::format_to(std::back_inserter(r.note), "still slower; random stealing for the next {} runs", c.contended_every);
}

}  // namespace cws::schedulers::detail
