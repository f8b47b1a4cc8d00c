#pragma once
// The hierarchical place tree (HPT) of PufferFish and HClib: the machine as a
// tree of places on which the `hinted` policies route and steal.
//
//   root                 tasks whose data spans NUMA nodes
//   ├── node 0           tasks whose data is on NUMA node 0, pushed by workers of other nodes
//   │   ├── leaf 0       an L3 group: its workers' own deques
//   │   └── leaf 1
//   └── node 1 ...
//
// Built from the topology in use (hwloc or CWS_TOPOLOGY) and the worker
// placement: one node place per NUMA node that has workers, one leaf per L3
// group inside it (the node itself is the leaf when it has one L3 or none),
// workers in placement order. Or loaded from an HClib-style HPT XML file
// (CWS_HPT / runtime_config::hpt_file): nested <place> elements with optional
// num="k" repeat counts and <worker num="k"/> leaves; the root's children are
// the NUMA nodes (the i-th is the topology's logical node i), their children
// the leaves. Workers are numbered leaf by leaf in document order.
//
// Every query is O(1) or returns a precomputed list; the tree never changes
// after construction.

#include <string>
#include <vector>

#include "cws/hint.hpp"
#include "cws/topology.hpp"

namespace cws {

class place_tree {
 public:
  static constexpr unsigned root = 0;  // the root's place id
  static constexpr unsigned no_node = ~0u;

  enum class kind { root, node, leaf };
  struct place {
    kind what = kind::root;
    unsigned parent = root;          // the root is its own parent
    unsigned numa_node = no_node;    // node and leaf places: the topology's logical NUMA node
    std::vector<unsigned> children;  // place ids, in order
    std::vector<unsigned> workers;   // leaf places: worker ids, in order
  };

  // Root -> NUMA nodes with workers -> L3 groups -> workers, from the
  // topology and the runtime's placement (one entry per worker).
  static place_tree from_topology(const topology& topo, const std::vector<worker_placement>& placement);
  // Parses an HClib-style HPT XML file for `workers` workers on `topo`.
  // Throws cws::error with one line, "FILE:LINE: what is wrong", for XML
  // that does not parse, a shape that is not root -> nodes -> (leaves ->)
  // workers, more NUMA places than the topology has nodes, or a worker count
  // other than `workers`.
  static place_tree from_xml_file(const std::string& path, const topology& topo, unsigned workers);

  unsigned workers() const noexcept { return static_cast<unsigned>(leaf_of_worker_.size()); }
  unsigned places() const noexcept { return static_cast<unsigned>(places_.size()); }
  const place& at(unsigned id) const noexcept { return places_[id]; }

  // NUMA node places, in order: nodes() of them, node place k covers logical NUMA node numa_of_node(k).
  unsigned nodes() const noexcept { return static_cast<unsigned>(node_places_.size()); }
  unsigned node_place(unsigned k) const noexcept { return node_places_[k]; }
  // Leaf places, in order (numbered leaf by leaf, node by node).
  unsigned leaves() const noexcept { return static_cast<unsigned>(leaf_places_.size()); }
  unsigned leaf_place(unsigned l) const noexcept { return leaf_places_[l]; }

  // Worker w's leaf index (0..leaves()-1) and node index (0..nodes()-1).
  unsigned leaf_of_worker(unsigned w) const noexcept { return leaf_of_worker_[w]; }
  unsigned node_of_worker(unsigned w) const noexcept { return node_of_worker_[w]; }
  // The node index covering logical NUMA node `numa`, or no_node when no
  // worker runs there (or numa is out of range).
  unsigned node_of_numa(unsigned numa) const noexcept {
    return numa < node_of_numa_.size() ? node_of_numa_[numa] : no_node;
  }
  unsigned numa_of_node(unsigned k) const noexcept { return places_[node_places_[k]].numa_node; }
  // Leaf indices under node index k, and the workers of leaf index l.
  const std::vector<unsigned>& leaves_of_node(unsigned k) const noexcept { return leaves_of_node_[k]; }
  const std::vector<unsigned>& workers_of_leaf(unsigned l) const noexcept { return places_[leaf_places_[l]].workers; }
  const std::vector<unsigned>& workers_of_node(unsigned k) const noexcept { return workers_of_node_[k]; }

  // PufferFish's find_place for a spawn by worker w whose hints have home
  // `h`: w's own leaf when the data is on w's node (or has no home, or is on
  // a node without workers), that node's place when it is on another node,
  // the root when it spans nodes. A place id. O(1).
  unsigned find_place(unsigned w, const hint_home& h) const noexcept {
    if (h.what == hint_home::kind::spans) return root;
    if (h.what == hint_home::kind::node) {
      const unsigned k = node_of_numa(h.numa_node);
      if (k != no_node && k != node_of_worker_[w]) return node_places_[k];
    }
    return leaf_places_[leaf_of_worker_[w]];
  }

  // "root -> 4 nodes -> 8 L3 groups -> 32 workers (hwloc)".
  std::string summary() const;
  // The whole tree, one place per line, indented, with its workers.
  std::string describe() const;
  // Where the tree came from: "topology" or the XML file's path.
  const std::string& source() const noexcept { return source_; }

  friend bool operator==(const place_tree& a, const place_tree& b) noexcept { return a.places_ == b.places_; }

 private:
  place_tree() = default;
  friend struct place_tree_builder;
  std::vector<place> places_;
  std::vector<unsigned> node_places_, leaf_places_;
  std::vector<unsigned> leaf_of_worker_, node_of_worker_, node_of_numa_;
  std::vector<std::vector<unsigned>> leaves_of_node_, workers_of_node_;
  std::string source_;
};

bool operator==(const place_tree::place& a, const place_tree::place& b) noexcept;

}  // namespace cws
