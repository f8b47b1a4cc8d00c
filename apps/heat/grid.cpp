#include "heat/grid.hpp"

#include "common/five_point.hpp"

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
  cws_apps::five_point_rows(cur, next, n, n, lo, hi, [](double up, double down, double left, double right) {
    return 0.25 * ((up + down) + (left + right));
  });
}

}  // namespace heat
