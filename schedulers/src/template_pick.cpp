#include "template_pick.hpp"

#include <utility>

#include "cws/schedulers/knobs.hpp"

namespace cws::schedulers::detail {

std::uint64_t template_pick::extra_steals_of(const steal_tree::tree& t) noexcept {
  const std::uint64_t steals = t.segments.empty() ? 0 : t.segments.size() - 1;
  const std::uint64_t needed = t.workers > 0 ? t.workers - 1 : 0;
  return steals > needed ? steals - needed : 0;
}

template_pick::verdict template_pick::offer(std::shared_ptr<const steal_tree::tree> fresh, const load_balance& balance,
                                            bool balanced, bool helper_absent, std::uint64_t run,
                                            unsigned bound) {
  const std::uint64_t extra = balanced && fresh ? extra_steals_of(*fresh) : 0;
  if (bound <= 1 || (balanced && extra == 0)) {
    reset();
    return {std::move(fresh), run, balance, false, true, balanced, extra};
  }
  const bool counted = !helper_absent || ++absent_ > absent_allowance;
  if (counted) ++tries_;
  if (beats_best(balanced, extra, balance)) {
    best_tree_ = std::move(fresh);
    best_ = balance;
    best_balanced_ = balanced;
    best_run_ = run;
  }
  if (tries_ < bound) {
    verdict keep_recording;
    keep_recording.counted = counted;
    return keep_recording;
  }
  const std::uint64_t best_extra = best_balanced_ ? extra_steals_of(*best_tree_) : 0;
  verdict v{std::move(best_tree_), best_run_, best_, true, counted, best_balanced_, best_extra};
  reset();
  return v;
}

bool template_pick::beats_best(bool balanced, std::uint64_t extra, const load_balance& balance) const noexcept {
  if (!best_tree_) return true;
  if (balanced != best_balanced_) return balanced;
  if (balanced) return extra < extra_steals_of(*best_tree_);
  return replay_knobs::more_balanced(balance.idle_workers, balance.max_over_fair, best_.idle_workers,
                                     best_.max_over_fair);
}

void template_pick::reset() noexcept {
  best_tree_.reset();
  best_ = {};
  best_balanced_ = false;
  best_run_ = 0;
  tries_ = 0;
  absent_ = 0;
}

}  // namespace cws::schedulers::detail
