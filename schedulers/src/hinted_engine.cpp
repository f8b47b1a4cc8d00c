#include "hinted_engine.hpp"

namespace cws::schedulers::detail {

void hinted_engine::attach(const place_tree& places, const hinted_knobs& knobs, hinted_mode mode) {
  places_ = &places;
  knobs_ = knobs;
  mode_ = mode;
  het_on_ = mode == hinted_mode::pufferfish && knobs.het;
  het_ = std::make_unique<het_flag_line[]>(places.leaves());
}

place_target hinted_engine::place_for(worker_view& view, const hint_home& home) {
  if (home.what == hint_home::kind::spans) return {place_target::kind::root, 0};
  if (home.what == hint_home::kind::none) return {};
  const unsigned w = view.self();
  const unsigned node = places_->node_of_numa(home.numa_node);
  if (node == place_tree::no_node) return {};  // no worker runs there: an ordinary spawn
  if (node != places_->node_of_worker(w)) return {place_target::kind::node, node};
  if (het_on_) {
    std::atomic<std::uint8_t>& flag = het_[places_->leaf_of_worker(w)].set;
    if (flag.load(std::memory_order_relaxed) != 0) return {place_target::kind::inline_now, 0};
    if (view.backlog() > static_cast<std::int64_t>(knobs_.het_limit)) flag.store(1, std::memory_order_relaxed);
  }
  return {};
}

// One steal attempt from each other worker of leaf `leaf`, in rotated order
// starting after `self` (or at the leaf's first worker when self is not in it).
task_handle hinted_engine::steal_leaf(worker_view& view, unsigned leaf, unsigned self) const {
  const std::vector<unsigned>& members = places_->workers_of_leaf(leaf);
  const std::size_t n = members.size();
  std::size_t start = 0;
  while (start < n && members[start] != self) ++start;
  start = start < n ? start + 1 : 0;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned v = members[(start + i) % n];
    if (v == self) continue;
    if (task_handle t = view.steal(v)) return t;
  }
  return nullptr;
}

// What workers of other nodes placed on node `node`'s place, scanning them
// from self + 1 on, PufferFish's (id + i) mod P.
task_handle hinted_engine::steal_node_place(worker_view& view, unsigned node, unsigned self) const {
  const unsigned p = places_->workers();
  for (unsigned i = 1; i < p; ++i) {
    const unsigned v = (self + i) % p;
    if (places_->node_of_worker(v) == node) continue;  // a node never places on its own place
    if (task_handle t = view.steal_placed(v, node)) return t;
  }
  return nullptr;
}

task_handle hinted_engine::find_work(worker_view& view) {
  const unsigned w = view.self();
  const unsigned p = places_->workers();
  if (w >= p) return nullptr;  // a view of a runtime this tree was not built for
  const unsigned leaf = places_->leaf_of_worker(w);
  const unsigned node = places_->node_of_worker(w);

  if (task_handle t = steal_leaf(view, leaf, w)) return t;
  if (het_on_) het_[leaf].set.store(0, std::memory_order_relaxed);
  if (task_handle t = steal_node_place(view, node, w)) return t;
  if (mode_ == hinted_mode::pufferfish) {
    const std::vector<unsigned>& siblings = places_->leaves_of_node(node);
    const std::size_t n = siblings.size();
    std::size_t at = 0;
    while (at < n && siblings[at] != leaf) ++at;
    for (std::size_t i = 1; i < n; ++i)
      if (task_handle t = steal_leaf(view, siblings[(at + i) % n], w)) return t;
  }
  for (unsigned i = 1; i < p; ++i)
    if (task_handle t = view.steal_placed((w + i) % p, worker_view::root_place)) return t;
  if (knobs_.relaxed) {
    for (unsigned i = 1; i < p; ++i) {
      const unsigned v = (w + i) % p;
      const unsigned other = places_->node_of_worker(v);
      if (other == node) continue;
      if (task_handle t = view.steal(v)) return t;
      if (task_handle t = steal_node_place(view, other, w)) return t;
    }
  }
  return nullptr;
}

}  // namespace cws::schedulers::detail
