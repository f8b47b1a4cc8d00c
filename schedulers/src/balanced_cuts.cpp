#include "balanced_cuts.hpp"

#include <algorithm>
#include <numeric>
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

std::vector<double> busy_after_cut(const steal_tree::tree& t, std::uint32_t level, std::span<const double> busy) {
  if (busy.size() < t.workers) return {};
  std::vector<double> after(busy.begin(), busy.end());
  // owner[s]: the worker whose segment runs segment s's tasks after the cut
  // (its own when s is kept); pre-order puts every parent first.
  std::vector<std::uint32_t> owner(t.segments.size());
  std::vector<bool> kept(t.segments.size());
  for (std::size_t s = 0; s < t.segments.size(); ++s) {
    const steal_tree::segment& g = t.segments[s];
    if (g.worker >= after.size()) return {};
    if (s == 0 || g.parent == steal_tree::no_parent) {
      kept[s] = true;
      owner[s] = g.worker;
      continue;
    }
    if (g.parent >= s) return {};
    kept[s] = kept[g.parent] && g.level <= level;
    owner[s] = kept[s] ? g.worker : owner[g.parent];
    if (kept[s] || owner[s] == g.worker) continue;
    const double span = static_cast<double>(g.end_ns > g.start_ns ? g.end_ns - g.start_ns : 0) * 1e-9;
    after[g.worker] = std::max(0.0, after[g.worker] - span);
    after[owner[s]] += span;
  }
  return after;
}

std::vector<balanced_cut> cuts_balanced_in_time(const steal_tree::tree& t, const std::vector<std::uint32_t>& levels,
                                                std::span<const double> busy, double slack) {
  std::vector<balanced_cut> cuts;
  if (busy.empty()) return cuts;
  const double busiest = *std::max_element(busy.begin(), busy.end());
  const double total = std::accumulate(busy.begin(), busy.end(), 0.0);
  const double allowed = busiest + slack * total / static_cast<double>(busy.size());
  for (std::size_t i = 0; i + 1 < levels.size(); ++i) {
    const std::vector<double> after = busy_after_cut(t, levels[i], busy);
    if (after.empty() || *std::max_element(after.begin(), after.end()) > allowed) continue;
    steal_tree::coarsen_options cut;
    cut.max_level = levels[i];
    steal_tree::tree c = steal_tree::coarsen(t, cut);
    if (steal_tree::balance_of(c).idle_workers == 0) cuts.push_back({levels[i], std::move(c)});
  }
  return cuts;
}

}  // namespace cws::schedulers::detail
