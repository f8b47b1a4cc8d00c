#pragma once
// The linear system of cws-pcg: a 3D diffusion operator on an n x n x n grid
// of unknowns with homogeneous Dirichlet boundary, natural ordering (row
// r = i + n (j + n k), i fastest), stored in CSR.
//
//   * Stencil: 7 points (faces) or 27 points (faces, edges, corners).
//   * Coefficients: a pair of neighbouring cells p, q is coupled by
//     c_pq = w(d) * mean(kappa_p, kappa_q), d the offset from p to q;
//     off-diagonal a_pq = -c_pq, diagonal a_pp = sum of c_pq over every
//     stencil neighbour, inside the grid or not (a neighbour outside is the
//     Dirichlet boundary, with kappa_q = kappa_p). So A is symmetric and
//     diagonally dominant with positive diagonal: SPD.
//       constant   kappa = 1, w = 1: the textbook Poisson matrices (7-point:
//                  6 / -1, 27-point: 26 / -1 as in HPCG).
//       aniso      w(d) = product over the axes d moves along of (1, 1, eps):
//                  weak coupling along z (eps = --anisotropy).
//       variable   kappa of each cell log-uniform in [0.1, 10) from a hash of
//                  its coordinates (independent of how the rows are split);
//                  mean = harmonic mean. Three decades of contrast.
//   * Manufactured solution: u* uniform in [0, 1) per cell from a hash of its
//     row (every frequency present: a smooth u* such as a product of sines
//     is the lowest eigenvector of the constant matrices and CG would finish
//     in one step), and b = A u*, so the exact solution of the discrete
//     system is u* itself: the error of an iterate is the solver's alone,
//     bounded by cond(A) times its relative residual (condition_bound()).
//
// A process may own only a slab of the rows (MPI ranks): `slab` says which
// rows it owns and which rows around them it holds as halo. Vectors are
// stored over the held rows [ext_first, ext_last); column indices of the
// local CSR are indices into such a vector. One process: the slab is
// everything and has no halo.
//
// Rows are cut into blocks of block_rows rows (the leaves of every parallel
// loop, and the units of the deterministic reductions); a slab is a whole
// number of blocks.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cws/numa.hpp>

namespace pcg {

enum class stencil_kind { seven = 7, twenty_seven = 27 };
enum class coefficient_kind { constant, aniso, variable };

// "constant", "aniso", "variable"; parse throws std::invalid_argument.
const char* to_string(coefficient_kind c) noexcept;
coefficient_kind parse_coefficient(const std::string& s);

struct problem {
  std::size_t n = 32;  // grid side: n^3 unknowns
  stencil_kind stencil = stencil_kind::seven;
  coefficient_kind coef = coefficient_kind::constant;
  double anisotropy = 0.1;  // eps of `aniso`

  std::size_t rows() const noexcept { return n * n * n; }
  // Rows a row's stencil reaches on either side: n^2 + n + 1 (27 points; the
  // 7-point stencil reaches n^2, but one halo width keeps the slabs simple).
  std::size_t reach() const noexcept { return n * n + n + 1; }
  // Colours of the multicolour ordering: 2 (red-black, 7 points) or 8
  // (i, j, k parities, 27 points). Rows of one colour are never coupled.
  unsigned colours() const noexcept { return stencil == stencil_kind::seven ? 2 : 8; }
  unsigned colour_of(std::size_t i, std::size_t j, std::size_t k) const noexcept {
    if (stencil == stencil_kind::seven) return static_cast<unsigned>((i + j + k) & 1);
    return static_cast<unsigned>((i & 1) | ((j & 1) << 1) | ((k & 1) << 2));
  }
  // "n=64,7pt,constant" (plus the anisotropy for aniso).
  std::string describe() const;

  // Upper bound on cond_2(A): a Gershgorin bound on lambda_max over the
  // smallest pair coefficient times lambda_min of the constant matrix of the
  // same stencil (A minus c_min times that matrix is a sum of positive
  // semidefinite pair terms). Closed forms, no matrix needed.
  double condition_bound() const;
};

// Which rows a process owns and holds.
struct slab {
  std::size_t block_rows = 0;     // rows per block (the last block of the grid may be shorter)
  std::size_t global_blocks = 0;  // blocks of the whole grid
  std::size_t first_block = 0;    // this slab's blocks: [first_block, first_block + blocks)
  std::size_t blocks = 0;
  std::size_t first = 0, last = 0;          // owned global rows [first, last)
  std::size_t ext_first = 0, ext_last = 0;  // held rows (owned plus halo), clipped to the grid

  std::size_t owned() const noexcept { return last - first; }
  std::size_t held() const noexcept { return ext_last - ext_first; }
  std::size_t offset() const noexcept { return first - ext_first; }  // local index of the first owned row
  // Global rows of local block b (0 <= b < blocks).
  std::size_t block_first(std::size_t b) const noexcept { return (first_block + b) * block_rows; }
  std::size_t block_last(std::size_t b) const noexcept;
  std::size_t grid_rows = 0;  // n^3
};

// Default rows per block: about 16 blocks per worker over the whole grid
// (`total_workers` summed over the ranks), rounded up to whole pages of
// doubles (512 rows) so that blocks and pages line up.
std::size_t default_block_rows(const problem& p, unsigned total_workers);

// Slab `rank` of `ranks`: blocks split as evenly as they go, halo of
// p.reach() rows on each side. Throws std::invalid_argument when a rank would
// own no block or fewer rows than the halo reach (a halo exchange only talks
// to the next rank).
slab make_slab(const problem& p, std::size_t block_rows, unsigned rank, unsigned ranks);

// The local system of one slab, CSR over the owned rows, every array a
// cws::numa allocation (first touch: the pages land where the init phase
// that fills them runs). Allocated by the constructor, filled block by block
// by fill_blocks (the init phase), so that each block's pages are first
// touched by the worker that fills them.
struct system {
  problem prob;
  slab part;
  cws::numa::array<std::uint64_t> row_ptr;  // owned() + 1, offsets into cols/vals
  cws::numa::array<std::uint32_t> cols;     // local column (index into a held-rows vector)
  cws::numa::array<double> vals;
  cws::numa::array<double> inv_diag;  // 1 / a_rr, owned rows
  cws::numa::array<double> b;         // right-hand side A u*, owned rows
  std::uint64_t nnz = 0;
  // Nonzeros before the first row of each block (blocks + 1 entries; plain
  // memory: a few words per block, computed serially before the fill).
  std::vector<std::uint64_t> block_nnz;

  system(const problem& p, const slab& s, cws::numa::placement where);
  // Writes the rows of local blocks [lo, hi): row_ptr, cols, vals, inv_diag, b.
  void fill_blocks(std::size_t lo, std::size_t hi);
  // FNV-1a 64 of the owned pattern (row lengths and global columns): equal
  // for equal grids, stencils and slabs, whatever the coefficients.
  std::uint64_t pattern_hash() const;
};

// u*(row) of the manufactured solution, global row index.
double exact_solution(const problem& p, std::size_t row);

// Writes the whole matrix (one process) in Matrix Market coordinate format,
// `symmetric` (lower triangle), 1-based. Throws std::runtime_error when the
// file cannot be written.
void write_matrix_market(const system& s, const std::string& path);

}  // namespace pcg
