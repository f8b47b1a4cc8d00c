#pragma once
// NPB CG's timed loop as a sequence of parallel phases over fixed row blocks.
//
// Each loop of the benchmark is one phase, a loop over the row blocks whose
// leaves call the row kernels (kernels.hpp) on whole blocks; the reductions
// (dot products) leave one partial sum per block (block_sums.hpp), added in
// block order after the phase. Per conjugate-gradient step four phases:
//
//   spmv       q = A p
//   dot        p . q                       -> alpha = rho / (p . q)
//   update     z += alpha p, r -= alpha q, r . r   -> beta = rho' / rho
//   direction  p = r + beta p
//
// and around the 25 steps of one outer iteration: `start` (q = z = 0, r = x,
// p = r, r . r), `residual` (r = A z, |x - r|^2), `norms` (x . z, z . z) and
// `normalize` (x = z / |z|): 104 phases per outer iteration. The variant
// decides how a phase runs (block_runner: cws under some policy, TBB,
// OpenMP, serial); this file only says what each one computes and touches.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>

#include <cws/numa.hpp>

#include "cg/block_sums.hpp"
#include "cg/kernels.hpp"
#include "cg/makea.hpp"

namespace cg {

// The phases, one named loop each (the cws variants give each its own schedule).
enum class kernel : std::size_t { init, start, spmv, dot, update, direction, residual, norms, normalize };
inline constexpr std::size_t kernel_count = 9;
// "init", "start", "spmv", ...
const char* kernel_name(kernel k) noexcept;
inline constexpr std::size_t index(kernel k) noexcept { return static_cast<std::size_t>(k); }

// Fixed blocks of `rows` rows over n rows: block b is rows [lo(b), hi(b)).
struct row_blocks {
  std::size_t n = 0;
  std::size_t rows = 1;
  std::size_t count() const noexcept { return (n + rows - 1) / rows; }
  std::size_t lo(std::size_t b) const noexcept { return b * rows; }
  std::size_t hi(std::size_t b) const noexcept { return b * rows + rows < n ? b * rows + rows : n; }
};

// body(first, last) runs blocks [first, last); a loop covers [0, count()).
using block_body = std::function<void(std::size_t, std::size_t)>;

// How a variant runs its loops.
class block_runner {
 public:
  virtual ~block_runner() = default;
  // Runs loop k once over all blocks; returns the seconds that count (the
  // wall clock around the call that starts it).
  virtual double run(kernel k, const block_body& body) = 0;
  // Whether the leaves declare what they touch (cws::touch): cws phases only.
  virtual bool declares_touches() const noexcept = 0;
};

// Every loop as one call body(0, blocks) on the calling thread.
class serial_runner final : public block_runner {
 public:
  explicit serial_runner(std::size_t blocks) : blocks_(blocks) {}
  double run(kernel k, const block_body& body) override;
  bool declares_touches() const noexcept override { return false; }

 private:
  std::size_t blocks_;
};

struct iteration_result {
  double zeta = 0;   // shift + 1 / (x . z)
  double rnorm = 0;  // |x - A z| of conj_grad (rounding level; printed, never checked)
};

// One variant's copy of the matrix and vectors, in its own NUMA arrays.
class workspace {
 public:
  // Allocates (nothing is touched yet); `rows_per_block` fixes the blocks.
  workspace(const csr_matrix& m, std::size_t rows_per_block, cws::numa::placement where);

  const row_blocks& blocks() const noexcept { return blocks_; }

  // Copies the matrix rows and sets x = 1, z = p = q = r = 0, block by block
  // through `loops` (the `init` loop): the arrays' first touch. Returns its seconds.
  double initialize(block_runner& loops);
  // x = 1 on the calling thread: the state every run of the timed loop starts from.
  void reset();
  // One outer iteration: conj_grad (start, 25 steps, residual), then zeta
  // and x = z / |z|. Adds each loop's seconds to `seconds` when given.
  iteration_result iterate(block_runner& loops, double shift, std::array<double, kernel_count>* seconds = nullptr);

  const double* x() const noexcept { return x_.data(); }

 private:
  double run(block_runner& loops, kernel k, const block_body& body, std::array<double, kernel_count>* seconds);
  csr_view view() const noexcept { return {rowstr_.data(), colidx_.data(), a_.data()}; }

  const csr_matrix& source_;
  row_blocks blocks_;
  cws::numa::array<std::int64_t> rowstr_;
  cws::numa::array<std::int32_t> colidx_;
  cws::numa::array<double> a_;
  cws::numa::array<double> x_, z_, p_, q_, r_;
  block_sums sums_;
};

}  // namespace cg
