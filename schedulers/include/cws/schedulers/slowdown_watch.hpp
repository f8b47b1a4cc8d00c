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
// the run times tells those apart, so the verdict only calls for evolve's
// probe (a run under random stealing: evolve_controller.hpp).
//
// Fixed storage, no allocation, and O(kept) at worst per add() with small
// constants (it runs after every converged phase, some of 10 us): besides the
// ring of times, the recent runs and the baseline's are each kept sorted, so
// a quartile is an index, and a run moving from one to the other is a binary
// search and a shift of the times between the place it leaves and the one
// the next run takes. Times are kept as floats (7 significant digits, for a
// threshold of whole percents): 512 bytes, half the cache lines of doubles,
// which matters because a schedule's watch is cold by the time an
// application with many loops runs that schedule again.

#include <algorithm>
#include <array>
#include <cmath>
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
    // The sorted windows need times that compare.
    const float t = std::isnan(seconds) ? 0.0f : static_cast<float>(seconds);
    if (count_ < recent) {
      insert(recent_, recent_size_, t);
    } else {  // the oldest recent run joins the baseline, whose oldest run leaves once all are kept
      const float moving = times_[(next_ + kept - recent) % kept];
      replace(recent_, recent_size_, moving, t);
      if (count_ == kept)
        replace(base_, base_size_, times_[next_], moving);
      else
        insert(base_, base_size_, moving);
    }
    times_[next_] = t;
    next_ = (next_ + 1) % kept;
    if (count_ < kept) ++count_;
    if (pct == 0 || count_ < recent + min_baseline) {
      slow_runs_ = 0;
      return false;
    }
    now_ = lower_quartile(recent_.data(), recent_size_);
    baseline_ = lower_quartile(base_.data(), base_size_);
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
  // The lower quartile of the sorted x[0..n).
  static double lower_quartile(const float* x, unsigned n) noexcept { return x[(n - 1) / 4]; }

  // Sorted arrays of `n` times: insert one after its equals, or replace the
  // one equal to `out` (present: every time replaced was inserted before, bit
  // for bit) by `in`, moving only the times between the two places (a third
  // of the array on average, where an erase and an insert moved all of it
  // after them: this runs after every converged phase).
  template <std::size_t N>
  static void insert(std::array<float, N>& x, unsigned& n, float t) noexcept {
    float* at = std::upper_bound(x.data(), x.data() + n, t);
    std::copy_backward(at, x.data() + n, x.data() + n + 1);
    *at = t;
    ++n;
  }
  template <std::size_t N>
  static void replace(std::array<float, N>& x, unsigned n, float out, float in) noexcept {
    float* const first = x.data();
    float* const last = first + n;
    float* at = std::lower_bound(first, last, out);
    if (at == last || *at != out) return;  // not there (cannot happen)
    if (in > out) {
      float* to = std::upper_bound(at + 1, last, in);  // the times in (at, to) are <= in: one place down
      std::copy(at + 1, to, at);
      *(to - 1) = in;
    } else {
      float* to = std::upper_bound(first, at, in);  // the times in [to, at) are > in: one place up
      std::copy_backward(to, at, at + 1);
      *to = in;
    }
  }

  std::array<float, kept> times_{};  // the ring, oldest at next_ once full
  std::array<float, recent> recent_{};  // the last `recent` times, sorted
  std::array<float, kept - recent> base_{};  // the times before those, sorted
  unsigned recent_size_ = 0;
  unsigned base_size_ = 0;
  unsigned next_ = 0;   // where the next time goes
  unsigned count_ = 0;  // times kept (<= kept)
  unsigned slow_runs_ = 0;
  double now_ = 0;
  double baseline_ = 0;
};

}  // namespace cws::schedulers::detail
