#pragma once
// The coarsenings of a recorded tree that still pass the balance rule: shared
// by the two searches for a template with fewer steals, the template pick's
// pruning of a balanced random run (template_pick::fewer_steals) and the
// `coarsen` policy's choice of depths to time (coarsen_search::start), so
// that both cut a tree, and judge the cut, the same way.

#include <cstddef>
#include <cstdint>
#include <limits>
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

}  // namespace cws::schedulers::detail
