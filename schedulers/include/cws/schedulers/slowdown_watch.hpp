#pragma once
// evolve's test of whether a converged schedule stopped fitting the program
// (CWS_EVOLVE_SLOWDOWN): a persistent slowdown of its stows runs against the
// schedule's own recent times, told apart from noise.
//
// Run times of replays are noisy, and noise only ever adds time: a worker
// descheduled for a time slice, a page-fault storm or a burst of another
// process's work makes single runs, or many of them, slower, while the runs
// it spares keep the template's own time. A template that no longer fits
// (the program's work moved between its tasks without changing the tree)
// makes every run slower, the fastest ones too. So the watch follows the
// floor of the run times, not their average:
//
//   now       the lower quartile of the last `recent` runs (the 2nd fastest
//             of 8: up to 6 slow runs in 8, however slow, leave it normal);
//   baseline  the lower quartile of the runs kept before those (up to
//             `kept - recent`; at least `min_baseline` before any verdict);
//   slow      now > baseline * (1 + pct/100);
//   relearn   slow for `persistence` runs in a row.
//
// After a template stopped fitting, the watch says so at the
// (recent - recent/4 + persistence - 1)th run (14 with the constants
// below), while the baseline still holds the times from before. A load on
// the machine that slows every run for that long looks the same; nothing in
// the run times tells those apart.
//
// Fixed storage (a ring of `kept` times), no allocation; one add() costs a
// partial sort of at most `kept` doubles on the stack.

#include <algorithm>
#include <array>
#include <cstddef>

namespace cws::schedulers::detail {

class slowdown_watch {
 public:
  static constexpr unsigned recent = 8;
  static constexpr unsigned kept = 64;
  static constexpr unsigned min_baseline = 8;
  static constexpr unsigned persistence = 8;

  // Records one run's time; true when the slowdown (now over baseline by more
  // than pct percent) has lasted `persistence` runs in a row. pct 0: never.
  bool add(double seconds, unsigned pct) noexcept {
    times_[next_] = seconds;
    next_ = (next_ + 1) % kept;
    if (count_ < kept) ++count_;
    if (pct == 0 || count_ < recent + min_baseline) {
      slow_runs_ = 0;
      return false;
    }
    std::array<double, kept> scratch;
    // The ring, newest first: the recent runs, then the baseline's.
    for (unsigned i = 0; i < count_; ++i) scratch[i] = times_[(next_ + kept - 1 - i) % kept];
    now_ = lower_quartile(scratch.data(), recent);
    baseline_ = lower_quartile(scratch.data() + recent, count_ - recent);
    const bool slow = baseline_ > 0 && now_ > baseline_ * (1.0 + pct / 100.0);
    slow_runs_ = slow ? slow_runs_ + 1 : 0;
    return slow_runs_ >= persistence;
  }

  void reset() noexcept { *this = slowdown_watch{}; }

  // The figures of the latest verdict (for the run's note).
  double now_s() const noexcept { return now_; }
  double baseline_s() const noexcept { return baseline_; }
  unsigned baseline_runs() const noexcept { return count_ >= recent + min_baseline ? count_ - recent : 0; }
  unsigned slow_runs() const noexcept { return slow_runs_; }  // consecutive slow verdicts so far
  unsigned runs() const noexcept { return count_; }           // times kept

 private:
  // The lower quartile of x[0..n) (reorders it).
  static double lower_quartile(double* x, unsigned n) noexcept {
    double* q = x + (n - 1) / 4;
    std::nth_element(x, q, x + n);
    return *q;
  }

  std::array<double, kept> times_{};
  unsigned next_ = 0;   // where the next time goes
  unsigned count_ = 0;  // times kept (<= kept)
  unsigned slow_runs_ = 0;
  double now_ = 0;
  double baseline_ = 0;
};

}  // namespace cws::schedulers::detail
