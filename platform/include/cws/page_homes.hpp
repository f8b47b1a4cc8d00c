#pragma once
// Page homes: which NUMA node each page lives on, and moving pages between
// nodes. One interface, two backends (DESIGN §5, §6):
//
//   kernel     the pages' real homes, asked with move_pages(2) (nodes = NULL);
//              moves with move_pages in batches or with mbind(MPOL_MF_MOVE) over
//              contiguous runs of pages going to the same node (page_mover).
//   simulated  a table of homes, for synthetic topologies (CWS_TOPOLOGY) where
//              the kernel's nodes are not the described ones. A cws::numa
//              region starts with the homes its placement declares (unknown for
//              first_touch); a page without a home gets one from the first
//              phase that declares a touch of it (the node whose workers
//              touched most of its bytes there, as first touch would); moves
//              rewrite the table. Memory outside cws::numa regions is tracked
//              in a side table from its first declared touch on.
//
// Node numbers are the topology's logical NUMA nodes (0..N-1) in both.
// The runtime picks the backend from its topology (kernel for a discovered
// machine where libnuma works, simulated for a synthetic one or when the
// kernel cannot answer) and says which in runtime::describe(); CWS_PAGES
// (runtime_config::pages) overrides the choice.
//
// Threading: a backend is used from one thread at a time (the runtime calls it
// between phases).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace cws {
class topology;
}

namespace cws::numa {

// How the kernel backend moves pages.
enum class page_mover {
  move_pages,  // move_pages(2) on batches of pages: one syscall per batch, any page set
  mbind,       // mbind(MPOL_MF_MOVE | MPOL_BIND) per run of consecutive pages with one target node
  automatic,   // the mover measured faster (move_pages at every run length; page_homes_kernel.cpp)
};
std::string_view to_string(page_mover m) noexcept;

struct move_outcome {
  std::uint64_t moved = 0;   // pages now on their target node
  std::uint64_t failed = 0;  // pages the kernel refused to move (still where they were)
};

class page_homes {
 public:
  virtual ~page_homes() = default;
  // "simulated" or "kernel (move_pages)", "kernel (mbind)", "kernel (auto)".
  virtual std::string name() const = 0;
  // homes[i] = node of pages[i] (page-aligned addresses), or unknown_home.
  virtual void query(std::span<const std::uintptr_t> pages, std::span<int> homes) = 0;
  // The first declared touch of pages that have no home yet: the simulated
  // backend records nodes[i] as their home (and sets homes[i]); the kernel
  // backend does nothing (the kernel already placed pages on first write).
  virtual void first_touch(std::span<const std::uintptr_t> pages, std::span<const unsigned> nodes,
                           std::span<int> homes) = 0;
  // Moves pages[i] to nodes[i]. Pages are ascending and distinct.
  virtual move_outcome move(std::span<const std::uintptr_t> pages, std::span<const unsigned> nodes) = 0;
  // Size of the pages this backend tracks.
  virtual std::size_t page_size() const noexcept = 0;
};

// The simulated backend for `topo`'s nodes.
std::unique_ptr<page_homes> make_simulated_page_homes(const topology& topo);

// The kernel backend for a discovered (non-synthetic) topology. Throws
// cws::error saying why when it cannot work here (synthetic topology, no
// NUMA support in the kernel, move_pages not permitted).
std::unique_ptr<page_homes> make_kernel_page_homes(const topology& topo, page_mover mover = page_mover::automatic);

}  // namespace cws::numa
