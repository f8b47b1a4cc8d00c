#pragma once
// Declaring what tasks touch (DESIGN §5), for locality reports and page
// relocalization (locality.hpp, runtime::relocalize).
//
//   cws::touch(p, bytes);                       // inside a task body: any memory
//   cws::spawn(cws::hint(a, lo, hi), [=] { ... });       // PufferFish async_hinted:
//   cws::spawn(cws::hints(cws::hint(a, lo, hi),          // elements [lo, hi) of a
//                         cws::hint(b, lo, hi)), [=] { ... });  // cws::numa::array
//
// A hint is recorded by the worker that runs the task, when it starts it, as
// if the body began with cws::touch of that range. Declare what a *leaf* task
// uses: a task that only splits its range and spawns should not declare the
// whole range, or every half is counted once more on whoever split it.
//
// Cost: each worker keeps the ranges it touched in this phase and merges a new
// range into one of its latest few when they overlap or are adjacent, so tasks
// walking an array in order leave O(segments) ranges, not O(tasks). The ranges
// are sorted and merged once more when the phase ends. A phase in which no
// task declares anything costs nothing (no range is stored, no report made).
// Outside a phase, touch() does nothing.

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "cws/hint.hpp"
#include "cws/numa.hpp"
#include "cws/spawn.hpp"

namespace cws {

// Records that the calling task touches [p, p + bytes). Thread-safe (each
// worker records into its own log); a no-op for bytes == 0 or outside a phase.
void touch(const void* p, std::size_t bytes) noexcept;

// spawn(f), recording `h` on the worker that runs the task when it starts it.
// The hints are stored inline with the callable (16 bytes each).
template <std::size_t N, class F>
void spawn(const std::array<touch_hint, N>& h, F&& f) {
  using fn_t = std::decay_t<F>;
  cws::spawn([h, fn = fn_t(std::forward<F>(f))]() mutable {
    for (const touch_hint& r : h) cws::touch(r.begin, r.bytes);
    fn();
  });
}
template <class F>
void spawn(const touch_hint& h, F&& f) {
  cws::spawn(std::array<touch_hint, 1>{h}, std::forward<F>(f));
}

}  // namespace cws
