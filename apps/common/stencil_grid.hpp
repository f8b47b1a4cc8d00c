#pragma once
// The phases of a two-buffer row stencil (cws-heat, cws-jacobi) on a
// variant's loops: an init run writes rows [lo, hi) of both buffers (their
// first touch); a step reads `cur` and writes the interior cells of `next`
// (rows 1 .. rows-2), then the buffers swap. The cws leaves first declare
// what they touch (touch.hpp), so every cws phase has a locality report:
// init, rows [lo, hi) of both buffers; a step, its interior rows [lo', hi')
// of `next` and rows lo'-1 .. hi' of `cur`, the 5-point stencil's halo.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/grid_difference.hpp"
#include "common/loop_suite.hpp"
#include "common/two_buffers.hpp"

namespace cws_apps {

struct row_grid {
  std::size_t rows = 0, cols = 0;
  std::size_t cells() const noexcept { return rows * cols; }
};

// Declares rows [lo, hi) of `p` as touched.
inline void touch_rows(const double* p, const row_grid& g, std::size_t lo, std::size_t hi) {
  if (lo < hi) cws::touch(p + lo * g.cols, (hi - lo) * g.cols * sizeof(double));
}

// One run of the init phase (`phase`): init(a, b, lo, hi) writes rows [lo, hi) of both buffers.
template <class Init>
double run_stencil_init(loop_variant& v, std::size_t phase, two_buffers& b, const row_grid& g, Init init) {
  double *const a = b.a.data(), *const c = b.b.data();
  const bool declare = v.runs_cws();
  b.restart();
  return v.loops->run(phase, [=](std::size_t lo, std::size_t hi) {
    if (declare) touch_rows(a, g, lo, hi), touch_rows(c, g, lo, hi);
    init(a, c, lo, hi);
  });
}

// One step (`phase`): step(cur, next, lo, hi) writes the interior cells of rows [lo, hi) of next; then the swap.
template <class Step>
double run_stencil_step(loop_variant& v, std::size_t phase, two_buffers& b, const row_grid& g, Step step) {
  const double* const cur = b.cur;
  double* const next = b.next;
  const bool declare = v.runs_cws();
  const double seconds = v.loops->run(phase, [=](std::size_t lo, std::size_t hi) {
    if (declare) {
      const std::size_t first = std::max<std::size_t>(lo, 1), last = std::min(hi, g.rows - 1);
      if (first < last) touch_rows(cur, g, first - 1, last + 1), touch_rows(next, g, first, last);
    }
    step(cur, next, lo, hi);
  });
  b.swap();
  return seconds;
}

// The prepare and one_run hooks of a stencil app (the app adds finish):
// prepare allocates variant v's buffers, buffers[v.index], and first-touches
// them with an untimed init run; a run is one init (phase 0, timed as
// "init") and `steps` steps (phase 1, timed as "step"). init_rows and
// step_rows as run_stencil_init's and run_stencil_step's.
template <class InitRows, class StepRows>
suite_hooks stencil_hooks(std::vector<std::optional<two_buffers>>& buffers, const row_grid& g, unsigned steps,
                          InitRows init_rows, StepRows step_rows) {
  const auto init = [&buffers, g, init_rows](loop_variant& v) {
    return run_stencil_init(v, 0, *buffers[v.index], g, init_rows);
  };
  const auto step = [&buffers, g, step_rows](loop_variant& v) {
    return run_stencil_step(v, 1, *buffers[v.index], g, step_rows);
  };
  return {
      .prepare = [&buffers, g, init](loop_variant& v) { buffers[v.index].emplace(g.cells(), v.placement), init(v); },
      .one_run =
          [init, step, steps](loop_variant& v, phase_timer& t) {
            t.time_reported("init", 1, [&] { return init(v); });
            t.time_reported("step", steps, [&] { return step(v); });
          },
      .finish = {}};
}

// "<variant>: 3 cell(s) differ ..." when `got` is not `want` cell for cell, else "" (grid_difference.hpp).
inline std::string compare_grids(const std::string& variant, const double* got, const double* want, const row_grid& g) {
  return grid_difference(variant, "cell(s)", got, want, g.cells(), g.cols);
}

}  // namespace cws_apps
