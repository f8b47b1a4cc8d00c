#pragma once
// Whether a small phase replays faster on the calling thread alone.
//
// A strict replay pays each of its template's steals in every phase: the
// helpers wake, the thief takes its mail, the spawner waits for it at the
// sync, the helpers leave. On a phase of a few microseconds (a dot product
// over a few thousand doubles) that costs more than the work it spreads,
// and the same phase with every spawn run as a call on the caller, no
// helper woken, is faster. Which one wins depends on the machine and the
// phase, so it is measured, not guessed:
//   watching  a template with steals: once `runs_per_side` replays in a row
//             took at most CWS_REPLAY_ALONE_US each, a trial starts --
//             unless those replays kept more than `busy_workers_cap`
//             workers busy (the median of their busy time over their wall
//             time): the caller alone would then take about that many times
//             as long, so the schedule goes straight to `replayed` (a trial
//             costs 10 runs alone, up to twice as slow on 2 workers, which a
//             schedule that runs a few hundred times notices);
//   trying    the next runs alternate in blocks between the caller alone
//             and the template, alone first, until each side has
//             `runs_per_side` timed runs; the side with the lower median
//             wall time is kept. A block is one untimed run, then
//             `block_timed` timed ones: the first run after a switch finds
//             the data the other side left in the other cores' caches
//             (alternating single runs timed a 64 KiB phase alone at 3.4
//             us, 2.4 us a call on one worker in a row), and blocks still
//             spread a burst of noise over both sides;
//   alone     every run alone, until `runs_per_side` of them in a row take
//             over the bound (the phase grew: back to watching);
//   replayed  the template, as before the trial;
// and `runs_between_trials` runs after a decision it is checked again (a
// new trial after alone runs, watching after replayed ones), so a wrong pick
// costs a bounded share of runs.
//
// Between phases only, on the thread that calls runtime::run.
#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "cws/steal_tree/tree.hpp"

namespace cws::schedulers::detail {

class alone_trial {
 public:
  static constexpr unsigned runs_per_side = 8;
  static constexpr unsigned block_timed = 4;  // timed runs per block, after one untimed
  static constexpr unsigned trial_runs = 2 * (runs_per_side / block_timed) * (block_timed + 1);
  static_assert(runs_per_side % block_timed == 0);
  static constexpr std::uint64_t runs_between_trials = 1024;
  static constexpr double busy_workers_cap = 1.5;

  // The template the coming runs replay (null: none). The same tree as
  // before keeps the trial where it is; another one starts over, watching
  // when it has steals and `bound_us` is not 0. True when it starts over
  // watching (the caller makes the template's alone plan).
  bool use(const std::shared_ptr<const steal_tree::tree>& t, unsigned bound_us);
  // Whether the coming run goes alone.
  bool alone_next() const noexcept;
  // After a run that alone_next() decided and that did what it was planned
  // to (not diverged or released): whether it ran alone, its wall time, and
  // its workers' busy time summed (0: not known). True when this run changed
  // the decision (decision() says how).
  bool after_run(bool ran_alone, double wall_s, double busy_s = 0);
  bool watching() const noexcept { return state_ != state::off; }
  // Whether the busy time of a run that took `wall_s` counts (after_run's
  // busy_s): before a trial, and only for a run short enough to count (a
  // longer one resets the row), so that replays of a long phase, which stay
  // watching, never pay for it.
  bool wants_busy_time(double wall_s) const noexcept { return state_ == state::watching && wall_s <= bound_s_; }
  bool trying() const noexcept { return state_ == state::trying; }
  // "alone: median 1.6 us alone against 2.4 us replaying its 1 steal (8
  // runs each)", or why runs alone stopped; written when that happened.
  const std::string& decision() const noexcept { return decision_; }

 private:
  enum class state { off, watching, trying, alone, replayed };
  void start_trial() noexcept;
  void decide();

  state state_ = state::off;
  // Held, not only compared: a pooled tree's storage is reused once free,
  // and a new template at the old address must start over.
  std::shared_ptr<const steal_tree::tree> templ_;
  double bound_s_ = 0;
  std::size_t steals_ = 0;
  std::array<double, runs_per_side> alone_s_{}, replayed_s_{};
  std::array<double, runs_per_side> busy_workers_{};  // watching: the row's busy time over wall time
  unsigned trial_run_ = 0;  // of trial_runs; which side and whether timed follow from it
  unsigned alone_runs_ = 0, replayed_runs_ = 0;
  unsigned in_a_row_ = 0;  // watching: short runs; alone: long ones
  std::uint64_t since_decision_ = 0;
  std::string decision_;
};

}  // namespace cws::schedulers::detail
