#include "cg/kernels.hpp"

namespace cg {

double start_rows(const double* x, double* q, double* z, double* r, double* p, std::size_t lo, std::size_t hi) {
  double rho = 0.0;
  for (std::size_t j = lo; j < hi; ++j) {
    q[j] = 0.0;
    z[j] = 0.0;
    r[j] = x[j];
    p[j] = r[j];
    rho += r[j] * r[j];
  }
  return rho;
}

void spmv_rows(csr_view m, const double* in, double* out, std::size_t lo, std::size_t hi) {
  for (std::size_t j = lo; j < hi; ++j) {
    double sum = 0.0;
    for (std::int64_t k = m.rowstr[j]; k < m.rowstr[j + 1]; ++k) sum += m.a[k] * in[m.colidx[k]];
    out[j] = sum;
  }
}

double dot_rows(const double* a, const double* b, std::size_t lo, std::size_t hi) {
  double sum = 0.0;
  for (std::size_t j = lo; j < hi; ++j) sum += a[j] * b[j];
  return sum;
}

double update_rows(double alpha, const double* p, const double* q, double* z, double* r, std::size_t lo,
                   std::size_t hi) {
  double rho = 0.0;
  for (std::size_t j = lo; j < hi; ++j) {
    z[j] = z[j] + alpha * p[j];
    r[j] = r[j] - alpha * q[j];
    rho += r[j] * r[j];
  }
  return rho;
}

void direction_rows(double beta, const double* r, double* p, std::size_t lo, std::size_t hi) {
  for (std::size_t j = lo; j < hi; ++j) p[j] = r[j] + beta * p[j];
}

double residual_rows(csr_view m, const double* z, const double* x, double* r, std::size_t lo, std::size_t hi) {
  spmv_rows(m, z, r, lo, hi);
  double sum = 0.0;
  for (std::size_t j = lo; j < hi; ++j) {
    const double d = x[j] - r[j];
    sum += d * d;
  }
  return sum;
}

void norms_rows(const double* x, const double* z, std::size_t lo, std::size_t hi, double& xz, double& zz) {
  double s1 = 0.0, s2 = 0.0;
  for (std::size_t j = lo; j < hi; ++j) {
    s1 += x[j] * z[j];
    s2 += z[j] * z[j];
  }
  xz = s1;
  zz = s2;
}

void normalize_rows(double scale, const double* z, double* x, std::size_t lo, std::size_t hi) {
  for (std::size_t j = lo; j < hi; ++j) x[j] = scale * z[j];
}

}  // namespace cg
