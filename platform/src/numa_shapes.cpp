// numa_shapes.hpp: where numa::local puts an allocation, and the shape checks
// kept out of the templates.

#include "cws/numa_shapes.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <cstdint>

#include "cws/error.hpp"
#include "cws/platform/runtime_hooks.hpp"
#include "cws/topology.hpp"

namespace cws::numa {

namespace {

// The node of the CPU the calling thread runs on, on a discovered topology.
unsigned node_of_this_cpu(const topology& topo) noexcept {
  const int cpu = ::sched_getcpu();
  if (cpu < 0) return 0;
  for (const core_info& c : topo.cores())
    for (unsigned pu : c.pus)
      if (pu == static_cast<unsigned>(cpu)) return c.numa_node;
  return 0;
}

}  // namespace

unsigned caller_node(const topology& topo) {
  unsigned node = 0;
  const platform::runtime_hooks& h = platform::hooks();
  if (const int worker = h.worker_node ? h.worker_node() : -1; worker >= 0) {
    // In a phase. The worker's node comes from its runtime's placement, not
    // from the CPU: on a synthetic topology the CPU says nothing about it.
    node = static_cast<unsigned>(worker);
  } else if (!topo.is_synthetic()) {
    node = node_of_this_cpu(topo);
  }
  if (node >= topo.numa_nodes())
    throw error(
        fmt::format("numa::local: the calling worker is on NUMA node {}, but the allocation's topology has {} ({})",
                    node, topo.numa_nodes(), topo.summary()));
  return node;
}

std::size_t detail::checked_extent(std::size_t a, std::size_t b) {
  if (a != 0 && b > SIZE_MAX / a)
    throw error(fmt::format("numa::allocate2d: {} x {} elements overflow the address space", a, b));
  return a * b;
}

std::size_t detail::checked_extent(std::size_t a, std::size_t b, std::size_t c) {
  const bool overflow = (a != 0 && b > SIZE_MAX / a) || (a * b != 0 && c > SIZE_MAX / (a * b));
  if (overflow) throw error(fmt::format("numa::allocate3d: {} x {} x {} elements overflow the address space", a, b, c));
  return a * b * c;
}

void detail::throw_shape_mismatch(std::size_t have, std::size_t need) {
  throw error(fmt::format("numa shape: the array has {} elements but the shape needs {}", have, need));
}

}  // namespace cws::numa
