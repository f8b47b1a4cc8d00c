#pragma once
// The kernel of cws-fdtd: PolyBench/C 4.2's fdtd-2d on row ranges. Three
// nx x ny fields of doubles, row-major: ex, ey (electric) and hz (magnetic).
//
// One time step t of the serial program is four sweeps:
//   1. ey[0][j] = t                                              (every j)
//   2. ey[i][j] -= 0.5 * (hz[i][j] - hz[i-1][j])                 (i >= 1)
//   3. ex[i][j] -= 0.5 * (hz[i][j] - hz[i][j-1])                 (j >= 1)
//   4. hz[i][j] -= 0.7 * (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j])   (i < nx-1, j < ny-1)
//
// The parallel program runs them as two phases over the same row blocks:
//   * e_rows (sweeps 1-3): writes ey and ex of its rows, reads only hz. No
//     sweep of 1-3 reads what another of them writes (ey and ex are updated
//     from hz alone, and hz is not written until sweep 4), so the three are
//     one phase; a block reads hz row lo-1 of its neighbour, which nobody
//     writes in this phase.
//   * h_rows (sweep 4): writes hz of its rows, reads ex of its rows and ey of
//     its rows and of row hi (the next block's first row), which the e phase
//     must have finished: hence the second phase (sweep 4 cannot be fused
//     with 1-3 per block). It reads no hz but its own element, so its blocks
//     are independent too; the next step's e phase reads the new hz, which
//     the end of this phase guarantees.
//
// Every element is computed from the same operands with the same operations
// as in the serial loops, so any row split gives bit-identical fields; the
// target is built with -ffp-contract=off so that no build contracts a*b+c
// into an FMA in one loop and not in another (reference.cpp is the plain
// serial program, compiled the same way).

#include <cstddef>

namespace fdtd {

struct fields {
  double* ex;
  double* ey;
  double* hz;
  std::size_t nx, ny;  // rows, columns
};

// Rows [lo, hi) of PolyBench's initial state: ex = i(j+1)/nx, ey = i(j+2)/ny,
// hz = i(j+3)/nx (each product in double, then divided). Their first touch.
void init_rows(const fields& f, std::size_t lo, std::size_t hi);

// Sweeps 1-3 of time step t for rows [lo, hi): ey (row 0 set to t) and ex.
void e_rows(const fields& f, std::size_t lo, std::size_t hi, double t);

// Sweep 4 for rows [lo, hi) (row nx-1 and column ny-1 are never written).
void h_rows(const fields& f, std::size_t lo, std::size_t hi);

// Sum of the n values, in index order (the checksums the README lists).
double sum(const double* a, std::size_t n);

}  // namespace fdtd
