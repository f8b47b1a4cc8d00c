#pragma once
// Declaring what tasks touch (DESIGN §5), for locality reports and page
// relocalization (locality.hpp, runtime::relocalize).
//
//   cws::touch(p, bytes);                       // inside a task body: any memory
//   cws::touch_rows(p, rows, row_bytes, pitch); // a 2-D tile of a row-major matrix
//   cws::spawn(cws::hint(a, lo, hi), [=] { ... });       // PufferFish async_hinted:
//   cws::spawn(cws::hints(cws::hint(a, lo, hi),          // elements [lo, hi) of a
//                         cws::hint(b, lo, hi)), [=] { ... });  // cws::numa::array
//
// A hinted task that spawns nothing (a leaf) has its hints recorded as its
// touches by the worker that ran it, as if its body called cws::touch of
// them; a task that splits its range and spawns records nothing, so each
// range is counted once. Under the `hinted` policies the hints also choose
// where the task runs (place_tree.hpp, hint.hpp).
//
// Cost: each worker keeps the ranges it touched in this phase and merges a new
// range into one of its latest few when they overlap or are adjacent, so tasks
// walking an array in order leave O(segments) ranges, not O(tasks). The ranges
// are sorted and merged once more when the phase ends. A phase in which no
// task declares anything costs nothing (no range is stored, no report made).
// Outside a phase, touch() does nothing.

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "cws/hint.hpp"
#include "cws/numa.hpp"
#include "cws/spawn.hpp"

namespace cws {

// Records that the calling task touches [p, p + bytes). Thread-safe (each
// worker records into its own log); a no-op for bytes == 0 or outside a phase.
void touch(const void* p, std::size_t bytes) noexcept;

// Records that the calling task touches `rows` ranges of `row_bytes` bytes,
// `stride` bytes apart, the first at `first_row`: a tile of a row-major
// matrix (rows of the tile, stride the matrix's row pitch in bytes). The same
// as calling touch() once per row, at the cost of one call: the log keeps the
// block as one entry, joins it with the tile beside it (when the two fill
// the pitch they become one range) or below it, and expands what is left into
// rows once the phase ends. Rows that meet or overlap (stride <= row_bytes)
// are one range. Thread-safe; a no-op for rows == 0, row_bytes == 0, a block
// whose span does not fit the address space, or outside a phase.
void touch_rows(const void* first_row, std::size_t rows, std::size_t row_bytes, std::size_t stride) noexcept;

// spawn(f) with data-affinity hints. Under a policy that routes hints
// (`hinted`, `hinted-hpt`) the task goes where its data lives (place_tree.hpp);
// under every other policy this is an ordinary spawn. Either way, when the
// task spawned nothing (a leaf), its hints are recorded as its touches once
// its body returned, so a recursion that hints every child counts each range
// once, on the worker that ran the leaf. The hints are stored inline with the
// callable (24 bytes each).
template <std::size_t N, class F>
void spawn(const std::array<touch_hint, N>& h, F&& f) {
  using fn_t = std::decay_t<F>;
  auto body = [h, fn = fn_t(std::forward<F>(f))]() mutable {
    // Inside an elided call (serial elision) there is no frame of its own:
    // every spawn below it bumps the elided-call count instead.
    const std::uint64_t calls = detail::tls_elided_calls;
    fn();
    detail::worker* w = detail::tls_worker;
    if (w != nullptr && (calls != 0 ? detail::tls_elided_calls == calls : detail::spawned_nothing(*w)))
      for (const touch_hint& r : h) cws::touch(r.begin, r.bytes);
  };
  detail::worker* w = detail::tls_worker;
  if (w == nullptr || detail::tls_elides) {  // no phase, or a replay with serial elision: an ordinary spawn
    cws::spawn(std::move(body));
    return;
  }
  detail::task* t = detail::tls_pool->allocate();
  t->emplace(std::move(body));
  detail::submit_hinted(*w, t, h.data(), N);
}
template <class F>
void spawn(const touch_hint& h, F&& f) {
  cws::spawn(std::array<touch_hint, 1>{h}, std::forward<F>(f));
}

}  // namespace cws
