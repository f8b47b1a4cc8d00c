#pragma once
// The two phases of cws-floyd on a variant's loops (common/loop_suite.hpp),
// one leaf per tile: init writes its tiles of the matrix (their first touch),
// step k relaxes them through vertex k (floyd/paths.hpp). The cws leaves
// first declare what they touch (touch.hpp).

#include <cstddef>

#include "common/loop_suite.hpp"
#include "floyd/paths.hpp"

namespace floyd {

enum phase_id { init_phase = 0, step_phase = 1 };

using matrix = cws::numa::array<int>;  // first touched by the variant's own init loop, untimed

// What a leaf of tiles [first, last) touches, declared by the cws variants
// (touch.hpp): init writes its tiles; step k writes its tiles and reads the
// tiles' part of row k, path[k][j0..j1). A tile is one call, a block of rows
// (touch_rows): a call per row cost a fifth of a step at n = 512. A step
// also reads path[i][k] of its rows, one int per row, left undeclared: a
// block of 4-byte rows would double what a leaf declares for 1/cols of its
// bytes.
inline void touch_tiles(const int* path, const tiling& t, std::size_t first, std::size_t last) {
  for (std::size_t tile = first; tile < last; ++tile)
    cws::touch_rows(path + t.row_begin(tile) * t.n + t.col_begin(tile), t.row_end(tile) - t.row_begin(tile),
                    (t.col_end(tile) - t.col_begin(tile)) * sizeof(int), t.n * sizeof(int));
}
inline void touch_step(const int* path, const tiling& t, std::size_t k, std::size_t first, std::size_t last) {
  touch_tiles(path, t, first, last);
  for (std::size_t tile = first; tile < last; ++tile)
    cws::touch(path + k * t.n + t.col_begin(tile), (t.col_end(tile) - t.col_begin(tile)) * sizeof(int));
}

inline double run_init(cws_apps::loop_variant& v, matrix& m, const tiling& t) {
  int* const path = m.data();
  const bool declare = v.runs_cws();
  return v.loops->run(init_phase, [=, &t](std::size_t first, std::size_t last) {
    if (declare) touch_tiles(path, t, first, last);
    init_tiles(path, t, first, last);
  });
}
inline double run_step(cws_apps::loop_variant& v, matrix& m, const tiling& t, std::size_t k) {
  int* const path = m.data();
  const bool declare = v.runs_cws();
  return v.loops->run(step_phase, [=, &t](std::size_t first, std::size_t last) {
    if (declare) touch_step(path, t, k, first, last);
    relax_tiles(path, t, k, first, last);
  });
}

}  // namespace floyd
