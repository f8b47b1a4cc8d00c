#pragma once
// One worker's declared touches in the running phase (touch.hpp).
//
// Owned and written only by its worker during a phase; read by the scheduler
// after every worker has stopped. add() merges the new range into one of the
// most recent `window` ranges when they overlap or are adjacent: a task that
// walks one or more arrays in order (a leaf of a recursive bisection touching
// `in` and `out` rows, say) extends its existing ranges instead of adding new
// ones, so a segment leaves O(arrays) ranges, not O(tasks). seal() sorts and
// merges whatever is left: each worker seals its own log as it leaves the
// phase, so that the workers sort theirs at the same time instead of the
// caller sorting every log after the phase.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "cws/locality.hpp"

namespace cws::detail {

class touch_log {
 public:
  static constexpr std::size_t window = 4;

  void add(const void* p, std::size_t bytes) {
    const auto lo = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t hi = lo + bytes;
    if (hi <= lo) return;  // empty (or wrapping) range: nothing touched
    const std::size_t first = ranges_.size() > window ? ranges_.size() - window : 0;
    for (std::size_t i = ranges_.size(); i-- > first;) {
      byte_range& r = ranges_[i];
      if (lo <= r.end && r.begin <= hi) {
        r.begin = std::min(r.begin, lo);
        r.end = std::max(r.end, hi);
        return;
      }
    }
    ranges_.push_back({lo, hi});
  }

  bool empty() const noexcept { return ranges_.empty(); }
  std::size_t size() const noexcept { return ranges_.size(); }

  // Sorts and merges the phase's ranges in place (by the worker that owns the log).
  void seal() {
    coalesce(ranges_);
    sealed_ = true;
  }

  // Replaces `out` by the phase's ranges, sorted and merged (sealing them
  // first if the worker did not); the log is empty afterwards. The two
  // exchange their storage: no copy, and no allocation in steady state.
  void take(std::vector<byte_range>& out) {
    if (!sealed_) coalesce(ranges_);
    out.swap(ranges_);
    ranges_.clear();
    sealed_ = false;
  }

 private:
  std::vector<byte_range> ranges_;
  bool sealed_ = false;
};

}  // namespace cws::detail
