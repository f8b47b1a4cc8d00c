#pragma once
// cws::run_report — everything one run of a schedule did, in one typed value.
//
//   auto& step = rt.schedule("stencil", cws::policy::evolve);
//   const cws::run_report& r = rt.run(step, [&] { stencil(0, n); });
//   if (r.ran_as == cws::ran_as::random_no_template) ...   // r.reason says why
//   fmt::print("{} {:.3f}s balance {:.2f} local {:.1%}\n", r.label(), r.wall_s,
//              r.balance.max_over_fair, r.locality ? r.locality->share() : 1.0);
//
// A run_report *is* the run's phase_stats (statistics per worker, wall time,
// locality), extended with what the two sides of the runtime know after the
// phase:
//   * the core: load balance, and the relocalization made from this run's
//     touches (evolve's, or runtime::relocalize called before the next run);
//   * the schedule's policy (scheduling_policy::end_phase): what actually ran
//     and why, the template it replayed, the distance to the previous run and
//     whether the schedule has converged.
// It lives in its schedule's history (schedule::history(), the last
// runtime_config::history runs; schedule::last_report() is the newest), and a
// run writes it in place over the storage of the run it evicts, so producing
// it allocates nothing in steady state; copy it to keep it longer.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cws/locality.hpp"
#include "cws/phase_timeline.hpp"
#include "cws/stats.hpp"

namespace cws {

// What a run actually ran as. A replaying policy may run differently from its
// name: with no template yet it runs random to record one, and a replay that
// does not fit the program finishes under random stealing.
enum class ran_as {
  other,               // a policy outside cws that reports nothing more (phase.policy names it)
  random,              // the random policy: uniform random victims
  stows,               // strict ordered replay of a template
  stuws,               // strict unordered replay
  relws,               // relaxed replay (take-backs, random stealing past the template)
  user,                // the program's designations (designate_after_next_spawn), run like stuws
  random_no_template,  // a replaying policy had no template: random, recording one (reason: why none)
  random_diverged,     // the replay left its template (up front or mid-phase) and finished under
                       // random stealing (reason: the divergence; planned: what it replayed)
  hinted,              // data-affinity hints routed on the place tree (hinted, hinted-hpt, or
                       // evolve-hinted recording its first template)
  random_released,     // a strict replay that kept a worker waiting past the grace (CWS_REPLAY_GRACE_US):
                       // the phase finished under random stealing, the spawner running the tasks nobody
                       // started; the template stays (reason: who waited; planned: what it replayed)
};

// "other", "random", "stows", "stuws", "relws", "user", "random_no_template",
// "random_diverged", "hinted", "random_released": stable tokens, for JSON and scripts.
std::string_view to_string(ran_as r) noexcept;
// The inverse of to_string; nullopt for anything else.
std::optional<ran_as> ran_as_from_string(std::string_view s) noexcept;

// The one-line label tables print: the token, or for the random fallbacks
// "random (no template yet)", "random ('init', which it follows, has not run
// yet)" or "random (diverged from stows)". Prose: for people, not for tests.
std::string ran_as_label(ran_as r, ran_as planned, std::string_view reason);

// How evenly the run's work spread over the workers, in tasks and in time
// (O(workers)). The two differ when tasks differ in cost: a loop whose later
// rows hold more nonzeros is balanced in time by a split that gives one
// worker more rows, and a split of the rows in equal counts leaves the other
// waiting at the join.
struct load_balance {
  // The busiest worker's share of the tasks over the fair share 1/P: 1 is
  // perfect, P means one worker ran everything. 1 for a phase of no task.
  double max_over_fair = 1;
  unsigned idle_workers = 0;  // workers that ran no task
  // The same in time: the busiest worker's share of the summed busy time
  // (each worker's wall_s less its idle_s; 0 for one that started no
  // segment) over 1/P. 1 when the wall time is not known or nobody was busy.
  // A worker that lost its core for part of the phase counts that part as
  // busy: one run's figure is the machine's as much as the phase's.
  double busy_over_fair = 1;
  friend bool operator==(const load_balance&, const load_balance&) = default;
};
// `wall_s`: the phase's wall time (phase_stats::wall_s); 0 leaves
// busy_over_fair at 1.
load_balance balance_of(std::span<const worker_stats> per_worker, double wall_s = 0) noexcept;
inline load_balance balance_of(const phase_stats& stats) noexcept { return balance_of(stats.per_worker, stats.wall_s); }

struct run_report : phase_stats {
  // --- filled by the policy (scheduling_policy::end_phase) ---
  cws::ran_as ran_as = cws::ran_as::other;
  // What the policy set out to run; differs from ran_as only when the run
  // diverged or was released (ran_as::random_diverged, random_released).
  cws::ran_as planned = cws::ran_as::other;
  // Why ran_as is a fallback: the missing template ("no template yet", "'init',
  // which it follows, has not run yet") or the divergence. Empty otherwise.
  std::string reason;
  // Where the replayed template came from ("recorded run #3", "file h.cwst,
  // run #7", "follows 'init': its run #0", ...); empty when none was replayed.
  std::string template_from;
  // Share of the recorded work that ran on another worker than in the
  // previous run of this schedule (steal_tree::schedule_distance); empty for
  // a first run, or a policy that keeps no trees (random).
  std::optional<double> distance_to_previous;
  // evolve only: after this run the schedule is converged, so its next run
  // replays strictly (stows, or stuws for a planned template). Set on the run
  // that converged (often a relws or audit run) and on every strict run after
  // it; cleared by a divergence or a lasting slowdown (docs/replay.md).
  bool converged = false;
  // What the policy decided after this run, for people (docs/replay.md):
  // evolve's convergence or re-learning and why, coarsen's choice, the end
  // of relocalization ("converged after 3 relws runs ...: switching to
  // stows; pages in place: no more relocalization"). Empty when it decided
  // nothing.
  std::string note;

  // --- filled by the core ---
  load_balance balance;
  // Where the time of this rt.run went (phase_timeline.hpp); only while the
  // runtime times its phases (runtime::time_phases), else empty.
  std::optional<phase_timeline> timeline;
  // The relocalization made from this run's touches (relocalization() is null
  // until there is one).
  const relocalization_report* relocalization() const noexcept { return relocalized_ ? &relocalization_ : nullptr; }

  bool diverged() const noexcept { return ran_as == cws::ran_as::random_diverged; }
  bool released() const noexcept { return ran_as == cws::ran_as::random_released; }
  // ran_as_label(ran_as, planned, reason).
  std::string label() const { return ran_as_label(ran_as, planned, reason); }

 private:
  friend class runtime;
  relocalization_report relocalization_;
  bool relocalized_ = false;
  // schedule::info_version_ when `phase`'s strings were last written into
  // this (history) slot; 0: never.
  std::uint64_t phase_version_ = 0;
};

}  // namespace cws
