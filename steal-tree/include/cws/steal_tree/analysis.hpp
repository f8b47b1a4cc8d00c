#pragma once
// Analyses on steal trees: totals, per-worker load, the task -> worker
// mapping, the schedule distance between two runs of a phase, and a text
// rendering.
//
// The functions accept recorded and hand-built trees. They rely only on
// segments[0] being the root segment and on the `parent`, `level`, `step`,
// `worker` and `tasks` fields of the segments (plus `audit` where stated);
// they do not rely on the order of the other segments nor on the `steals`
// lists (children are found through the parent links).
// A tree whose parent links do not lead back to segments[0] (an out-of-range
// parent, a cycle) makes them throw cws::error.
//
// Naming tasks without recording them
// -----------------------------------
// Inside a segment, a task is named by (level, step) (DESIGN §3): level = its
// spawn depth relative to the segment's root task (the root has level 0, its
// children level 1, ...), step = its index among the segment's spawns at that
// level. A segment in turn is named by its *path*: the (level, step) points at
// which the chain of steals from the root segment down to it took place,
// e.g. {} for the root segment, {(1,0)} for the segment that stole the root
// segment's first child, {(1,0), (3,2)} for a segment stolen out of that one.
//
// A task is then named by task_path{segment, task}: the path of the segment
// that *spawned* it, and its (level, step) there. The phase root is
// task_path{{}, {0, 0}}; more generally {P, {0, 0}} is the root task of the
// segment at path P (the same task as {P minus its last point, that point}).
// The tree does not record which tasks exist, only where steals happened:
// worker_of() answers for any name whose spawning segment is in the tree; a
// (level, step) the program never spawned is indistinguishable from one that
// ran locally.
//
// These names are relative to the steal points of their run: a steal removes
// a subtree from the step counting of the segment it leaves (its spawns are
// counted in the thief's segment instead), so one task may carry different
// names in two runs with different steals. Equal names denote the same task
// when the runs have the same steal points (replays of one template), not in
// general. The schedule-independent name of a task is its *spawn path*: the
// rank of every task on the chain from the phase root down to it among its
// parent's spawns. Only audit mode records what it takes (audit_record::parent);
// see spawn_path() and the exact mode of schedule_distance().

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cws/steal_tree/tree.hpp"

namespace cws::steal_tree {

// ---------------------------------------------------------------- totals

struct totals {
  std::uint64_t tasks = 0;     // sum of segment::tasks
  std::uint64_t steals = 0;    // segments other than the root (each began with a steal or hand-over)
  std::uint64_t segments = 0;  // segments.size()
  std::uint32_t depth = 0;     // deepest segment nesting in the tree: root = 1, a child of the root = 2, ...;
                               // 0 for an empty tree
  friend bool operator==(const totals&, const totals&) = default;
};
totals summarize(const tree& t);

// Tasks executed per worker (size: max(t.workers, 1 + highest worker seen)).
std::vector<std::uint64_t> tasks_per_worker(const tree& t);

// ---------------------------------------------------------------- naming

struct position {
  std::uint32_t level = 0;
  std::uint32_t step = 0;
  friend auto operator<=>(const position&, const position&) = default;
};

struct task_path {
  std::vector<position> segment;  // steal points from the root segment to the spawning segment
  position task;                  // the task's (level, step) in that segment
  friend bool operator==(const task_path&, const task_path&) = default;
};

inline constexpr std::uint32_t no_segment_index = ~std::uint32_t{0};

// Look-ups by path on one tree. Building it validates the tree and costs
// O(segments log segments); a look-up costs O(path length * log fan-out).
// The free functions below build one per call: use an index for many queries.
// The index refers to `t`, which must outlive it and stay unchanged.
class tree_index {
 public:
  explicit tree_index(const tree& t);

  // The child of segment `seg` taken at `at`, or no_segment_index.
  std::uint32_t child(std::uint32_t seg, position at) const;
  // The children of segment `seg`, sorted by (level, step).
  std::span<const std::uint32_t> children(std::uint32_t seg) const;
  // The segment at `path`, or no_segment_index.
  std::uint32_t find(const std::vector<position>& path) const;
  // The path of segment `seg` (its steal points from the root, outermost first).
  std::vector<position> path(std::uint32_t seg) const;
  // Nesting depth of segment `seg` in the tree (root = 1).
  std::uint32_t depth(std::uint32_t seg) const { return depth_.at(seg); }
  // See worker_of() below.
  std::uint32_t worker_of(const task_path& p) const;
  // See path_of_task() below.
  task_path path_of_task(const audit_record& r) const;

 private:
  const tree* t_;
  std::vector<std::uint32_t> depth_;
  std::vector<std::uint32_t> first_;  // children of s: kids_[first_[s] .. first_[s + 1])
  std::vector<std::uint32_t> kids_;   // sorted by (level, step, index)
};

// The path of segment `index` (its steal points from the root, outermost first).
std::vector<position> path_of_segment(const tree& t, std::uint32_t index);
// The segment at `path`, or no_segment_index if the tree has none.
std::uint32_t find_segment(const tree& t, const std::vector<position>& path);
// The name of an audited task: its spawning segment's path and its (level,
// step) there; the phase root (spawn_segment == no_parent) is {{}, {0, 0}}.
task_path path_of_task(const tree& t, const audit_record& r);

// The worker that ran task `p`: if the spawning segment S (found by path)
// recorded a steal at p.task, the worker of the segment that steal started;
// otherwise S's own worker (the task ran locally in S, or p.task is (0, 0),
// S's root). Returns no_segment_index (~0u) when the tree has no segment at
// p.segment.
std::uint32_t worker_of(const tree& t, const task_path& p);

// The spawn path of audited task t.audit[index]: for each task on the chain
// from the phase root down to it (root excluded), its rank among its parent's
// spawns (0 = the parent's first spawn; siblings are ordered by (level, step),
// which is their spawn order). {} for the phase root. Needs the audit's parent
// links; costs O(audit size * depth) (schedule_distance does it in bulk).
// Throws cws::error for an index out of range or broken parent links.
std::vector<std::uint32_t> spawn_path(const tree& t, std::uint32_t index);

// ---------------------------------------------------------------- distance

// Schedule distance between two trees of the same phase (two runs of the same
// program on the same input), for `cws-trace diff`:
//
//   moved_worker  share of the work that ran on a different worker in b than in a;
//   moved_node    share of the work that ran on a different NUMA node, where
//                 node_of_worker[w] is the node of worker w (the same map is
//                 used for both trees);
//   work          the amount of work the shares are relative to: the number
//                 of tasks of a (audit records in exact mode, the sum of
//                 segment::tasks otherwise; equal to b's for the same phase);
//   exact         true when the comparison was task by task (exact mode).
//
// Exact mode (both trees carry audit data with parent links: a non-empty
// audit in which only the phase root has parent == no_parent): every task is
// keyed by its spawn path (spawn_path(), schedule-independent). A task of a is
// unmoved when b has a task with the same spawn path on the same worker (resp.
// on a worker of the same node). d(a -> b) = moved tasks of a / tasks of a.
// For two runs of the same deterministic program this is the true share of
// tasks that moved, whatever the steal points of either run.
//
// Segment mode (otherwise): each segment of a weighs its `tasks`, and counts
// as unmoved when b has a segment with the same path (same chain of (level,
// step) steal points from the root) on the same worker (resp. on a worker of
// the same node). d(a -> b) = weight of moved segments / total weight of a.
// (If every segment of a weighs 0, each weighs 1 instead.) This equals the
// exact share when both runs have the same steal points (then each path
// names the same tasks in both); otherwise it is an approximation, since a
// steal point names a task relative to the other steals of its run (see
// "Naming" above), hence exact = false.
//
// Both: the result is symmetrized, moved = (d(a -> b) + d(b -> a)) / 2, so it
// is 0 for identical trees (and for trees that differ only in time stamps and
// segment order), 1 when every task (segment) moved, and distance(a, b) ==
// distance(b, a) except for `work`. Two empty trees are at distance 0; an
// empty tree is at distance 1 from a non-empty one. If a segment path occurs
// twice in a tree (never in a recorded one) its first occurrence (lowest
// index) counts and the others count as moved.
//
// Throws cws::error when a worker of either tree is not covered by
// node_of_worker, or when a tree is malformed (see the top of this file; in
// exact mode also: an audit record whose parent or spawn segment is out of
// range, or parent links that form a cycle).
struct distance {
  double moved_worker = 0;
  double moved_node = 0;
  std::uint64_t work = 0;
  bool exact = false;
};
distance schedule_distance(const tree& a, const tree& b, const std::vector<std::uint32_t>& node_of_worker);

// Scratch arrays of schedule_distance, kept by a caller that compares trees
// again and again (the replaying policies compare every run with the previous
// one): in segment mode, trees no larger than ones compared before then cost
// no allocation. Exact mode (audit data) still allocates. The contents mean
// nothing between calls.
struct distance_workspace {
  std::vector<std::uint32_t> depth, chain, order, count, ids_a, ids_b, worker_in_b, seen;
  // Open-addressing path table: {parent path id, level, step, id}, a free
  // slot has parent == ~0.
  std::vector<std::array<std::uint32_t, 4>> table;
  std::size_t bytes() const noexcept;
};
// Same result, using (and growing) `ws`.
distance schedule_distance(const tree& a, const tree& b, const std::vector<std::uint32_t>& node_of_worker,
                           distance_workspace& ws);

// True when b ran the same schedule as a: the same workers and, segment by
// segment in the same order, the same worker, parent, (level, step) and
// outgoing steal points — two runs that differ at most in time stamps and
// task counts, so that schedule_distance(a, b) is 0. False when either
// carries audit records (compare those with schedule_distance). O(segments +
// steals), no allocation: what a replaying policy checks after every run
// before it pays for a distance or a copy of the tree.
bool same_steals(const tree& a, const tree& b) noexcept;

// ---------------------------------------------------------------- rendering

// Indented text rendering for `cws-trace show`: a summary line, one line per
// worker (segments, tasks, busy time), then the steal tree, one segment per
// line, children indented under their parent in (level, step) order:
//
//   steal tree: 2 workers, 3 segments, 2 steals, 1000 tasks, depth 3
//   worker 0: 1 segment, 600 tasks, busy 1.234 ms
//   worker 1: 2 segments, 400 tasks, busy 1.100 ms
//   #0 worker 0, root, 600 tasks, 0.000-1.234 ms
//     #1 worker 1, taken at (1,0), 300 tasks, 0.010-1.000 ms
//       #2 worker 0, taken at (3,1), 100 tasks, 0.200-0.500 ms
std::string describe(const tree& t);

}  // namespace cws::steal_tree
