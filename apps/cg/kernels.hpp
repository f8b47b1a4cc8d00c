#pragma once
// The loops of NPB CG on a range of rows [lo, hi), compiled once
// (kernels.cpp) and called by every variant (serial, cws, TBB, OpenMP) on
// the same row blocks, so each block computes the same values with the same
// operations in the same order. Those that end in a reduction return the
// block's partial sum, summed in row order.

#include <cstddef>
#include <cstdint>

namespace cg {

// The matrix rows as the kernels read them (CSR, 0-based columns).
struct csr_view {
  const std::int64_t* rowstr;
  const std::int32_t* colidx;
  const double* a;
};

// conj_grad's start: q = z = 0, r = x, p = r; returns the rows' r . r.
double start_rows(const double* x, double* q, double* z, double* r, double* p, std::size_t lo, std::size_t hi);
// out = A in for the rows.
void spmv_rows(csr_view m, const double* in, double* out, std::size_t lo, std::size_t hi);
// The rows' a . b.
double dot_rows(const double* a, const double* b, std::size_t lo, std::size_t hi);
// z += alpha p, r -= alpha q; returns the rows' r . r (of the new r).
double update_rows(double alpha, const double* p, const double* q, double* z, double* r, std::size_t lo,
                   std::size_t hi);
// p = r + beta p.
void direction_rows(double beta, const double* r, double* p, std::size_t lo, std::size_t hi);
// r = A z, then returns the rows' sum of (x - r)^2 (the residual of conj_grad).
double residual_rows(csr_view m, const double* z, const double* x, double* r, std::size_t lo, std::size_t hi);
// x . z and z . z of the rows, into xz and zz.
void norms_rows(const double* x, const double* z, std::size_t lo, std::size_t hi, double& xz, double& zz);
// x = scale z.
void normalize_rows(double scale, const double* z, double* x, std::size_t lo, std::size_t hi);

}  // namespace cg
