#pragma once
// Which recorded run a strict replay (stows, stuws) adopts as its template.
//
// A strict replay repeats its template's steals and nothing else, so the
// template's balance is the replay's balance for as long as the schedule
// lives. A schedule without a template runs under random stealing to record
// one, and one random run can be a poor template: a short phase whose helper
// had not woken yet, or was descheduled, records no steal at all, and
// replaying that tree runs the phase on one worker forever.
//
// On a machine with several NUMA nodes (CWS_TEMPLATE_TRIES=0, the default,
// or 1) the first run is the template all the same, as in the paper: its
// first touches placed the data, and replaying it keeps every task beside its
// pages, which is what the strict policies are for on a NUMA machine (a later
// run would replay a schedule the pages do not follow). On one node no page
// placement depends on the template, and the default bound is 5. A phase
// that computes on data placed elsewhere can ask for more on a NUMA machine:
// with CWS_TEMPLATE_TRIES=N the policy records again under random until a
// run passes evolve's balance rule (CWS_EVOLVE_BALANCE: every worker ran a
// task, the busiest one's share within the tolerance of 1/P), and after N
// runs with none that did, adopts the most balanced of them. A run that
// diverged from its template is adopted as it is (the divergence warning
// says so).
//
// Balanced means balanced in time: every worker ran a task and the busiest
// one's share of the busy time (load_balance::busy_over_fair: each worker's
// wall time less its idle time) is within the tolerance. A replay repeats
// the run's tasks on the same workers, and so their costs: a run balanced
// in time makes a template balanced in time, whatever its task counts. A
// loop whose later rows hold more work (a sparse matrix's, a triangular
// loop) is balanced by a split that gives one worker more rows, which a rule
// on task counts rejects while it accepts the even split, under which the
// other worker waits at the join (cws-phases --skew 100, 64 leaves: the
// even split's join was 26 us of a 100 us phase). Task counts still count
// once: a balanced run is adopted at once only if its counts are balanced
// too, since a worker that lost its core for part of a run looks busy in
// time while it ran fewer tasks; a run whose two measures disagree waits for
// the bound, as a candidate.
//
// Of balanced runs, the one with the fewest steals: every steal of a
// template is a hand-over its replay pays in every phase (a cross-core
// wake-up, a mailbox line, the join), and a balanced run of a fine-grained
// loop often stole back and forth (a 55-block loop of 4 us, 2 workers: a
// 3-steal template replayed at 1.12 x random, the 1-steal one at 0.89). A
// balanced run with the P - 1 steals every balanced tree needs is adopted at
// once; one with more is the best candidate so far, and the bound's last try
// adopts the balanced run with the fewest steals.
//
// A run in which a helper was absent (it had not joined when the caller
// finished the phase: parked, or off its core) while the phase spawned work
// it could have stolen says nothing about the phase's balance: the first
// phases of a schedule often run before a helper that slept has woken. Such
// a run stays a candidate but is not counted as a try, up to
// `absent_allowance` of them, after which they count (a machine whose
// helpers never come in time still gets a template). A phase shorter than
// `helper_join_s` counts at once: too short for a helper to join at all. A
// bound of 1 still adopts the first run whatever happened in it, as its
// first touches placed the data (and tests rely on knowing their template).
//
// A balanced run with more steals than it needs is first pruned
// (fewer_steals): of its coarsenings (steal_tree::coarsen, cut below each
// steal level it uses), the one with the fewest steals that is as balanced
// in time as the run (its busiest worker, estimated from the run's segment
// times, at most prune_slack of the mean busy time longer) is offered in
// its place. A helper that came late makes such
// runs: the caller had begun the half the helper would have taken, and the
// two then stole pieces back and forth (cws-fdtd, 32 blocks: a 3-steal run
// whose level-1 cut is the even 1-steal split). Only with a bound above 1:
// with a bound of 1 the first run is the template as it ran, since its
// first touches placed the data.
//
// Templates seeded from outside (a trace file, schedule_store::seed, a
// followed schedule) are replayed as they are: the pick only decides between
// the policy's own random runs. Used between phases, on the thread that calls
// runtime::run.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cws/run_report.hpp"
#include "cws/steal_tree/tree.hpp"

namespace cws::schedulers {
struct replay_knobs;
}

namespace cws::schedulers::detail {

class template_pick {
 public:
  // What offer() decided about a run.
  struct verdict {
    std::shared_ptr<const steal_tree::tree> adopt;  // the template from now on; null: keep recording
    std::uint64_t run = 0;                          // the run it was recorded in
    load_balance balance;                           // that run's balance
    bool best_of_bound = false;                     // adopted at the bound, not at once
    bool counted = true;                            // the run counted as a try (see absent_allowance)
    bool balanced = false;                          // the adopted run passed the balance rule
    std::uint64_t extra_steals = 0;                 // the adopted run's steals beyond P - 1
    std::uint64_t recorded_steals = 0;              // the adopted run's steals as it ran (more: it was pruned)
  };
  // Generous: a run not counted still ran under random, the policy's
  // baseline, while a template adopted too early can be a serial tree that
  // is replayed for as long as the schedule lives. An OpenMP team spinning
  // after its region (libgomp spins for milliseconds by default) kept a
  // helper off its core for 20 consecutive 34 us phases of cws-floyd.
  static constexpr unsigned absent_allowance = 1000;
  // Shorter than this, a phase a helper missed was too short for one to
  // join in time, not a phase it would have helped in: its run counts as a
  // try like any other (random stealing runs such a phase on the caller
  // too). In cws-phases, 2 leaves of 512 bytes (0.15 us) were missed by the
  // helper in nearly every run, and stows spent its first 1 000 runs
  // recording under random at about twice random's cost (the notes and the
  // pick's bookkeeping of every uncounted run).
  static constexpr double helper_join_s = 2e-6;
  // How much longer a pruned template's busiest worker may be estimated to
  // take than the run's busiest, as a share of the mean busy time: a steal
  // saved is a hand-over (a microsecond or so), not worth a phase's percent.
  static constexpr double prune_slack = 0.02;
  // Whether a run had a helper absent in the sense above: fewer than all
  // `workers` joined, the phase spawned (`tasks` > 1: work a helper could
  // have stolen), and it lasted at least helper_join_s.
  static constexpr bool helper_absent(std::size_t joined, std::size_t workers, std::uint64_t tasks,
                                      double wall_s) noexcept {
    return joined < workers && tasks > 1 && wall_s >= helper_join_s;
  }

  // The tree of random run `run` with its balance. `balanced` is the balance
  // rule's verdict on the run in time, `counts_balanced` the rule's verdict
  // on `fresh`'s task counts, `helper_absent` whether a helper was absent
  // while there was work to steal, and `bound` how many runs may be tried
  // (>= 1). `recorded_steals`: the run's steals as recorded, when `fresh` is
  // its pruned tree (fewer_steals); 0: fresh's own.
  verdict offer(std::shared_ptr<const steal_tree::tree> fresh, const load_balance& balance, bool balanced,
                bool counts_balanced, bool helper_absent, std::uint64_t run, unsigned bound,
                std::uint64_t recorded_steals = 0);
  // Of `t`'s cuts below a level it steals at that give every worker a task,
  // the one with the fewest steals (the shallowest of equals) that is
  // balanced: with `busy` (the run's busy seconds per worker, busy_of) as
  // balanced in time as the run (cuts_balanced_in_time, prune_slack);
  // without, by `knobs`' rule on task counts (balanced_cuts, for a tree
  // with no run's times). Empty when none has fewer steals than `t`.
  // O(levels x segments).
  static std::optional<steal_tree::tree> fewer_steals(const steal_tree::tree& t, const replay_knobs& knobs,
                                                      std::span<const double> busy = {});
  // A run's busy seconds per worker (cws::busy_s of each).
  static std::vector<double> busy_of(const phase_stats& r);
  static std::uint64_t steals_of(const steal_tree::tree& t) noexcept {
    return t.segments.empty() ? 0 : t.segments.size() - 1;
  }
  // Steals of `t` beyond the P - 1 that a tree where every worker ran needs.
  static std::uint64_t extra_steals_of(const steal_tree::tree& t) noexcept;
  // Random runs counted as tries since the last adoption.
  unsigned tries() const noexcept { return tries_; }
  // Whether a balanced run (with extra steals) is the best candidate so far.
  bool balanced_candidate() const noexcept { return best_tree_ && best_balanced_; }
  // Runs with a helper absent not counted as tries since the last adoption.
  unsigned absent_uncounted() const noexcept { return absent_ < absent_allowance ? absent_ : absent_allowance; }
  // Whether runs were offered since the last adoption.
  bool picking() const noexcept { return tries_ != 0 || absent_ != 0; }
  void reset() noexcept;

 private:
  // Whether an offered run beats the best candidate: balanced beats
  // unbalanced; of balanced runs the fewer extra steals, then the more
  // balanced in time; of the others the more balanced in time; of equals,
  // the one offered first.
  bool beats_best(bool balanced, std::uint64_t extra, const load_balance& balance) const noexcept;

  std::shared_ptr<const steal_tree::tree> best_tree_;
  load_balance best_;
  bool best_balanced_ = false;
  std::uint64_t best_run_ = 0;
  std::uint64_t best_recorded_steals_ = 0;
  unsigned tries_ = 0;
  unsigned absent_ = 0;  // runs offered with a helper absent (counted or not)
};

}  // namespace cws::schedulers::detail
