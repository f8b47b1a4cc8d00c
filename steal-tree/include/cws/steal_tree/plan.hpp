#pragma once
// The planner: a balanced template built from a recorded tree, for machines
// whose own runs never show one (more workers than free cores: some workers
// never get the CPU while the others steal everything).
//
//   cws::steal_tree::plan_summary s;
//   tree t = cws::steal_tree::plan(audited_run.steals, {.worker_order = by_node}, &s);
//   // s.after.max_share_ratio, s.after.idle_workers, s.steals_after, s.method
//
// Input: a recorded tree WITH audit records (runtime_config::audit,
// CWS_AUDIT=1): one audit_record per executed task, which gives the whole
// spawn tree (parent links), every task's recorded segment and its
// (level, step) in the segment that spawned it. Output: a well-formed tree in
// the layout the recorder produces (segments in pre-order, segments[0] the
// root, steal lists sorted by (level, step), each steal's pedigree filled in,
// worker_segments in start order) whose steals hand every worker about 1/P of
// the tasks. Two methods:
//
// split_serial -- the recording has one segment (a serial audit run, e.g.
//   stows with a root-only template: every task on worker 0). Its tasks, in
//   the order that segment ran them, are cut into P consecutive chunks of
//   (nearly) equal task counts. That order is a depth-first order (a task's
//   descendants run right after it), so each chunk is a few whole subtrees
//   and every subtree a chunk does not finish holds the next chunks. For a
//   parallel_for it is the order of the leaves (bisection spawns the halves
//   and runs the last range itself; the deque then pops the latest half
//   first), from the highest index down: each worker gets one contiguous
//   range of leaves, like OpenMP `static`. The first chunk holds the phase
//   root and stays with the root's worker; chunk k > 0 goes to the k-th other
//   worker of `worker_order` (sort workers by NUMA node there so that
//   neighbouring ranges share a node). A task whose chunk differs from its
//   parent's starts a new segment: a steal out of its parent's segment.
//
// carve -- several recorded segments (a parallel audit run): every recorded
//   steal is kept (merging segments would impose orders nobody recorded)
//   and steals are only added: while the tree is not balanced
//   (is_balanced(tolerance)), a subtree of a busiest worker's segment moves
//   to an idle worker, else to a light one (below 1/P; first the nearest in
//   `worker_order`), the subtree whose size best fits what both sides need.
//   It stops when balanced or when no subtree can move (a worker never
//   takes a segment out of its own, nor gets a subtree that holds a steal of
//   its own).
//
// Naming (both methods; see coarsen.hpp for why dropping or adding a steal
// renumbers steps). A segment's local execution order does not change when
// subtrees are carved out of it: they are simply not run there. So, per
// planned segment P: a task it spawns is named (level, step) with level = its
// depth minus the depth of P's root task, and step = its rank among the
// tasks P spawns at that level, ordered by their recorded steps (all of them
// were spawned in the one recorded segment P was cut from, at one depth, so
// their recorded steps give their spawn order). Pedigrees: the ranks of the
// stolen task and its ancestors below P's root among their parents' spawns
// (schedule-independent, from the audit). segment::tasks counts the tasks
// each planned segment runs.
//
// Start order. A planned segment's start_ns / end_ns are estimates: the
// recorded segment's span, split in proportion to the positions of the
// segment's first and last tasks in the order the recorded segment ran them.
// worker_segments lists each worker's segments by those estimates, which for
// split_serial is the recorded serial order: the order in which a replay
// reaches them, so stows can follow it. For carve, segments cut from
// different recorded segments are ordered by estimated time: stuws and relws
// (evolve) ignore that order; stows follows it and declares a divergence if
// a wrong estimate makes every worker wait.
//
// Throws cws::error naming the problem (one line, prefixed "plan: ") when
// the tree has no audit records, when they do not describe one spawn tree
// consistent with the segments (counts, levels, parents, duplicate names:
// e.g. a replay with serial elision, whose elided calls have no record), or
// for bad options.

#include <cstdint>
#include <string_view>
#include <vector>

#include "cws/steal_tree/balance.hpp"
#include "cws/steal_tree/tree.hpp"

namespace cws::steal_tree {

// The tolerance evolve and the planner use unless told otherwise: the
// busiest worker may hold 10 % more than the fair share 1/P.
inline constexpr double default_balance_tolerance = 1.10;

struct plan_options {
  // The order in which workers take consecutive chunks (split_serial) and
  // how near two workers are (carve): a permutation of 0..P-1, e.g. workers
  // sorted by NUMA node. Empty: 0, 1, ..., P-1.
  std::vector<std::uint32_t> worker_order;
  // Balanced means every worker owns work and max_share_ratio <= tolerance.
  double tolerance = default_balance_tolerance;
  // Workers of the plan (P); 0: the recording's. A serial recording can be
  // planned for any count; a parallel one for at least the workers it used.
  std::uint32_t workers = 0;
  // Keep the audit records, relabelled with the planned segments and names
  // (what a replay of the plan would record): for checks (validation, exact
  // schedule_distance against a replay). Off: the plan has no audit records.
  bool keep_audit = false;
};

enum class plan_method {
  split_serial,  // one recorded segment cut into P chunks
  carve,         // recorded steals kept, subtrees of busy segments carved out
};
// "split_serial" | "carve".
std::string_view to_string(plan_method m) noexcept;

struct plan_summary {
  plan_method method = plan_method::split_serial;
  std::uint64_t steals_before = 0;  // the recording's steals (segments - 1)
  std::uint64_t steals_after = 0;   // the plan's
  balance before;                   // balance_of(recorded), on the plan's worker count
  balance after;                    // balance_of(plan)
  bool balanced = false;            // is_balanced(after, tolerance)
};

// The planned tree (see above). Throws cws::error.
tree plan(const tree& recorded, const plan_options& options = {}, plan_summary* summary = nullptr);

}  // namespace cws::steal_tree
