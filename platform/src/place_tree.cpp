// The place tree built from the topology (place_tree.hpp). The XML loader is
// place_tree_xml.cpp; both finish through place_tree_builder::index().

#include "cws/place_tree.hpp"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "place_tree_builder.hpp"

namespace cws {

bool operator==(const place_tree::place& a, const place_tree::place& b) noexcept {
  return a.what == b.what && a.parent == b.parent && a.numa_node == b.numa_node && a.children == b.children &&
         a.workers == b.workers;
}

unsigned place_tree_builder::add(place_tree& t, place_tree::kind what, unsigned parent, unsigned numa) {
  const auto id = static_cast<unsigned>(t.places_.size());
  t.places_.push_back({what, parent, numa, {}, {}});
  if (id != place_tree::root) t.places_[parent].children.push_back(id);
  return id;
}

void place_tree_builder::index(place_tree& t, unsigned numa_nodes) {
  t.node_places_.clear();
  t.leaf_places_.clear();
  t.leaves_of_node_.clear();
  t.workers_of_node_.clear();
  t.node_of_numa_.assign(numa_nodes, place_tree::no_node);
  unsigned workers = 0;
  for (unsigned node_place : t.places_[place_tree::root].children) {
    const auto k = static_cast<unsigned>(t.node_places_.size());
    t.node_places_.push_back(node_place);
    t.node_of_numa_[t.places_[node_place].numa_node] = k;
    t.leaves_of_node_.emplace_back();
    t.workers_of_node_.emplace_back();
    // A node without leaf children is its own leaf.
    std::vector<unsigned> leaves = t.places_[node_place].children;
    if (leaves.empty()) leaves.push_back(node_place);
    for (unsigned leaf : leaves) {
      t.leaves_of_node_[k].push_back(static_cast<unsigned>(t.leaf_places_.size()));
      t.leaf_places_.push_back(leaf);
      for (unsigned w : t.places_[leaf].workers) {
        t.workers_of_node_[k].push_back(w);
        ++workers;
      }
    }
  }
  t.leaf_of_worker_.assign(workers, 0);
  t.node_of_worker_.assign(workers, 0);
  for (unsigned k = 0; k < t.node_places_.size(); ++k)
    for (unsigned l : t.leaves_of_node_[k])
      for (unsigned w : t.places_[t.leaf_places_[l]].workers) {
        t.leaf_of_worker_[w] = l;
        t.node_of_worker_[w] = k;
      }
}

place_tree place_tree::from_topology(const topology& topo, const std::vector<worker_placement>& placement) {
  place_tree t;
  t.source_ = "topology";
  place_tree_builder::add(t, kind::root, root, no_node);
  // Nodes and their L3 groups in order of first appearance in the placement
  // (which lists node 0's workers first).
  std::map<unsigned, unsigned> node_place;                  // NUMA node -> place
  std::map<std::pair<unsigned, unsigned>, unsigned> group;  // (NUMA node, L3 group) -> leaf place
  std::map<unsigned, unsigned> groups_in_node;
  for (const worker_placement& p : placement) {
    const unsigned l3 = topo.cores()[p.core].l3_group;
    if (group.try_emplace({p.numa_node, l3}, 0).second) ++groups_in_node[p.numa_node];
  }
  group.clear();
  for (const worker_placement& p : placement) {
    auto [n, fresh] = node_place.try_emplace(p.numa_node, 0);
    if (fresh) n->second = place_tree_builder::add(t, kind::node, root, p.numa_node);
    unsigned leaf = n->second;  // one L3 (or none) in the node: the node is the leaf
    if (groups_in_node[p.numa_node] > 1) {
      auto [g, new_group] = group.try_emplace({p.numa_node, topo.cores()[p.core].l3_group}, 0);
      if (new_group) g->second = place_tree_builder::add(t, kind::leaf, n->second, p.numa_node);
      leaf = g->second;
    } else {
      t.places_[leaf].what = kind::node;
    }
    t.places_[leaf].workers.push_back(p.worker);
  }
  place_tree_builder::index(t, topo.numa_nodes());
  return t;
}

std::string place_tree::summary() const {
  std::size_t groups = 0;
  for (unsigned l : leaf_places_) groups += places_[l].what == kind::leaf;
  return fmt::format("root -> {} node{} -> {} L3 group{} -> {} worker{} ({})", nodes(), nodes() == 1 ? "" : "s", groups,
                     groups == 1 ? "" : "s", workers(), workers() == 1 ? "" : "s", source_);
}

std::string place_tree::describe() const {
  std::string out = fmt::format("place tree: {}\n", summary());
  auto workers_of = [](const place& p) {
    std::string s;
    for (unsigned w : p.workers) s += fmt::format("{}{}", s.empty() ? "" : " ", w);
    return s;
  };
  for (unsigned k = 0; k < nodes(); ++k) {
    const place& n = places_[node_places_[k]];
    out += fmt::format("  node {} (NUMA {})", k, n.numa_node);
    if (!n.workers.empty()) out += fmt::format(": workers {}", workers_of(n));
    out += '\n';
    for (unsigned c : n.children)
      out += fmt::format("    L3 group {}: workers {}\n", leaf_of_worker_[places_[c].workers.front()],
                         workers_of(places_[c]));
  }
  return out;
}

}  // namespace cws
