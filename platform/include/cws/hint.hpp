#pragma once
// Data-affinity hints (PufferFish's async_hinted): the ranges a spawned task
// will touch, and the NUMA node they live on.
//
//   cws::hint(a, lo, hi)                 elements [lo, hi) of a cws::numa::array
//   cws::hints(cws::hint(a, lo, hi), cws::hint(b, lo, hi))   several
//
// A hint remembers the array's region, so its home is found in O(1) per
// hint, with no lookup: home_of() below. Spawning with hints is in touch.hpp.

#include <array>
#include <cstddef>
#include <span>
#include <type_traits>

#include "cws/numa.hpp"

namespace cws {

// A range a spawned task will touch, and the registered allocation it lies in
// (nullptr: unknown, e.g. memory cws did not allocate; such a hint has no home).
struct touch_hint {
  const void* begin = nullptr;
  std::size_t bytes = 0;
  const numa::region* region = nullptr;
};

// Elements [lo, hi) of `a` (clamped to a.size()).
template <class T>
touch_hint hint(const numa::array<T>& a, std::size_t lo, std::size_t hi) noexcept {
  if (hi > a.size()) hi = a.size();
  if (lo > hi) lo = hi;
  return {a.data() + lo, (hi - lo) * sizeof(T), a.memory()};
}

// Several hints for one spawn.
template <class... H>
std::array<touch_hint, sizeof...(H)> hints(const H&... h) noexcept {
  static_assert((std::is_same_v<H, touch_hint> && ...), "cws::hints takes cws::hint(...) values");
  return {h...};
}

// Where hinted data lives, as find_place needs it.
struct hint_home {
  enum class kind : unsigned char {
    none,   // no home: no hint, an empty range, first-touch or unregistered memory
    node,   // on one NUMA node, `numa_node`
    spans,  // on several nodes
  };
  kind what = kind::none;
  unsigned numa_node = 0;  // logical NUMA node (kind::node only)
  friend bool operator==(const hint_home&, const hint_home&) = default;
};

// The home of one hint: block-cyclic ranges compare the node of their first
// and last byte (one node, or spans); interleaved ranges are on their page's
// node within one page and span from two pages on; on_node(v) ranges are on
// v; first-touch, unregistered and empty ranges have none. O(1).
hint_home home_of(const touch_hint& h) noexcept;

// The home of several hints (the PufferFish paper's rule): hints without a
// home are ignored; when more than half of the others span nodes, the home
// spans; otherwise it is the node holding the most pages of the single-node
// hints (ties: `own_numa` when it is among them, else the lowest node).
hint_home home_of(std::span<const touch_hint> hints, unsigned own_numa) noexcept;

}  // namespace cws
