#pragma once
// The kernel side of cws::numa: mapping fresh pages and binding them with
// mbind so that the kernel puts them where the region's virtual layout says
// (and moving them, for the kernel page-home backend). Private to cws::core.

#include <cstddef>
#include <string>
#include <vector>

#include "cws/numa.hpp"

namespace cws {
class topology;
}

namespace cws::numa::detail {

// A fresh mapping and what the kernel was told about it.
struct kernel_layout {
  void* begin = nullptr;    // start of the pages * page_size bytes the region owns
  bool placed = false;      // the kernel realises the virtual layout exactly
  std::string note;         // how it was bound, or why not
  std::vector<int> bound;   // kernel node per virtual node, -1 where not bound
  bool huge_pages = false;  // asked for transparent huge pages (one kernel node)
};

// Maps `pages` fresh pages (not touched) and binds them for placement `p`
// with `block_pages` pages per block, for `topo`'s nodes. Throws cws::error
// when the mapping fails; a refused mbind only leaves `placed` false.
// mbind(addr, len, mode, {nodes}, flags) with a node mask sized for this
// kernel; requires libnuma to be available. Returns 0 or the errno.
int mbind_nodes(void* addr, std::size_t len, int mode, const std::vector<int>& nodes, unsigned flags = 0);

kernel_layout map_placed(std::size_t pages, std::size_t page_size, std::size_t block_pages, placement p,
                         const topology& topo);

}  // namespace cws::numa::detail
