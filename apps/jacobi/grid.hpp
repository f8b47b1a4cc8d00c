#pragma once
// The kernel of cws-jacobi: Jacobi iterations of the 5-point Poisson stencil
// on a rows x cols grid of doubles (row-major, rows and cols independent, so
// the grid need not be square), two buffers (read one, write the other, swap).
//
//   * Boundary: column 0 is held at 1, the other three edges at 0; init
//     writes it into both buffers and a sweep writes interior cells only, so
//     it never changes. The interior starts at 0.
//   * Sweep: next = 0.25 * ((up + down) + (left + right) + source), a uniform
//     source term, so the solution grows away from the edges.
//
// Every variant calls these functions on row ranges, and the serial
// reference (reference_run) calls them on the whole grid, so each cell is
// computed with the same operations in the same order: the final grids
// compare exactly equal (the build keeps the compiler from contracting a*b+c).

#include <cstddef>
#include <vector>

namespace jacobi {

inline constexpr double source = 1.0 / 64;

// Writes rows [lo, hi) of the initial state into both buffers (their first touch).
void init_rows(double* a, double* b, std::size_t cols, std::size_t lo, std::size_t hi);

// One sweep over the interior cells of rows [lo, hi): reads rows lo-1 .. hi
// of `cur`, writes rows [lo, hi) of `next` (rows 0 and rows-1 are skipped).
void sweep_rows(const double* cur, double* next, std::size_t cols, std::size_t rows, std::size_t lo, std::size_t hi);

// The serial program: init, then `sweeps` sweeps over the whole grid; the final grid.
std::vector<double> reference_run(std::size_t rows, std::size_t cols, unsigned sweeps);

}  // namespace jacobi
