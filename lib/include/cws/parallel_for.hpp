#pragma once
// parallel_for: recursive bisection on top of spawn, so its schedule is a
// steal tree like any other. The left half is spawned, the right half runs in
// the caller; ranges of at most `grain` indices run serially.

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "cws/spawn.hpp"

namespace cws {

// Grain used when none is given: about 8 leaves per worker, at least 1.
inline std::size_t default_grain(std::size_t n) noexcept {
  return std::max<std::size_t>(1, n / (8 * std::size_t{num_workers()}));
}

namespace detail {
template <class Body>
void bisect(std::size_t lo, std::size_t hi, std::size_t grain, const Body& body) {
  while (hi - lo > grain) {
    std::size_t mid = lo + (hi - lo) / 2;
    cws::spawn([lo, mid, grain, &body] { bisect(lo, mid, grain, body); });
    lo = mid;
  }
  try {
    body(lo, hi);  // the spawned halves join at the enclosing task's (implicit) sync ...
  } catch (...) {
    // ... or here when body throws: an exception must not leave a task with
    // children pending (spawn.hpp). The halves capture only values and `body`,
    // which outlives them; the first exception goes on, theirs are dropped.
    try {
      cws::sync();
    } catch (...) {
    }
    throw;
  }
}
}  // namespace detail

// body(lo, hi) for consecutive sub-ranges covering [first, last).
template <class Body>
void parallel_for_range(std::size_t first, std::size_t last, const Body& body, std::size_t grain = 0) {
  if (last <= first) return;
  if (grain == 0) grain = default_grain(last - first);
  cws::finish([&] { detail::bisect(first, last, grain, body); });
}

// body(i) for every i in [first, last), each exactly once.
template <class Body>
void parallel_for(std::size_t first, std::size_t last, const Body& body, std::size_t grain = 0) {
  parallel_for_range(
      first, last,
      [&body](std::size_t lo, std::size_t hi) {
        for (std::size_t i = lo; i < hi; ++i) body(i);
      },
      grain);
}

}  // namespace cws
