#pragma once
// NAS MG's right-hand side (NPB zran3): a field of n^3 values from the NPB
// generator (seed 314159265, multiplier 5^13), filled x fastest, then y,
// then z; the 10 largest values become charges +1 and the 10 smallest -1,
// everything else is 0.
//
// Only the 20 positions are kept, not the field: each plane is generated on
// its own from a jump-ahead seed (seed x a^(n^2 p) for plane p, x a^n per
// line), keeping the plane's own 10 largest and 10 smallest, and the plane
// lists are merged. The values are all distinct (the sequence's period is far
// longer than n^3), so the result does not depend on the order of the merge.

#include <array>
#include <cstddef>
#include <cstdint>

namespace mg {

// A grid point in ghost-inclusive coordinates: interior points are 1 .. n.
struct grid_point {
  std::size_t i1 = 0, i2 = 0, i3 = 0;  // i1 fastest
  friend bool operator==(const grid_point&, const grid_point&) = default;
};

inline constexpr std::size_t charges_per_sign = 10;

struct charges {
  // +1 at the 10 largest values, largest first; -1 at the 10 smallest, smallest first.
  std::array<grid_point, charges_per_sign> plus{}, minus{};
  std::array<double, charges_per_sign> plus_values{}, minus_values{};
};

// The charges of the n x n x n field.
charges find_charges(std::size_t n);

// The generator state whose next draw is the value of interior point
// (i1, i2, i3) (1-based), i.e. the stream position (i1-1) + n((i2-1) + n(i3-1)).
std::uint64_t zran3_state_before(std::size_t n, std::size_t i1, std::size_t i2, std::size_t i3);

}  // namespace mg
