#include "fdtd/fields.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace fdtd {

void init_rows(const fields& f, std::size_t lo, std::size_t hi) {
  const double nx = static_cast<double>(f.nx), ny = static_cast<double>(f.ny);
  for (std::size_t i = lo; i < hi; ++i) {
    double* const ex = f.ex + i * f.ny;
    double* const ey = f.ey + i * f.ny;
    double* const hz = f.hz + i * f.ny;
    const double di = static_cast<double>(i);
    for (std::size_t j = 0; j < f.ny; ++j) {
      ex[j] = di * static_cast<double>(j + 1) / nx;
      ey[j] = di * static_cast<double>(j + 2) / ny;
      hz[j] = di * static_cast<double>(j + 3) / nx;
    }
  }
}

void e_rows(const fields& f, std::size_t lo, std::size_t hi, double t) {
  const std::size_t ny = f.ny;
  for (std::size_t i = lo; i < hi; ++i) {
    double* __restrict const ey = f.ey + i * ny;
    double* __restrict const ex = f.ex + i * ny;
    const double* __restrict const hz = f.hz + i * ny;
    if (i == 0) {
      std::fill(ey, ey + ny, t);
    } else {
      const double* __restrict const hz_up = hz - ny;
      for (std::size_t j = 0; j < ny; ++j) ey[j] = ey[j] - 0.5 * (hz[j] - hz_up[j]);
    }
    for (std::size_t j = 1; j < ny; ++j) ex[j] = ex[j] - 0.5 * (hz[j] - hz[j - 1]);
  }
}

void h_rows(const fields& f, std::size_t lo, std::size_t hi) {
  const std::size_t ny = f.ny;
  hi = std::min(hi, f.nx - 1);
  for (std::size_t i = lo; i < hi; ++i) {
    double* __restrict const hz = f.hz + i * ny;
    const double* __restrict const ex = f.ex + i * ny;
    const double* __restrict const ey = f.ey + i * ny;
    const double* __restrict const ey_down = ey + ny;
    for (std::size_t j = 0; j + 1 < ny; ++j) hz[j] = hz[j] - 0.7 * (ex[j + 1] - ex[j] + ey_down[j] - ey[j]);
  }
}

double sum(const double* a, std::size_t n) {
  double s = 0;
  for (std::size_t k = 0; k < n; ++k) s += a[k];
  return s;
}

}  // namespace fdtd
