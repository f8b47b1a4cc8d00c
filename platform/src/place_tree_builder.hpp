#pragma once
// What place_tree's two constructions (topology, XML) share: adding a place
// and computing the lookup tables once the places are in.

#include "cws/place_tree.hpp"

namespace cws {

struct place_tree_builder {
  static place_tree make() { return place_tree(); }
  // Appends a place under `parent` (ignored for the root, which must come first).
  static unsigned add(place_tree& t, place_tree::kind what, unsigned parent, unsigned numa);
  // Fills node/leaf lists and the per-worker and per-NUMA-node tables from
  // places_ (root children = nodes; a node without children is its own leaf).
  static void index(place_tree& t, unsigned numa_nodes);
  static std::vector<place_tree::place>& places(place_tree& t) { return t.places_; }
  static std::string& source(place_tree& t) { return t.source_; }
};

}  // namespace cws
