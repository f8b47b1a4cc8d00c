#include "heat/grid.hpp"

#include <algorithm>

namespace heat {

void init_rows(double* a, double* b, std::size_t n, std::size_t lo, std::size_t hi) {
  for (std::size_t i = lo; i < hi; ++i) {
    double* ra = a + i * n;
    double* rb = b + i * n;
    for (std::size_t j = 0; j < n; ++j) {
      double v;
      if (i == 0)
        v = hot_edge;
      else if (i == n - 1 || j == 0 || j == n - 1)
        v = cold_edge;
      else
        v = 1.0 + static_cast<double>((i * 7 + j * 13) % 64) / 64.0;
      ra[j] = v;
      rb[j] = v;
    }
  }
}

void step_rows(const double* cur, double* next, std::size_t n, std::size_t lo, std::size_t hi) {
  lo = std::max<std::size_t>(lo, 1);
  hi = std::min(hi, n - 1);
  for (std::size_t i = lo; i < hi; ++i) {
    const double* up = cur + (i - 1) * n;
    const double* row = cur + i * n;
    const double* down = cur + (i + 1) * n;
    double* out = next + i * n;
    for (std::size_t j = 1; j + 1 < n; ++j) out[j] = 0.25 * ((up[j] + down[j]) + (row[j - 1] + row[j + 1]));
  }
}

}  // namespace heat
