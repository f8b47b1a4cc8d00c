#include "pcg/kernels.hpp"

namespace pcg {

vectors::vectors(const slab& s, cws::numa::placement where)
    : x(cws::numa::allocate<double>(s.held(), where)),
      r(cws::numa::allocate<double>(s.held(), where)),
      z(cws::numa::allocate<double>(s.held(), where)),
      p(cws::numa::allocate<double>(s.held(), where)),
      q(cws::numa::allocate<double>(s.held(), where)) {}

namespace kernels {

namespace {

// Local rows (indices into the CSR and the owned-row arrays) of local block blk.
struct rows {
  std::size_t lo, hi;
};
rows rows_of(const system& a, std::size_t blk) {
  return {a.part.block_first(blk) - a.part.first, a.part.block_last(blk) - a.part.first};
}

// partial[blk] = the sum of term(lr) over the local rows lr of each local
// block blk in [lo, hi), added in row order (the reductions' fixed order);
// term may also write the row's entries.
template <class Term>
void block_sums(const system& a, std::size_t lo, std::size_t hi, double* partial, Term&& term) {
  for (std::size_t blk = lo; blk < hi; ++blk) {
    const rows rr = rows_of(a, blk);
    double s = 0;
    for (std::size_t lr = rr.lo; lr < rr.hi; ++lr) s += term(lr);
    partial[blk] = s;
  }
}

// sum of a_rc v[c] over row lr (held-row vector v), in column order.
inline double row_product(const system& a, const double* v, std::size_t lr) {
  double s = 0;
  const std::uint32_t* cols = a.cols.data();
  const double* vals = a.vals.data();
  for (std::uint64_t e = a.row_ptr[lr]; e < a.row_ptr[lr + 1]; ++e) s += vals[e] * v[cols[e]];
  return s;
}

// One Gauss-Seidel update of row lr: z = (r - sum_{c != row} a_rc z_c) / a_rr.
inline void relax_row(const system& a, const double* r, double* z, std::size_t lr, std::size_t off) {
  const std::size_t self = lr + off;
  const std::uint32_t* cols = a.cols.data();
  const double* vals = a.vals.data();
  double s = r[self];
  for (std::uint64_t e = a.row_ptr[lr]; e < a.row_ptr[lr + 1]; ++e)
    if (cols[e] != self) s -= vals[e] * z[cols[e]];
  z[self] = s * a.inv_diag[lr];
}

// Calls f(lr) for every local row of colour c in local block blk, in
// ascending order: along each grid line (j, k) only every other i.
template <class F>
void for_colour_rows(const system& a, unsigned c, std::size_t blk, F&& f) {
  const problem& p = a.prob;
  const std::size_t n = p.n, g0 = a.part.block_first(blk), g1 = a.part.block_last(blk);
  for (std::size_t line = g0 / n; line * n < g1; ++line) {
    const std::size_t j = line % n, k = line / n;
    unsigned parity;
    if (p.stencil == stencil_kind::seven) {
      parity = (c ^ static_cast<unsigned>((j + k) & 1)) & 1;
    } else {
      if (((j & 1) != ((c >> 1) & 1)) || ((k & 1) != ((c >> 2) & 1))) continue;
      parity = c & 1;
    }
    const std::size_t i_lo = g0 > line * n ? g0 - line * n : 0;
    const std::size_t i_hi = g1 - line * n < n ? g1 - line * n : n;
    std::size_t i = i_lo + ((i_lo & 1) != parity ? 1 : 0);
    for (; i < i_hi; i += 2) f(line * n + i - a.part.first);
  }
}

}  // namespace

void zero(const system& a, vectors& v, std::size_t lo, std::size_t hi) {
  const std::size_t off = a.part.offset();
  for (std::size_t blk = lo; blk < hi; ++blk) {
    const rows rr = rows_of(a, blk);
    for (std::size_t lr = rr.lo; lr < rr.hi; ++lr) {
      const std::size_t h = lr + off;
      v.x[h] = 0, v.r[h] = 0, v.z[h] = 0, v.p[h] = 0, v.q[h] = 0;
    }
  }
}

void start(const system& a, vectors& v, std::size_t lo, std::size_t hi, double* partial) {
  const std::size_t off = a.part.offset();
  block_sums(a, lo, hi, partial, [&](std::size_t lr) {
    const double b = a.b[lr];
    v.x[lr + off] = 0;
    v.r[lr + off] = b;
    return b * b;
  });
}

void spmv(const system& a, vectors& v, std::size_t lo, std::size_t hi, double* partial) {
  const std::size_t off = a.part.offset();
  const double* p = v.p.data();
  block_sums(a, lo, hi, partial, [&](std::size_t lr) {
    const double q = row_product(a, p, lr);
    v.q[lr + off] = q;
    return p[lr + off] * q;
  });
}

void update(const system& a, vectors& v, double alpha, std::size_t lo, std::size_t hi, double* partial) {
  const std::size_t off = a.part.offset();
  block_sums(a, lo, hi, partial, [&](std::size_t lr) {
    const std::size_t h = lr + off;
    v.x[h] += alpha * v.p[h];
    const double r = v.r[h] - alpha * v.q[h];
    v.r[h] = r;
    return r * r;
  });
}

void jacobi(const system& a, vectors& v, std::size_t lo, std::size_t hi, double* partial) {
  const std::size_t off = a.part.offset();
  block_sums(a, lo, hi, partial, [&](std::size_t lr) {
    const double r = v.r[lr + off], z = r * a.inv_diag[lr];
    v.z[lr + off] = z;
    return r * z;
  });
}

void sgs_forward(const system& a, vectors& v, unsigned colour, std::size_t lo, std::size_t hi) {
  const std::size_t off = a.part.offset();
  double* z = v.z.data();
  const double* r = v.r.data();
  for (std::size_t blk = lo; blk < hi; ++blk) {
    if (colour == 0) {
      // Colour 0 has no lower neighbour: z = r / a_rr; the other rows start at 0.
      const rows rr = rows_of(a, blk);
      for (std::size_t h = rr.lo + off; h < rr.hi + off; ++h) z[h] = 0;
      for_colour_rows(a, 0, blk, [&](std::size_t lr) { z[lr + off] = r[lr + off] * a.inv_diag[lr]; });
    } else {
      for_colour_rows(a, colour, blk, [&](std::size_t lr) { relax_row(a, r, z, lr, off); });
    }
  }
}

void sgs_backward(const system& a, vectors& v, unsigned colour, std::size_t lo, std::size_t hi, double* partial) {
  const std::size_t off = a.part.offset();
  double* z = v.z.data();
  const double* r = v.r.data();
  for (std::size_t blk = lo; blk < hi; ++blk) {
    for_colour_rows(a, colour, blk, [&](std::size_t lr) { relax_row(a, r, z, lr, off); });
    if (partial == nullptr) continue;
    const rows rr = rows_of(a, blk);
    double s = 0;
    for (std::size_t h = rr.lo + off; h < rr.hi + off; ++h) s += r[h] * z[h];
    partial[blk] = s;
  }
}

void direction(const system& a, vectors& v, const double* z, double beta, bool first, std::size_t lo, std::size_t hi) {
  const std::size_t off = a.part.offset();
  for (std::size_t blk = lo; blk < hi; ++blk) {
    const rows rr = rows_of(a, blk);
    if (first) {
      for (std::size_t h = rr.lo + off; h < rr.hi + off; ++h) v.p[h] = z[h];
    } else {
      for (std::size_t h = rr.lo + off; h < rr.hi + off; ++h) v.p[h] = z[h] + beta * v.p[h];
    }
  }
}

void dot_rr(const system& a, const vectors& v, std::size_t lo, std::size_t hi, double* partial) {
  const std::size_t off = a.part.offset();
  block_sums(a, lo, hi, partial, [&](std::size_t lr) { return v.r[lr + off] * v.r[lr + off]; });
}

void residual(const system& a, const vectors& v, std::size_t lo, std::size_t hi, double* partial) {
  block_sums(a, lo, hi, partial, [&](std::size_t lr) {
    const double d = a.b[lr] - row_product(a, v.x.data(), lr);
    return d * d;
  });
}

}  // namespace kernels

}  // namespace pcg
