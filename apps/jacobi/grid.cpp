#include "jacobi/grid.hpp"

#include "common/five_point.hpp"

namespace jacobi {

void init_rows(double* a, double* b, std::size_t cols, std::size_t lo, std::size_t hi) {
  for (std::size_t i = lo; i < hi; ++i)
    for (std::size_t j = 0; j < cols; ++j) a[i * cols + j] = b[i * cols + j] = j == 0 ? 1.0 : 0.0;
}

void sweep_rows(const double* cur, double* next, std::size_t cols, std::size_t rows, std::size_t lo, std::size_t hi) {
  cws_apps::five_point_rows(cur, next, rows, cols, lo, hi, [](double up, double down, double left, double right) {
    return 0.25 * ((up + down) + (left + right) + source);
  });
}

std::vector<double> reference_run(std::size_t rows, std::size_t cols, unsigned sweeps) {
  std::vector<double> a(rows * cols), b(rows * cols);
  init_rows(a.data(), b.data(), cols, 0, rows);
  for (unsigned s = 0; s < sweeps; ++s) {
    sweep_rows(a.data(), b.data(), cols, rows, 0, rows);
    a.swap(b);
  }
  return a;
}

}  // namespace jacobi
