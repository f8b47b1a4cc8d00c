#pragma once
// The synthetic machines of the placement suites (one core per NUMA node, 2,
// 4 or 8 nodes), the page size in doubles, and hint homes spelled short.

#include <unistd.h>

#include <cstddef>

#include "cws/hint.hpp"
#include "cws/topology.hpp"

namespace cws::test::synthetic_nodes {

inline const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
inline const std::size_t pp = page / sizeof(double);  // doubles per page

// 2, 4 or (any other n) 8 nodes.
inline const cws::topology& nodes(unsigned n) {
  static const cws::topology two = cws::topology::synthetic("pack:2 numa:1 core:1 pu:1");
  static const cws::topology four = cws::topology::synthetic("pack:4 numa:1 core:1 pu:1");
  static const cws::topology eight = cws::topology::synthetic("pack:8 numa:1 core:1 pu:1");
  return n == 2 ? two : n == 4 ? four : eight;
}

// The home on node v, the home of data spanning nodes, no home.
inline cws::hint_home on(unsigned v) { return {cws::hint_home::kind::node, v}; }
inline const cws::hint_home spans{cws::hint_home::kind::spans, 0};
inline const cws::hint_home none{};

}  // namespace cws::test::synthetic_nodes
