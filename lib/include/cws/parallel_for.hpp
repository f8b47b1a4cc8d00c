#pragma once
// parallel_for: recursive bisection on top of spawn, so its schedule is a
// steal tree like any other. Ranges of at most `grain` indices run serially.
//
// The right half is spawned and the left half runs in the caller, so that a
// worker runs the leaves it keeps in ascending order: its unstolen children
// wait in its deque and run at the sync newest first, that is the right
// halves from the nearest to the farthest. A thief takes the oldest, the
// largest right half. (Spawning the left half instead ran every worker's
// leaves from the last to the first: on one worker, 4 096 leaves of 8 KiB
// took 3.3 ms against the serial loop's 1.1 ms on the 2-core test machine,
// 1.4 ms left to right; docs/replay.md, "Leaf order".)
//
// A spawn a replay elides (spawn.hpp) would be a call that runs at once,
// child first, visiting the right half before the left. So a right half
// whose spawn is elided waits, like an unstolen task in the deque, and runs
// as its elided call after the part the worker keeps, newest first; inside
// it, and outside a phase, where nothing can be stolen either, the leaves
// run left to right as calls (serial_bisect). The spawns and their ranks are
// the same in every case: only when an elided half runs changes.

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
// The leaves of bisect(lo, hi), left to right, as calls. Inside an elided
// call each split still counts as the call its spawn would have been (the
// segment's task count, which the balance figures read).
template <class Body>
void serial_bisect(std::size_t lo, std::size_t hi, std::size_t grain, const Body& body) {
  while (hi - lo > grain) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (tls_elided_calls != 0) ++tls_elided_calls;
    serial_bisect(lo, mid, grain, body);
    lo = mid;
  }
  body(lo, hi);
}

template <class Body>
void bisect(std::size_t lo, std::size_t hi, std::size_t grain, const Body& body);

// The part of [lo, hi) its task keeps: the right half spawned (or, elided,
// run once the left half is done, where its task would have run), the left
// half split the same way, down to the leftmost leaf.
template <class Body>
void keep_left(std::size_t lo, std::size_t hi, std::size_t grain, const Body& body) {
  if (hi - lo <= grain) {
    body(lo, hi);
    return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  const bool elided = spawn_unless_elided([mid, hi, grain, &body] { bisect(mid, hi, grain, body); });
  keep_left(lo, mid, grain, body);
  if (elided) run_elided(*tls_worker, [&] { serial_bisect(mid, hi, grain, body); });
}

template <class Body>
void bisect(std::size_t lo, std::size_t hi, std::size_t grain, const Body& body) {
  if (tls_worker == nullptr || tls_elided_calls != 0) return serial_bisect(lo, hi, grain, body);
  try {
    keep_left(lo, hi, grain, body);  // the spawned halves join at the enclosing task's (implicit) sync ...
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
