#include "cws/schedulers/tree_pool.hpp"

namespace cws::schedulers {

std::shared_ptr<const steal_tree::tree> tree_pool::share(const steal_tree::tree& t, std::size_t limit) {
  for (const std::shared_ptr<steal_tree::tree>& p : trees_)
    if (p.use_count() == 1) {  // released by everyone else: rewrite it in place
      steal_tree::assign_tree(*p, t, spares_);
      return p;
    }
  auto p = std::make_shared<steal_tree::tree>(t);
  if (trees_.size() < limit) trees_.push_back(p);
  return p;
}

std::size_t tree_pool::bytes() const noexcept {
  std::size_t n = trees_.capacity() * sizeof(trees_[0]) + steal_tree::spare_bytes(spares_);
  for (const auto& p : trees_) n += sizeof(steal_tree::tree) + steal_tree::tree_bytes(*p);
  return n;
}

}  // namespace cws::schedulers
