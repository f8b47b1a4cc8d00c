#pragma once
// Rewriting a tree in place without allocating: the recorder writes each run
// over the run its window evicts, the schedule store copies recorded trees
// into pooled ones. Vector assignment keeps capacity, but a tree that shrinks
// destroys the steal lists of its dropped segments and one that grows later
// allocates new ones; a steal_spares parks the dropped lists so that growing
// takes them back. In steady state (trees no larger than ones seen before)
// nothing allocates.

#include <cstddef>
#include <vector>

#include "cws/steal_tree/tree.hpp"

namespace cws::steal_tree {

// Steal lists kept for reuse (cleared, with their capacity).
using steal_spares = std::vector<std::vector<steal_point>>;

// t.segments.resize(n), parking the steal lists of the segments dropped.
void resize_segments(tree& t, std::size_t n, steal_spares& spares);

// Empties s.steals and makes room for `n` steal points, from a parked list
// when its own storage is too small.
void prepare_steals(segment& s, std::size_t n, steal_spares& spares);

// dst = src, reusing dst's storage and the spares.
void assign_tree(tree& dst, const tree& src, steal_spares& spares);

// Bytes a tree's vectors hold (capacity, not size).
std::size_t tree_bytes(const tree& t) noexcept;

// Bytes held by the parked lists.
std::size_t spare_bytes(const steal_spares& spares) noexcept;

}  // namespace cws::steal_tree
