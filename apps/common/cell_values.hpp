#pragma once
// Reproducible pseudo-random start values of a 2-D field, a function of the
// cell's coordinates only, so every variant (and every initialization order)
// writes the same field. Shared by cws-sor's grid and cws-srad's image.

#include <cstddef>
#include <cstdint>

namespace cws_apps {

// splitmix64's step and finaliser: a well-mixed 64-bit value from x.
constexpr std::uint64_t splitmix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// (k + 0.5) / 2^24 for the top 24 bits k of the mixed coordinates: exactly
// representable as a float, in (0, 1).
inline float unit_value(std::size_t i, std::size_t j) noexcept {
  const std::uint64_t k = splitmix((std::uint64_t{i} << 32) ^ std::uint64_t{j}) >> 40;
  return (static_cast<float>(k) + 0.5f) * 0x1p-24f;
}

}  // namespace cws_apps
