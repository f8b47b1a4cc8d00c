#pragma once
// The kernel of cws-heat: 2D Jacobi heat diffusion on an n x n grid of
// doubles, row-major, two buffers (read one, write the other, swap).
//
//   * Fixed boundary: row 0 is held at 100 degrees, the other three edges at 1.
//     Steps only write interior cells, and init writes the boundary into both
//     buffers, so the boundary never changes.
//   * Interior starts at values in [1, 2) (a fixed pattern). Every new value
//     is the mean of four values in [1, 100], so no value ever gets small
//     enough to become denormal, however many iterations run.
//   * 5-point stencil: next = 0.25 * ((up + down) + (left + right)).
//
// Every variant (serial, cws, TBB, OpenMP) calls these same functions on row
// ranges, compiled once in grid.cpp, so each cell is computed with the same
// operations in the same order and the final grids compare exactly equal.

#include <cstddef>

namespace heat {

inline constexpr double hot_edge = 100.0;  // row 0
inline constexpr double cold_edge = 1.0;   // rows n-1, columns 0 and n-1

// Writes rows [lo, hi) of the initial state into both grids (their first touch).
void init_rows(double* a, double* b, std::size_t n, std::size_t lo, std::size_t hi);

// One Jacobi step for the interior cells of rows [lo, hi): reads rows lo-1 .. hi
// of `cur`, writes rows [lo, hi) of `next` (boundary rows and columns are skipped).
void step_rows(const double* cur, double* next, std::size_t n, std::size_t lo, std::size_t hi);

}  // namespace heat
