#pragma once
// The kernel of cws-floyd: PolyBench/C 4.2's floyd-warshall (int) on tiles
// of the n x n distance matrix `path` (row-major).
//
// Step k of the serial program relaxes every pair through vertex k, in place:
//   path[i][j] = min(path[i][j], path[i][k] + path[k][j])   for all i, j.
// The parallel program makes each step one phase over rectangular tiles of
// (i, j). In place, that would be a data race on row k and column k: the
// tiles holding them write them while every other tile reads them. But
// their entries never change in step k: path[k][j] becomes
// min(path[k][j], path[k][k] + path[k][j]), which is path[k][j] as long as
// path[k][k] >= 0, and the same holds for path[i][k]. Every entry of the
// initial matrix is in [1, 999] and a relaxation only ever writes a sum of
// such entries (at most 1998, no overflow) or keeps the old value, so the
// diagonal stays positive. relax_tiles therefore skips row k and column k:
// no task writes what another reads, and the result is the serial program's,
// exactly (reference.cpp runs that program as written, rows and columns k
// included, to check it).

#include <cstddef>
#include <cstdint>

namespace floyd {

// The tiles of an n x n matrix: bands of `rows` rows, each cut into tiles of
// `cols` columns (the last ones shorter when they do not divide n), numbered
// row-major, so that a range of tile numbers is a run of neighbouring tiles.
struct tiling {
  std::size_t n = 0, rows = 1, cols = 1;
  std::size_t per_band = 0;  // tiles across one band of rows
  std::size_t count = 0;     // tiles in all

  tiling(std::size_t n, std::size_t rows, std::size_t cols);
  std::size_t row_begin(std::size_t t) const noexcept { return (t / per_band) * rows; }
  std::size_t row_end(std::size_t t) const noexcept;
  std::size_t col_begin(std::size_t t) const noexcept { return (t % per_band) * cols; }
  std::size_t col_end(std::size_t t) const noexcept;
};

// PolyBench's initial matrix on tiles [first, last): (i*j mod 7) + 1, or 999
// when i+j is a multiple of 13, 7 or 11. Their first touch.
void init_tiles(int* path, const tiling& t, std::size_t first, std::size_t last);

// Step k on tiles [first, last): every entry outside row k and column k
// relaxed through k (see above).
void relax_tiles(int* path, const tiling& t, std::size_t k, std::size_t first, std::size_t last);

// Sum and maximum of the n*n entries (the checksums the README lists).
std::int64_t sum(const int* path, std::size_t n);
int max(const int* path, std::size_t n);

}  // namespace floyd
