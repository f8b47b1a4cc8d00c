#pragma once
// A template compiled for replay: O(1) work per routed spawn.
//
// For every template segment, the steal points of each level form one run of
// its `steals` list (the list is sorted by (level, step)); level_begin gives
// each run's bounds, so a segment cursor is one index per level. For every
// worker, `order` is the sequence of template segments it starts (STOWS).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cws/policy.hpp"
#include "cws/steal_tree/tree.hpp"

namespace cws::schedulers::detail {

struct template_plan {
  std::shared_ptr<const steal_tree::tree> tree;
  // Per segment: steals of level l are steals[level_begin[l] .. level_begin[l + 1]).
  std::vector<std::vector<std::uint32_t>> level_begin;
  // Per worker: its template segments in start order.
  std::vector<std::vector<std::uint32_t>> order;
  // Serial elision: per segment, its steals' pedigrees as a trie (policy.hpp's
  // elision_node), elision[elision_begin[s] .. elision_begin[s + 1]); an
  // empty range when some steal of the segment has no pedigree (then that
  // segment replays with marks). Empty vectors when the tree has no pedigrees.
  std::vector<elision_node> elision;
  std::vector<std::uint32_t> elision_begin;
  // Whether the tree's time stamps say how its segments nested on each worker
  // (a recorded tree: on one worker, two segments are disjoint in time or one
  // ran inside the other while it waited in a sync). Hand-built trees and
  // trees with overlapping stamps say nothing: may_nest() then allows all.
  bool nesting_known = false;
  // Building storage of the tries, kept so that recompiling (relws: every run) does not allocate.
  std::vector<std::uint32_t> scratch_order, scratch_stack, scratch_last;

  // Whether a worker waiting in a sync inside template segment `outer` may
  // start template segment `inner` there. Only where the template did: a
  // segment the template ran after `outer` ended may need `outer`'s
  // continuation (its later spawns feed the orders of other workers), and
  // started on top of `outer` it would keep that continuation from running:
  // a strict replay would deadlock where the recorded run did not.
  //
  // Containment is not enough: `outer` may wait in several syncs, and the
  // template nested `inner` in one of them. Started at an earlier one, it
  // buries the same continuation. The stamps tell that sync apart: `outer`
  // resumed only once `inner` had ended, so a steal of `outer` whose segment
  // started before that end was made before that sync, and must already be
  // made here (`next`: the waiting cursor's next steal index per level). A
  // steal made before the sync whose segment started later fed nothing
  // `inner` waited for, and may come later here too.
  bool may_nest(std::uint32_t inner, std::uint32_t outer, std::span<const std::uint32_t> next) const noexcept {
    if (!nesting_known || outer == no_note) return true;
    const steal_tree::segment& i = tree->segments[inner];
    const steal_tree::segment& o = tree->segments[outer];
    if (i.start_ns < o.start_ns || o.end_ns < i.end_ns) return false;
    const std::vector<std::uint32_t>& runs = level_begin[outer];
    for (std::size_t level = 0; level < next.size(); ++level)
      for (std::uint32_t k = next[level]; k < runs[level + 1]; ++k)
        if (tree->segments[point(outer, k).child].start_ns < i.end_ns) return false;
    return true;
  }

  std::span<const elision_node> elision_of(std::uint32_t seg) const noexcept {
    if (seg + 1 >= elision_begin.size()) return {};
    return {elision.data() + elision_begin[seg], elision.data() + elision_begin[seg + 1]};
  }

  const steal_tree::steal_point& point(std::uint32_t seg, std::uint32_t i) const noexcept {
    return tree->segments[seg].steals[i];
  }
  unsigned thief(std::uint32_t seg, std::uint32_t i) const noexcept {
    return tree->segments[point(seg, i).child].worker;
  }
};

// A template recorded for another worker count (refused before a phase).
std::string worker_count_error(const steal_tree::tree& t, unsigned workers);

// Structural errors (a tree no replay can follow): indices out of range,
// unsorted steal lists, segments unreachable from the root. Empty when fine.
// Requires worker_count_error() to be empty.
// `scratch` is reused storage (its contents mean nothing): a policy checking
// a new template every run (relws) then allocates nothing when it is fine.
std::string structural_error(const steal_tree::tree& t, std::vector<std::uint32_t>& scratch);

// Soft errors: a well-formed tree that this program's replay cannot follow as
// written (a thief that does not own the segment it took, a worker "stealing"
// from itself, the root off worker 0, per-worker orders that disagree with
// the segments). Replay treats these as a divergence. Empty when fine.
std::string consistency_error(const steal_tree::tree& t, std::vector<std::uint32_t>& scratch);

// Requires structural_error(*t) to be empty.
std::shared_ptr<const template_plan> compile(std::shared_ptr<const steal_tree::tree> t);
// Same, written over `plan` (a plan no longer in use): its vectors keep their
// capacity, so a policy whose template changes every run (relws) compiles
// without allocating in steady state. level_begin may keep entries past the
// tree's segments (never read).
void compile_into(template_plan& plan, std::shared_ptr<const steal_tree::tree> t);

}  // namespace cws::schedulers::detail
