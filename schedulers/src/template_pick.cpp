#include "template_pick.hpp"

#include <utility>

#include "cws/schedulers/knobs.hpp"

namespace cws::schedulers::detail {

template_pick::verdict template_pick::offer(std::shared_ptr<const steal_tree::tree> fresh, const load_balance& balance,
                                            bool balanced, bool helper_absent, std::uint64_t run,
                                            unsigned bound) {
  if (balanced || bound <= 1) {
    reset();
    return {std::move(fresh), run, balance, false};
  }
  const bool counted = !helper_absent || ++absent_ > absent_allowance;
  if (counted) ++tries_;
  if (!best_tree_ || replay_knobs::more_balanced(balance.idle_workers, balance.max_over_fair, best_.idle_workers,
                                                 best_.max_over_fair)) {
    best_tree_ = std::move(fresh);
    best_ = balance;
    best_run_ = run;
  }
  if (tries_ < bound) {
    verdict keep_recording;
    keep_recording.counted = counted;
    return keep_recording;
  }
  verdict v{std::move(best_tree_), best_run_, best_, true};
  reset();
  return v;
}

void template_pick::reset() noexcept {
  best_tree_.reset();
  best_ = {};
  best_run_ = 0;
  tries_ = 0;
  absent_ = 0;
}

}  // namespace cws::schedulers::detail
