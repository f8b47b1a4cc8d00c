#include "sor/grid.hpp"

#include <algorithm>
#include <cmath>

#include "common/cell_values.hpp"

namespace sor {

namespace {

using cws_apps::unit_value;

void relax_row(float* __restrict row, const float* __restrict up, const float* __restrict down, std::size_t n) {
  constexpr float quarter_omega = omega / 4, keep = 1 - omega;
  for (std::size_t j = 1; j + 1 < n; ++j)
    row[j] = quarter_omega * (up[j] + down[j] + row[j - 1] + row[j + 1]) + keep * row[j];
}

}  // namespace

void init_rows(const grid& g, std::size_t lo, std::size_t hi) {
  for (std::size_t i = lo; i < hi; ++i) {
    float* const row = g.cells + i * g.n;
    if (i == 0 || i + 1 == g.n) {
      std::fill(row, row + g.n, i == 0 ? 1.0f : 0.0f);
      continue;
    }
    for (std::size_t j = 0; j < g.n; ++j) row[j] = unit_value(i, j);
  }
}

row_span rows_of(colour c, std::size_t lo, std::size_t hi, std::size_t n) noexcept {
  lo = std::max<std::size_t>(lo, 1);
  hi = std::min(hi, n - 1);
  if (lo >= hi) return {lo, lo};
  // Red rows are odd: row i has colour (i + 1) % 2.
  const std::size_t first = (lo + 1) % 2 == static_cast<std::size_t>(c) ? lo : lo + 1;
  if (first >= hi) return {first, first};
  const std::size_t last = (hi - 1 + 1) % 2 == static_cast<std::size_t>(c) ? hi - 1 : hi - 2;
  return {first, last + 1};
}

void relax_rows(const grid& g, std::size_t lo, std::size_t hi, colour c) {
  const row_span rows = rows_of(c, lo, hi, g.n);
  for (std::size_t i = rows.first; i < rows.end; i += 2) {
    float* const row = g.cells + i * g.n;
    relax_row(row, row - g.n, row + g.n, g.n);
  }
}

void relax_all_rows(const grid& g, std::size_t lo, std::size_t hi) {
  lo = std::max<std::size_t>(lo, 1);
  hi = std::min(hi, g.n - 1);
  for (std::size_t i = lo; i < hi; ++i) {
    float* const row = g.cells + i * g.n;
    // Not restrict-qualified: the neighbour rows may be written by other tasks meanwhile.
    constexpr float quarter_omega = omega / 4, keep = 1 - omega;
    const float* const up = row - g.n;
    const float* const down = row + g.n;
    for (std::size_t j = 1; j + 1 < g.n; ++j)
      row[j] = quarter_omega * (up[j] + down[j] + row[j - 1] + row[j + 1]) + keep * row[j];
  }
}

std::vector<float> serial_run(std::size_t n, unsigned sweeps) {
  std::vector<float> cells(n * n);
  const grid g{cells.data(), n};
  init_rows(g, 0, n);
  for (unsigned s = 0; s < sweeps; ++s) {
    relax_rows(g, 1, n - 1, colour::red);
    relax_rows(g, 1, n - 1, colour::black);
  }
  return cells;
}

std::size_t non_finite(const float* a, std::size_t n) {
  std::size_t count = 0;
  for (std::size_t k = 0; k < n; ++k) count += !std::isfinite(a[k]);
  return count;
}

}  // namespace sor
