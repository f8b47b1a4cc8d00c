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
// Fixed storage (256 bytes), no allocation, no data-dependent branch, and
// no sorting: it runs after every converged phase, some of 10 us. The runs
// are kept in two rings, the recent ones and the baseline's. The verdict
// needs no baseline quartile: with q its index, the baseline is slow-making
// exactly when more than q of its times t have t * (1 + pct/100) < now
// (that product grows with t, so those times are the fastest ones), and
// none of the q + 1 fastest is 0. That is one pass of compares over the
// baseline's ring, which the compiler vectorises (unused places hold
// +infinity, which counts as neither). `now`, the recent quartile, is a
// count over 8 times. The figures a note quotes (now_s, baseline_s) are
// worked out only when asked. Sorted windows kept by binary search took
// 120 ns an add here, as noisy times made every other step mispredict; this
// takes 35 (cws-micro-bench, slowdown_watch_add). Times are kept as floats
// (7 significant digits, for a threshold of whole percents): a schedule's
// watch is cold by the time an application with many loops runs that
// schedule again, and fewer cache lines come back faster.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

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
    // Times that compare (not NaN), and below the padding.
    const float t = std::isnan(seconds) ? 0.0f : static_cast<float>(std::clamp(seconds, 0.0, double{max_time}));
    if (count_ >= recent) {  // the oldest recent run joins the baseline, over its oldest once all are kept
      base_[base_next_] = recent_[recent_next_];
      base_next_ = (base_next_ + 1) % (kept - recent);
    }
    recent_[recent_next_] = t;
    recent_next_ = (recent_next_ + 1) % recent;
    if (count_ < kept) ++count_;
    if (pct == 0 || count_ < recent + min_baseline) {
      slow_runs_ = 0;
      return false;
    }
    slow_runs_ = slow(1.0 + pct / 100.0) ? slow_runs_ + 1 : 0;
    return slow_runs_ >= persistence;
  }

  void reset() noexcept { *this = slowdown_watch{}; }

  // The figures of the latest verdict (for the run's note): 0 before the
  // first. Worked out when asked, O(kept).
  double now_s() const noexcept { return verdicts() ? kth_smallest(recent_, recent_quartile) : 0.0; }
  double baseline_s() const noexcept {
    if (!verdicts()) return 0.0;
    std::array<float, kept - recent> x = base_;  // the padding sorts last
    const auto quartile = x.begin() + (baseline_size() - 1) / 4;
    std::nth_element(x.begin(), quartile, x.end());
    return *quartile;
  }
  unsigned baseline_runs() const noexcept { return verdicts() ? baseline_size() : 0; }
  unsigned slow_runs() const noexcept { return slow_runs_; }  // consecutive slow verdicts so far
  unsigned runs() const noexcept { return count_; }           // times kept

 private:
  static constexpr float max_time = std::numeric_limits<float>::max();
  static constexpr float padding = std::numeric_limits<float>::infinity();  // a baseline place not filled yet
  static constexpr unsigned recent_quartile = (recent - 1) / 4;             // the 2nd fastest of 8

  bool verdicts() const noexcept { return count_ >= recent + min_baseline; }
  unsigned baseline_size() const noexcept { return count_ - recent; }

  // now > baseline * margin, with baseline > 0 (see the top).
  bool slow(double margin) const noexcept {
    const float below = faster_than(kth_smallest(recent_, recent_quartile), margin);
    unsigned faster = 0, zero = 0;
    for (const float t : base_) {  // float compares only: vectorised
      faster += t < below ? 1u : 0u;
      zero += t <= 0.0f ? 1u : 0u;
    }
    const unsigned q = (baseline_size() - 1) / 4;
    return faster > q && zero <= q;
  }

  // The float f such that, for every time t, t * margin < now (in double)
  // exactly when t < f: the first float where the product reaches now.
  // From the quotient rounded to a float, a step up while it rounded below
  // that point. No step down is ever needed: the float below the rounded
  // quotient is half a float step (2^-25 of it) or more under now / margin,
  // far more than the double product's rounding (2^-53) can make up.
  static float faster_than(double now, double margin) noexcept {
    const auto faster = [&](float t) { return static_cast<double>(t) * margin < now; };
    float f = static_cast<float>(now / margin);
    while (faster(f)) f = std::nextafter(f, padding);
    return f;
  }

  // The k-th smallest (from 0) of x, by counting: the time with at most k
  // times below it and more than k not above it. For the recent window.
  template <std::size_t N>
  static float kth_smallest(const std::array<float, N>& x, unsigned k) noexcept {
    float kth = x[0];
    for (const float v : x) {
      unsigned below = 0, not_above = 0;
      for (const float w : x) {
        below += w < v ? 1u : 0u;
        not_above += w <= v ? 1u : 0u;
      }
      kth = below <= k && k < not_above ? v : kth;
    }
    return kth;
  }

  static constexpr std::array<float, kept - recent> unfilled() noexcept {
    std::array<float, kept - recent> x{};
    x.fill(padding);
    return x;
  }

  std::array<float, recent> recent_{};                  // the last `recent` times (a ring, full once verdicts start)
  std::array<float, kept - recent> base_ = unfilled();  // the times before those (a ring)
  unsigned recent_next_ = 0;                            // where the next time goes
  unsigned base_next_ = 0;                              // where the next run leaving the recent ones goes
  unsigned count_ = 0;                                  // times kept (<= kept)
  unsigned slow_runs_ = 0;
};

}  // namespace cws::schedulers::detail
