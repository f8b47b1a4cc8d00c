#pragma once
// Shared, immutable steal trees (templates, previous runs) made without
// allocating in steady state. A policy that records a new template every run
// (relws, evolve before it converges) copies the recorded tree each time; the
// pool hands out a tree nobody holds any more (use count 1: only the pool)
// and overwrites it in place, so its vectors keep their capacity
// (steal_tree::assign_tree). A tree still held — by a schedule, a compiled
// plan, a caller that kept a template — is never touched: the pool only
// counts references, between phases, on the thread that runs them.

#include <cstddef>
#include <memory>
#include <vector>

#include "cws/steal_tree/tree.hpp"
#include "cws/steal_tree/tree_storage.hpp"

namespace cws::schedulers {

class tree_pool {
 public:
  // A shared copy of `t`. Pools at most `limit` trees: past that (many trees
  // held at once), the copy is a new tree the pool does not keep.
  std::shared_ptr<const steal_tree::tree> share(const steal_tree::tree& t, std::size_t limit);

  std::size_t size() const noexcept { return trees_.size(); }
  bool holds(const steal_tree::tree* t) const noexcept {
    for (const auto& p : trees_)
      if (p.get() == t) return true;
    return false;
  }
  // Bytes held by the pooled trees and spare steal lists.
  std::size_t bytes() const noexcept;

 private:
  std::vector<std::shared_ptr<steal_tree::tree>> trees_;
  steal_tree::steal_spares spares_;
};

}  // namespace cws::schedulers
