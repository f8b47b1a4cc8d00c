#include "floyd/paths.hpp"

#include <algorithm>

namespace floyd {

tiling::tiling(std::size_t n_, std::size_t rows_, std::size_t cols_)
    : n(n_),
      rows(std::clamp<std::size_t>(rows_, 1, std::max<std::size_t>(n_, 1))),
      cols(std::clamp<std::size_t>(cols_, 1, std::max<std::size_t>(n_, 1))) {
  per_band = (n + cols - 1) / cols;
  count = per_band * ((n + rows - 1) / rows);
}

std::size_t tiling::row_end(std::size_t t) const noexcept { return std::min(n, row_begin(t) + rows); }
std::size_t tiling::col_end(std::size_t t) const noexcept { return std::min(n, col_begin(t) + cols); }

void init_tiles(int* path, const tiling& t, std::size_t first, std::size_t last) {
  for (std::size_t tile = first; tile < last; ++tile) {
    const std::size_t j0 = t.col_begin(tile), j1 = t.col_end(tile);
    for (std::size_t i = t.row_begin(tile); i < t.row_end(tile); ++i) {
      int* const row = path + i * t.n;
      for (std::size_t j = j0; j < j1; ++j) {
        const std::size_t s = i + j;
        row[j] = s % 13 == 0 || s % 7 == 0 || s % 11 == 0 ? 999 : static_cast<int>(i * j % 7) + 1;
      }
    }
  }
}

namespace {
// row[j] = min(row[j], via + through[j]) for j in [lo, hi).
void relax_span(int* __restrict row, const int* __restrict through, int via, std::size_t lo, std::size_t hi) {
  for (std::size_t j = lo; j < hi; ++j) row[j] = std::min(row[j], via + through[j]);
}
}  // namespace

void relax_tiles(int* path, const tiling& t, std::size_t k, std::size_t first, std::size_t last) {
  const int* const row_k = path + k * t.n;
  for (std::size_t tile = first; tile < last; ++tile) {
    const std::size_t j0 = t.col_begin(tile), j1 = t.col_end(tile);
    // The columns of the tile left and right of column k.
    const std::size_t left_end = std::clamp(k, j0, j1), right_begin = std::clamp(k + 1, j0, j1);
    for (std::size_t i = t.row_begin(tile); i < t.row_end(tile); ++i) {
      if (i == k) continue;
      int* const row = path + i * t.n;
      const int via = row[k];  // column k: read-only in this step
      relax_span(row, row_k, via, j0, left_end);
      relax_span(row, row_k, via, right_begin, j1);
    }
  }
}

std::int64_t sum(const int* path, std::size_t n) {
  std::int64_t s = 0;
  for (std::size_t k = 0; k < n * n; ++k) s += path[k];
  return s;
}

int max(const int* path, std::size_t n) { return n == 0 ? 0 : *std::max_element(path, path + n * n); }

}  // namespace floyd
