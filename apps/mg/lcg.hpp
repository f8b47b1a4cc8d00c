#pragma once
// NPB's pseudo-random generator (randlc / vranlc): the linear congruential
// sequence x' = a x mod 2^46, whose values are x' / 2^46 in (0, 1). NPB does
// the arithmetic exactly in doubles split into 23-bit halves; here it is
// done in 64-bit integers, which gives the same integers and so the same
// doubles bit for bit.

#include <cstdint>

namespace mg {

inline constexpr std::uint64_t lcg_multiplier = 1220703125;  // 5^13
inline constexpr std::uint64_t zran3_seed = 314159265;       // the seed of MG's right-hand side
inline constexpr std::uint64_t lcg_mask = (std::uint64_t{1} << 46) - 1;

// a * x mod 2^46 for a, x < 2^46 (both split into 23-bit halves, so every
// partial product fits in 64 bits).
constexpr std::uint64_t lcg_multiply(std::uint64_t a, std::uint64_t x) noexcept {
  constexpr std::uint64_t half = (std::uint64_t{1} << 23) - 1;
  const std::uint64_t a_hi = a >> 23, a_lo = a & half;
  const std::uint64_t x_hi = x >> 23, x_lo = x & half;
  const std::uint64_t cross = (a_hi * x_lo + a_lo * x_hi) & half;  // only its low 23 bits survive the shift
  return ((cross << 23) + a_lo * x_lo) & lcg_mask;
}

// a^n mod 2^46: the multiplier that jumps n steps ahead.
constexpr std::uint64_t lcg_power(std::uint64_t a, std::uint64_t n) noexcept {
  std::uint64_t result = 1;
  while (n != 0) {
    if (n & 1) result = lcg_multiply(result, a);
    a = lcg_multiply(a, a);
    n >>= 1;
  }
  return result;
}

// The value NPB draws from state x: x / 2^46 (exact).
constexpr double lcg_value(std::uint64_t x) noexcept { return static_cast<double>(x) * 0x1p-46; }

}  // namespace mg
