#pragma once
// NPB's pseudo-random generator `randlc`: the multiplicative congruential
// sequence x_{k+1} = a * x_k mod 2^46, each call returning 2^-46 * x_{k+1}.
// The reference computes it in doubles split at 2^23 so that every step is
// exact integer arithmetic; the same integers are computed here in 64-bit
// unsigned arithmetic (also split at 2^23, so no product overflows), which
// gives bit-identical values. The state is kept as the double NPB keeps, so
// a seed written as NPB writes it (314159265.0) is used as is.

#include <cstdint>

namespace cg {

// CG's seed (`tran`) and multiplier (`amult` = 5^13).
inline constexpr double npb_seed = 314159265.0;
inline constexpr double npb_multiplier = 1220703125.0;

// Advances `x` to a * x mod 2^46 and returns the new x / 2^46, in (0, 1).
// Both x and a must be odd integers in [1, 2^46) held in doubles (as NPB's).
double randlc(double& x, double a) noexcept;

}  // namespace cg
