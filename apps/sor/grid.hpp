#pragma once
// The kernel of cws-sor: successive over-relaxation (omega = 1.25) on an
// n x n grid of floats, row-major, rows 0 and n-1 and columns 0 and n-1 fixed.
//
// One cell update (interior rows, columns 1 .. n-2), in place:
//   g[i][j] = omega/4 (g[i-1][j] + g[i+1][j] + g[i][j-1] + g[i][j+1]) + (1 - omega) g[i][j]
//
// Red-black by rows: a sweep is two phases, first the red rows (odd i), then
// the black rows (even i). A row reads only rows of the other colour above
// and below, which nobody writes in that phase, and its own left neighbour,
// which it has just updated itself (Gauss-Seidel along the row). So a phase's
// rows are independent, each is computed left to right by one task, and any
// split of the rows gives the bits of the serial program.
//
// The faithful update (PufferFish's artifact) sweeps every interior row in
// one phase, in place: a task reads rows i-1 and i+1 while its neighbours'
// tasks may be writing them, a data race whose result depends on timing.
// It is kept for timing comparisons only.
//
// The target is built with -ffp-contract=off, so that no build contracts a
// product and a sum into an FMA in one loop and not in another.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sor {

inline constexpr float omega = 1.25f;

enum class colour : unsigned { red = 0, black = 1 };

struct grid {
  float* cells;
  std::size_t n;  // rows = columns
};

// Rows [lo, hi) of the initial grid (their first touch): row 0 holds 1, row
// n-1 holds 0, every other cell a value in (0, 1) hashed from (i, j).
void init_rows(const grid& g, std::size_t lo, std::size_t hi);

// The rows of `c` in [lo, hi), interior rows only. Row i is red when i is odd.
void relax_rows(const grid& g, std::size_t lo, std::size_t hi, colour c);

// Every interior row in [lo, hi), in order: the artifact's racy update.
void relax_all_rows(const grid& g, std::size_t lo, std::size_t hi);

// The first and one past the last row of colour `c` in [lo, hi) (clamped to
// the interior rows); first == end when there is none.
struct row_span {
  std::size_t first, end;
};
row_span rows_of(colour c, std::size_t lo, std::size_t hi, std::size_t n) noexcept;

// The serial program's n x n grid after init and `sweeps` red-black sweeps:
// its own loops, the same row kernels.
std::vector<float> serial_run(std::size_t n, unsigned sweeps);

// Cells that are not finite.
std::size_t non_finite(const float* a, std::size_t n);

}  // namespace sor
