#pragma once
// Load balance of a recorded steal tree: how evenly its tasks spread over the
// workers. Deterministic (a count of tasks, not a time), so a template can be
// judged from its record alone: evolve's convergence rule, the planner's goal
// and `cws-trace info` all use it. (A strict replay picks its template from
// its own runs by their busy times, cws::load_balance::busy_over_fair: tasks
// of unequal cost are balanced in time by uneven counts.)
//
//   const cws::steal_tree::balance b = cws::steal_tree::balance_of(record.steals);
//   if (!cws::steal_tree::is_balanced(b, 1.10)) ...   // a worker idle, or one > 1.10 x 1/P
//
// (cws::balance_of in run_report.hpp measures the same from a run's per-worker
// statistics; this one needs only the tree, e.g. a template read from a file
// or built by the planner.)

#include <cstdint>
#include <vector>

#include "cws/steal_tree/tree.hpp"

namespace cws::steal_tree {

struct balance {
  // Tasks executed per worker: the sum of segment::tasks over its segments
  // (size: max(tree::workers, 1 + highest worker of a segment)).
  std::vector<std::uint64_t> tasks;
  std::uint64_t total = 0;
  // The busiest worker's share over the fair share: max_w tasks[w] * P / total.
  // 1.0 is perfect, P means one worker ran everything; 0 when total == 0.
  double max_share_ratio = 0;
  unsigned idle_workers = 0;  // workers with no task
  friend bool operator==(const balance&, const balance&) = default;
};

// O(segments). Reads only the segments' worker and tasks fields.
balance balance_of(const tree& t);
// The same from task counts per worker (P = tasks.size()).
balance balance_of(std::vector<std::uint64_t> tasks);

// Every worker ran a task and the busiest one's share is within `tolerance`
// times the fair share (max_share_ratio <= tolerance; e.g. 1.10). A tree with
// no task is not balanced (nobody owns work).
bool is_balanced(const balance& b, double tolerance) noexcept;

}  // namespace cws::steal_tree
