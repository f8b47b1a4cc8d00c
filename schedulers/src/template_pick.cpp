#include "template_pick.hpp"

#include <algorithm>
#include <utility>

#include "cws/schedulers/knobs.hpp"
#include "balanced_cuts.hpp"

namespace cws::schedulers::detail {

std::uint64_t template_pick::extra_steals_of(const steal_tree::tree& t) noexcept {
  const std::uint64_t steals = steals_of(t);
  const std::uint64_t needed = t.workers > 0 ? t.workers - 1 : 0;
  return steals > needed ? steals - needed : 0;
}

std::optional<steal_tree::tree> template_pick::fewer_steals(const steal_tree::tree& t, const replay_knobs& knobs,
                                                            std::span<const double> busy) {
  // Strictly fewer: of cuts with as many steals, the shallowest (listed first) stays.
  std::optional<steal_tree::tree> best;
  std::uint64_t fewest = steals_of(t);
  const std::vector<std::uint32_t> levels = steal_levels(t);
  for (balanced_cut& c :
       busy.empty() ? balanced_cuts(t, levels, knobs) : cuts_balanced_in_time(t, levels, busy, prune_slack))
    if (const std::uint64_t n = steals_of(c.tree); n < fewest) {
      fewest = n;
      best = std::move(c.tree);
    }
  return best;
}

std::vector<double> template_pick::busy_of(const phase_stats& r) {
  std::vector<double> busy(r.per_worker.size());
  for (std::size_t w = 0; w < busy.size(); ++w) busy[w] = busy_s(r.per_worker[w], r.wall_s);
  return busy;
}

template_pick::verdict template_pick::offer(std::shared_ptr<const steal_tree::tree> fresh, const load_balance& balance,
                                            bool balanced, bool counts_balanced, bool helper_absent, std::uint64_t run,
                                            unsigned bound, std::uint64_t recorded_steals) {
  const std::uint64_t extra = balanced && fresh ? extra_steals_of(*fresh) : 0;
  if (fresh && recorded_steals == 0) recorded_steals = steals_of(*fresh);
  if (bound <= 1 || (balanced && counts_balanced && extra == 0)) {
    reset();
    return {std::move(fresh), run, balance, false, true, balanced, extra, recorded_steals};
  }
  const bool counted = !helper_absent || ++absent_ > absent_allowance;
  if (counted) ++tries_;
  if (beats_best(balanced, extra, balance)) {
    best_tree_ = std::move(fresh);
    best_ = balance;
    best_balanced_ = balanced;
    best_run_ = run;
    best_recorded_steals_ = recorded_steals;
  }
  if (tries_ < bound) {
    verdict keep_recording;
    keep_recording.counted = counted;
    return keep_recording;
  }
  const std::uint64_t best_extra = best_balanced_ ? extra_steals_of(*best_tree_) : 0;
  verdict v{std::move(best_tree_), best_run_, best_, true, counted, best_balanced_, best_extra, best_recorded_steals_};
  reset();
  return v;
}

bool template_pick::beats_best(bool balanced, std::uint64_t extra, const load_balance& balance) const noexcept {
  if (!best_tree_) return true;
  if (balanced != best_balanced_) return balanced;
  if (balanced) {
    const std::uint64_t best_extra = extra_steals_of(*best_tree_);
    if (extra != best_extra) return extra < best_extra;
  }
  return replay_knobs::more_balanced(balance.idle_workers, balance.busy_over_fair, best_.idle_workers,
                                     best_.busy_over_fair);
}

void template_pick::reset() noexcept {
  best_tree_.reset();
  best_ = {};
  best_balanced_ = false;
  best_run_ = 0;
  best_recorded_steals_ = 0;
  tries_ = 0;
  absent_ = 0;
}

}  // namespace cws::schedulers::detail
