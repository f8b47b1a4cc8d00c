#pragma once
// PufferFish's scheduling on the place tree (place_tree.hpp), shared by the
// `hinted` and `hinted-hpt` policies and by `evolve-hinted`'s first run.
//
// Routing (place_for, on the spawning worker w of node n, leaf L):
//   hints span nodes          -> the root place
//   hints on node m != n      -> node m's place (m has workers)
//   hints on n                -> w's own deque, or at once (HET, below)
//   no home (first touch, ...) -> w's own deque
//
// Stealing (find_work, one pass):
//   1. the other workers of L, rotated after w;
//   2. all failed: clear L's HET flag;
//   3. n's place: what workers of other nodes placed there, rotated;
//   4. (hinted only) the sibling leaves of n, rotated after L;
//   5. the root place of every other worker, rotated;
//   6. (CWS_HINTED_RELAXED only) every other node's workers and places.
// Without step 6, nodes exchange work only through the root, as in
// PufferFish. hinted-hpt (HClib's HPT_DA) has no step 4 and no HET.
//
// Hierarchical elastic tasks (HET, hinted only, CWS_HINTED_HET): one flag
// per leaf, set (0 -> 1) by a worker whose own deque holds more than
// CWS_HINTED_HET_LIMIT tasks when it pushes a node-local hinted task, and
// cleared by any worker of the leaf whose pass over its peers failed. While
// set, node-local hinted spawns of the leaf run at once as children.
//
// Who touches what: the flags are relaxed atomics, each on its own cache
// line, read and written by the leaf's workers (a stale read only delays an
// elision or a push by one spawn). Everything else is read-only during a phase.

#include <atomic>
#include <cstdint>
#include <memory>

#include "cws/schedulers/knobs.hpp"
#include "cws/place_tree.hpp"
#include "cws/policy.hpp"

namespace cws::schedulers::detail {

enum class hinted_mode {
  pufferfish,  // `hinted`: sibling leaves, HET
  hpt,         // `hinted-hpt`: leaf -> node -> root, no HET
};

class hinted_engine {
 public:
  // Before the first phase; `places` outlives the engine.
  void attach(const place_tree& places, const hinted_knobs& knobs, hinted_mode mode);

  place_target place_for(worker_view& view, const hint_home& home);
  task_handle find_work(worker_view& view);

  // The HET flag of leaf index `leaf` (tests, reports).
  bool het_flag(unsigned leaf) const noexcept { return het_[leaf].set.load(std::memory_order_relaxed) != 0; }

 private:
  task_handle steal_leaf(worker_view& view, unsigned leaf, unsigned self) const;
  task_handle steal_node_place(worker_view& view, unsigned node, unsigned self) const;

  const place_tree* places_ = nullptr;
  hinted_knobs knobs_;
  hinted_mode mode_ = hinted_mode::pufferfish;
  bool het_on_ = false;
  struct alignas(64) het_flag_line {
    std::atomic<std::uint8_t> set{0};
  };
  std::unique_ptr<het_flag_line[]> het_;
};

}  // namespace cws::schedulers::detail
