#pragma once
// Dynamic coarsening (SC14; DESIGN §4): prune a fine-grained steal tree so
// that a replay (STUWS) hands over fewer, larger pieces of work.
//
//   cws::steal_tree::coarsen_summary s;
//   tree coarse = cws::steal_tree::coarsen(recorded, {.max_level = 4, .min_tasks = 1000}, &s);
//
// Two criteria select steals to drop; either may be left unset:
//   max_level  drop every steal point whose level is deeper than L (level > L;
//              max_level = 0 drops every steal);
//   min_tasks  drop every steal whose stolen subtree -- the stolen segment
//              plus every segment stolen out of it, recursively -- ran fewer
//              than N tasks (N = 0 or 1 drops nothing by this criterion).
// Both are evaluated on the input tree: a subtree's task count does not
// change when steals inside it are dropped (the work moves, it is not lost).
//
// Correctness rule: a dropped steal takes the deeper steals of its segment along
// ------------------------------------------------------------------------------
// Steal points name tasks by (level, step) *inside their segment*, and steps
// are counted per segment and per level (DESIGN §3). A stolen task's
// descendants are counted in the thief's segment, not in the segment they
// were stolen from. Suppose segment S recorded a steal of the task at
// (L, s) and we drop it: in the replay that task runs locally in S, and every
// spawn of its subtree is now counted in S, at levels > L, taking step numbers
// there. All of S's later step numbers at those levels shift, so any other
// steal point of S at a level > L may name a different task than the one it
// named in the recording. Therefore dropping a steal at level L from S also
// drops every other steal of S at a level > L. Steals of S at levels <= L
// are unaffected: the dropped task itself was spawned by S at level L and
// took step s there whether it was stolen or not, and nothing at levels
// <= L is spawned by its subtree. With each dropped steal goes the whole
// subtree of segments stolen out of it, recursively (their points are named
// relative to a segment that no longer exists). A kept segment's own steal
// points are unaffected by anything dropped in its ancestors: they are named
// relative to its own root, and its own (level, step) in its parent is at a
// level <= the parent's cut.
//
// So, per kept segment S with a steal dropped by the criteria: let L be the
// smallest level of such a steal; S keeps its steals at levels < L and those
// at level L that the criteria keep, and drops the rest.
//
// The result is a well-formed tree in the layout the recorder produces
// (recorder.hpp): segments in pre-order of the steal tree, segments[0] the
// root, siblings (and each `steals` list) sorted by (level, step), `child`
// and `parent` indices renumbered; each kept segment's `tasks` grows by the
// tasks of the subtrees dropped out of it (they would have run there, so the
// total is preserved), its time stamps and worker are unchanged;
// worker_segments is the input's, filtered to the kept segments and
// renumbered, keeping each worker's start order; kept steals keep their
// pedigrees (ranks do not depend on what else was stolen); `workers` is
// unchanged unless options.workers is set;
// `audit` is cleared (its (level, step) names refer to the recorded steal
// points, which no longer hold).
//
// The input must be a consistent tree (as recorded, or as
// cws::traces::validate accepts, audit records aside): segments[0] the root
// (no parent), every steal_point naming a segment whose parent, (level, step)
// and worker match it, every segment reachable from the root exactly once,
// every worker < tree::workers. A tree that is not throws cws::error. The
// steal lists need not be sorted. An empty tree (no segments) is returned as
// is (audit cleared).

#include <cstdint>
#include <optional>

#include "cws/steal_tree/tree.hpp"

namespace cws::steal_tree {

struct coarsen_options {
  std::optional<std::uint32_t> max_level;  // drop steals at level > max_level
  std::uint64_t min_tasks = 0;             // drop steals whose stolen subtree ran fewer tasks
  // Re-planning for fewer workers: drop every steal by a thief >= workers;
  // the result is a tree for that many workers (must be >= 1 and <= the input's).
  std::optional<std::uint32_t> workers;
};

// What coarsen() did. Every steal of the input is either kept or dropped for
// exactly one reason, checked in this order:
//   dropped_level   deeper than max_level;
//   dropped_small   its stolen subtree ran fewer than min_tasks tasks;
//   dropped_deeper  none of those, but deeper than a dropped steal of the same
//                   segment (the correctness rule above);
//   dropped_inside  a steal out of a segment inside a dropped subtree;
//   dropped_workers (checked first) its thief is not among `workers`.
// steals_before - steals_after == the sum of the four.
struct coarsen_summary {
  std::uint64_t segments_before = 0;
  std::uint64_t segments_after = 0;
  std::uint64_t steals_before = 0;  // segments other than the root
  std::uint64_t steals_after = 0;
  std::uint64_t dropped_level = 0;
  std::uint64_t dropped_small = 0;
  std::uint64_t dropped_deeper = 0;
  std::uint64_t dropped_inside = 0;
  std::uint64_t dropped_workers = 0;
  std::uint64_t steals_dropped() const noexcept { return steals_before - steals_after; }
  friend bool operator==(const coarsen_summary&, const coarsen_summary&) = default;
};

// The pruned tree (see above). If `summary` is given, it receives what was
// dropped. Throws cws::error for a malformed input tree.
tree coarsen(const tree& t, const coarsen_options& options, coarsen_summary* summary = nullptr);

}  // namespace cws::steal_tree
