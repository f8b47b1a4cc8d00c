#include "template_pick.hpp"

#include <utility>

namespace cws::schedulers::detail {

namespace {

// Fewer idle workers first (an idle worker is a core the replay never uses),
// then the smaller busiest share.
bool more_balanced(const load_balance& a, const load_balance& b) noexcept {
  if (a.idle_workers != b.idle_workers) return a.idle_workers < b.idle_workers;
  return a.max_over_fair < b.max_over_fair;
}

}  // namespace

template_pick::verdict template_pick::offer(std::shared_ptr<const steal_tree::tree> fresh, const load_balance& balance,
                                            bool balanced, std::uint64_t run, unsigned bound) {
  ++tries_;
  if (balanced || bound <= 1) {
    reset();
    return {std::move(fresh), run, balance, false};
  }
  if (!best_tree_ || more_balanced(balance, best_)) {
    best_tree_ = std::move(fresh);
    best_ = balance;
    best_run_ = run;
  }
  if (tries_ < bound) return {};
  verdict v{std::move(best_tree_), best_run_, best_, true};
  reset();
  return v;
}

void template_pick::reset() noexcept {
  best_tree_.reset();
  best_ = {};
  best_run_ = 0;
  tries_ = 0;
}

}  // namespace cws::schedulers::detail
