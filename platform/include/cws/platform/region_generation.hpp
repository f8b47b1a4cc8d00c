#pragma once
// A count of the cws::numa regions ever registered or released in this
// process (numa.cpp). The simulated page homes of a region come from its
// placement, so any change of the region set may change homes without a
// move: a locality report reused across runs is stale once this changed.

#include <cstdint>

namespace cws::detail {

std::uint64_t region_generation() noexcept;

}  // namespace cws::detail
