#pragma once
// The row kernels of cws-pcg, each over the local blocks [lo, hi) of a
// system (problem.hpp). Every variant (serial, cws under each policy, TBB,
// OpenMP, MPI ranks) calls these same functions, compiled once, on whole
// blocks, and the reductions write one partial sum per block that the solver
// adds up in block order: so every variant computes every value with the same
// operations in the same order, and the residual histories are bitwise equal.
//
// Preconditioners (z = M^-1 r):
//   jacobi  z = r / diag(A): one phase.
//   sgs     symmetric Gauss-Seidel in a multicolour ordering,
//           M = (D + L) D^-1 (D + U) with L, U the strict triangles of A
//           ordered colour by colour (rows of one colour are never coupled,
//           so each colour is one fully parallel phase). Forward sweep colours
//           0 .. C-1 (colour 0 also zeroes the block's other rows, so higher
//           colours read as 0), backward sweep colours C-2 .. 0 (the last
//           colour's backward update would recompute its forward value): 2C - 1
//           phases, 3 for 7 points (red-black), 15 for 27 points.

#include <cstddef>

#include "pcg/problem.hpp"

namespace pcg {

// The iteration vectors, over the held rows (owned plus halo) of a slab.
struct vectors {
  cws::numa::array<double> x, r, z, p, q;
  vectors(const slab& s, cws::numa::placement where);
};

// Local blocks [lo, hi). `partial` has one entry per local block; each
// reduction writes partial[blk] for its blocks.
namespace kernels {
// Zero every vector's owned rows (their first touch, in the init phase).
void zero(const system& a, vectors& v, std::size_t lo, std::size_t hi);
// x = 0, r = b; partial: b . b
void start(const system& a, vectors& v, std::size_t lo, std::size_t hi, double* partial);
// q = A p; partial: p . q
void spmv(const system& a, vectors& v, std::size_t lo, std::size_t hi, double* partial);
// x += alpha p, r -= alpha q; partial: r . r
void update(const system& a, vectors& v, double alpha, std::size_t lo, std::size_t hi, double* partial);
// z = D^-1 r; partial: r . z
void jacobi(const system& a, vectors& v, std::size_t lo, std::size_t hi, double* partial);
// Forward sweep, colour c (colour 0 zeroes the other rows of the blocks first).
void sgs_forward(const system& a, vectors& v, unsigned colour, std::size_t lo, std::size_t hi);
// Backward sweep, colour c; partial (when not null): r . z over the blocks
// (given with colour 0, the last phase, when every z is final).
void sgs_backward(const system& a, vectors& v, unsigned colour, std::size_t lo, std::size_t hi, double* partial);
// p = z + beta p, or p = z when `first`.
void direction(const system& a, vectors& v, const double* z, double beta, bool first, std::size_t lo, std::size_t hi);
// r . r over the blocks (the precondition-free solver's r . z).
void dot_rr(const system& a, const vectors& v, std::size_t lo, std::size_t hi, double* partial);
// true residual: partial = |b - A x|^2 over the blocks (x's halo must be current)
void residual(const system& a, const vectors& v, std::size_t lo, std::size_t hi, double* partial);
}  // namespace kernels

}  // namespace pcg
