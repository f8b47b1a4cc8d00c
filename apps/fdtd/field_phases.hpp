#pragma once
// The phases of cws-fdtd on a variant's loops (common/loop_suite.hpp): an
// init phase writes the three fields (their first touch), then every time
// step is an e phase and an h phase over the same row blocks
// (fdtd/fields.hpp says why two are needed and enough). The cws leaves first
// declare what they touch (touch.hpp), as the kernels of fields.cpp read and
// write them.

#include <algorithm>
#include <cstddef>

#include "common/loop_suite.hpp"
#include "fdtd/fields.hpp"

namespace fdtd {

// The loops of a variant, in this order (block_loops phase index).
enum phase_id : std::size_t { init_phase = 0, e_phase = 1, h_phase = 2 };

// The three fields of one variant, first touched by the variant's own init
// loop in an untimed phase before the runs, and the per-run means of its
// two step phases.
struct field_arrays {
  cws::numa::array<double> ex, ey, hz;
  fields view;
  cws_apps::samples e_samples{}, h_samples{};  // per run: the mean seconds of one e / h phase
  field_arrays(std::size_t nx, std::size_t ny, cws::numa::placement where)
      : ex(cws::numa::allocate<double>(nx * ny, where)),
        ey(cws::numa::allocate<double>(nx * ny, where)),
        hz(cws::numa::allocate<double>(nx * ny, where)),
        view{ex.data(), ey.data(), hz.data(), nx, ny} {}
};

// What a leaf of rows [lo, hi) touches, declared by the cws variants
// (touch.hpp), as the kernels of fields.cpp read and write them.
inline void touch_rows(const double* a, const fields& f, std::size_t lo, std::size_t hi) {
  if (lo < hi) cws::touch(a + lo * f.ny, (hi - lo) * f.ny * sizeof(double));
}
inline void touch_init(const fields& f, std::size_t lo, std::size_t hi) {
  for (const double* a : {f.ex, f.ey, f.hz}) touch_rows(a, f, lo, hi);
}
// e: writes ey and ex of rows [lo, hi); reads hz of rows lo-1 (not for row 0) .. hi-1.
inline void touch_e(const fields& f, std::size_t lo, std::size_t hi) {
  touch_rows(f.ey, f, lo, hi);
  touch_rows(f.ex, f, lo, hi);
  touch_rows(f.hz, f, lo == 0 ? 0 : lo - 1, hi);
}
// h: writes hz and reads ex of rows [lo, h), reads ey of rows [lo, h + 1),
// where h = min(hi, nx - 1) (the last row of hz is never written).
inline void touch_h(const fields& f, std::size_t lo, std::size_t hi) {
  hi = std::min(hi, f.nx - 1);
  if (lo >= hi) return;
  touch_rows(f.hz, f, lo, hi);
  touch_rows(f.ex, f, lo, hi);
  touch_rows(f.ey, f, lo, hi + 1);
}

// One run of loop `phase` over the variant's fields, each leaf declaring
// its touches first (cws variants); returns the seconds that count.
template <class Touch, class Kernel>
double run_rows(cws_apps::loop_variant& v, std::size_t phase, const fields& f, Touch touch, Kernel kernel) {
  const bool declare = v.runs_cws();
  return v.loops->run(phase, [=](std::size_t lo, std::size_t hi) {
    if (declare) touch(f, lo, hi);
    kernel(f, lo, hi);
  });
}
inline double run_init(cws_apps::loop_variant& v, const fields& f) {
  return run_rows(v, init_phase, f, touch_init, init_rows);
}

// One run: the init phase, then `steps` time steps of an e and an h phase,
// each step timed as a whole and each phase kept apart (e ms, h ms).
inline void one_run(cws_apps::loop_variant& v, field_arrays& a, unsigned steps, cws_apps::phase_timer& t) {
  t.time_reported("init", 1, [&] { return run_init(v, a.view); });
  double e_sum = 0, h_sum = 0;
  unsigned step = 0;
  t.time_reported("step", steps, [&] {
    const double time = static_cast<double>(step++);
    const double e =
        run_rows(v, e_phase, a.view, touch_e,
                 [time](const fields& f, std::size_t lo, std::size_t hi) { e_rows(f, lo, hi, time); });
    const double h = run_rows(v, h_phase, a.view, touch_h, h_rows);
    e_sum += e, h_sum += h;
    return e + h;
  });
  if (t.recording()) a.e_samples.add(e_sum / steps), a.h_samples.add(h_sum / steps);
}

}  // namespace fdtd
