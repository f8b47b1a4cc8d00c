#pragma once
// The coarsenings of a recorded tree that still pass the balance rule: shared
// by the two searches for a template with fewer steals, the template pick's
// pruning of a balanced random run (template_pick::fewer_steals) and the
// `coarsen` policy's choice of depths to time (coarsen_search::start), so
// that both cut a tree, and judge the cut, the same way.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "cws/steal_tree/tree.hpp"

namespace cws::schedulers {
struct replay_knobs;
}

namespace cws::schedulers::detail {

// The levels `t` steals at, ascending, each once.
std::vector<std::uint32_t> steal_levels(const steal_tree::tree& t);

struct balanced_cut {
  std::uint32_t level = 0;  // steal_tree::coarsen's max_level
  steal_tree::tree tree;    // `t` coarsened there
};

// `t` coarsened below each of `levels` (steal_levels(t)) but the deepest (a
// cut there drops nothing), shallowest first, keeping the cuts that give
// every worker a task and pass `knobs`' balance rule; stops after `limit` of
// them (the deeper cuts are then not even made). O(levels x segments).
std::vector<balanced_cut> balanced_cuts(const steal_tree::tree& t, const std::vector<std::uint32_t>& levels,
                                        const replay_knobs& knobs,
                                        std::size_t limit = std::numeric_limits<std::size_t>::max());

// Per worker, the busy seconds a cut of `t` below `level` (coarsen's
// max_level) would have had in the run `t` was recorded in: `busy` (that
// run's, per worker: run_report's wall_s less idle_s) with the span of each
// segment the cut drops moved from its worker to the worker of the kept
// segment its tasks fall back to. An estimate from the run's own times (a
// replay repeats the tasks, and so their costs): a dropped segment's span
// also counts its waits in syncs, so it errs toward keeping a steal. Empty
// when `t` is not in pre-order (a parent after its child) or `busy` has
// fewer entries than `t` has workers.
std::vector<double> busy_after_cut(const steal_tree::tree& t, std::uint32_t level, std::span<const double> busy);

// The cuts of `t` below each of `levels` but the deepest, shallowest first,
// that give every worker a task and whose estimated busiest worker
// (busy_after_cut) takes at most `slack` x the mean busy time longer than
// the run's own busiest: balanced in time, with no regard to task counts
// (the way to prune a run of tasks of unequal cost, whose balanced split is
// not an even count).
std::vector<balanced_cut> cuts_balanced_in_time(const steal_tree::tree& t, const std::vector<std::uint32_t>& levels,
                                                std::span<const double> busy, double slack);

}  // namespace cws::schedulers::detail
