#include "balanced_cuts.hpp"

#include <algorithm>
#include <utility>

#include "cws/schedulers/knobs.hpp"
#include "cws/steal_tree/balance.hpp"
#include "cws/steal_tree/coarsen.hpp"

namespace cws::schedulers::detail {

std::vector<std::uint32_t> steal_levels(const steal_tree::tree& t) {
  std::vector<std::uint32_t> levels;
  for (const steal_tree::segment& g : t.segments)
    for (const steal_tree::steal_point& p : g.steals) levels.push_back(p.level);
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  return levels;
}

std::vector<balanced_cut> balanced_cuts(const steal_tree::tree& t, const std::vector<std::uint32_t>& levels,
                                        const replay_knobs& knobs, std::size_t limit) {
  std::vector<balanced_cut> cuts;
  for (std::size_t i = 0; i + 1 < levels.size() && cuts.size() < limit; ++i) {
    steal_tree::coarsen_options cut;
    cut.max_level = levels[i];
    steal_tree::tree c = steal_tree::coarsen(t, cut);
    // idle_workers is checked on its own too: with the rule off (balance
    // 0), balanced() accepts anything, but a cut that leaves a worker
    // without a task would replay with that core unused.
    const steal_tree::balance b = steal_tree::balance_of(c);
    if (b.idle_workers == 0 && knobs.balanced(b.idle_workers, b.max_share_ratio))
      cuts.push_back({levels[i], std::move(c)});
  }
  return cuts;
}

}  // namespace cws::schedulers::detail
