#pragma once
// Data locality (DESIGN §5): what the workers of a phase touched, where those
// pages live, and how to move pages to where they are used.
//
// The flow, per phase run of a schedule that declared touches (touch.hpp):
//   touch_map       per worker, the coalesced byte ranges its tasks declared
//   page_usage      per touched page, the bytes each NUMA node's workers touched
//   locality_report share of touched bytes whose page sits on the toucher's node
//   relocation_plan for every touched page whose home is not its desired node
//                   (the node that touched most of its bytes), a move there
// runtime::relocalize(schedule) executes the plan of the schedule's latest run
// through the page-home backend in use (page_homes.hpp) and returns a
// relocalization_report.
//
// Everything in this header is pure computation on addresses and node numbers
// (no memory is read), so its answers are exact and testable anywhere.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cws {

// [begin, end) in the address space.
struct byte_range {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  std::uint64_t bytes() const noexcept { return end - begin; }
  friend bool operator==(const byte_range&, const byte_range&) = default;
};

// Per worker, sorted disjoint non-adjacent ranges (what one phase run touched).
struct touch_map {
  std::vector<std::vector<byte_range>> per_worker;
  bool empty() const noexcept;
  std::uint64_t bytes() const noexcept;  // sum over workers
  std::size_t ranges() const noexcept;   // sum over workers
};

// Sorts and merges overlapping or adjacent ranges in place (empty ranges dropped).
void coalesce(std::vector<byte_range>& ranges);

// Per touched page, how many bytes of it each node's workers touched. A byte
// touched by two workers counts once for each (their tasks both used it).
struct page_usage {
  std::size_t page_size = 0;
  unsigned nodes = 0;
  std::vector<std::uintptr_t> pages;  // page-aligned addresses, ascending, distinct
  std::vector<std::uint32_t> bytes;   // pages.size() * nodes: bytes[p * nodes + node]
  std::uint32_t bytes_of(std::size_t p, unsigned node) const noexcept { return bytes[p * nodes + node]; }
  std::uint64_t total_of(std::size_t p) const noexcept;
};

// `node_of_worker[w]` is the NUMA node of worker w (< nodes); `page_size` a power of two.
page_usage usage_of(const touch_map& touches, std::span<const unsigned> node_of_worker, unsigned nodes,
                    std::size_t page_size);

// Node that touched most bytes of page p. Ties go to `home` when it is among
// the tied nodes (nothing gains from moving), else to the lowest node.
unsigned desired_node(const page_usage& u, std::size_t p, int home) noexcept;

// Home nodes: one per page of a page_usage; `unknown_home` where the page has
// no home yet (never faulted in, or the backend cannot tell).
inline constexpr int unknown_home = -1;

struct node_locality {
  std::uint64_t touched_bytes = 0;  // bytes touched by this node's workers
  std::uint64_t local_bytes = 0;    // of those, on pages whose home is this node
  friend bool operator==(const node_locality&, const node_locality&) = default;
};

struct locality_report {
  std::uint64_t pages = 0;          // distinct pages touched
  std::uint64_t touched_bytes = 0;  // summed over workers
  std::uint64_t local_bytes = 0;    // on a page homed on the toucher's node
  std::uint64_t unknown_bytes = 0;  // on a page without a known home (counted as not local)
  std::vector<node_locality> per_node;
  // local_bytes / touched_bytes; 1 when nothing was touched.
  double share() const noexcept;
  friend bool operator==(const locality_report&, const locality_report&) = default;
};

locality_report measure_locality(const page_usage& u, std::span<const int> homes);

struct page_move {
  std::uintptr_t page = 0;
  int from = unknown_home;
  unsigned to = 0;
  friend bool operator==(const page_move&, const page_move&) = default;
};

// Moves for the pages whose known home differs from their desired node, in
// address order. Pages with an unknown home are not moved (nothing to move;
// their first toucher will place them).
std::vector<page_move> plan_relocation(const page_usage& u, std::span<const int> homes);

// What one runtime::relocalize did.
struct relocalization_report {
  std::string schedule;              // whose latest run's touches were used
  std::uint64_t iteration = 0;       // that run
  std::string backend;               // page-home backend and mover, e.g. "kernel (move_pages)"
  std::uint64_t pages_examined = 0;  // distinct pages touched by that run
  std::uint64_t pages_moved = 0;
  std::uint64_t pages_failed = 0;  // moves the backend refused (e.g. -ENOMEM, -EBUSY)
  std::uint64_t bytes_moved = 0;   // pages_moved * page size
  double seconds = 0;              // planning + moving
  double gbps() const noexcept { return seconds > 0 ? static_cast<double>(bytes_moved) / seconds / 1e9 : 0; }
  friend bool operator==(const relocalization_report&, const relocalization_report&) = default;
};

}  // namespace cws
