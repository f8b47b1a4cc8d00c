#pragma once
// One step of a 5-point stencil over rows [lo, hi) of a rows x cols grid
// (cws-heat, cws-jacobi): the range is clipped to the interior rows, and
// every interior cell of `next` gets cell(up, down, left, right), its four
// neighbours in `cur`. The border cells of `next` are left as they are.

#include <algorithm>
#include <cstddef>

namespace cws_apps {

template <class Cell>
void five_point_rows(const double* cur, double* next, std::size_t rows, std::size_t cols, std::size_t lo,
                     std::size_t hi, Cell cell) {
  lo = std::max<std::size_t>(lo, 1);
  hi = std::min(hi, rows - 1);
  for (std::size_t i = lo; i < hi; ++i) {
    const double* up = cur + (i - 1) * cols;
    const double* row = cur + i * cols;
    const double* down = cur + (i + 1) * cols;
    double* out = next + i * cols;
    for (std::size_t j = 1; j + 1 < cols; ++j) out[j] = cell(up[j], down[j], row[j - 1], row[j + 1]);
  }
}

}  // namespace cws_apps
