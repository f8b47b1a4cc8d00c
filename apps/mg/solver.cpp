#include "mg/solver.hpp"

#include <algorithm>
#include <cmath>

#include <cws/touch.hpp>

#include "mg/kernels.hpp"

namespace mg {

namespace {

// Declares planes [p0, p1) of a grid of extent m as touched by the calling
// leaf (cws::touch; a no-op outside a cws phase).
void touch_planes(const double* g, std::size_t m, std::size_t p0, std::size_t p1) {
  if (p1 > p0) cws::touch(g + m * m * p0, (p1 - p0) * m * m * sizeof(double));
}

// The ghost-inclusive planes of interior range [lo, hi) of a level with
// `planes` interior planes, for the loops that also write the ghost planes
// (first touch, interp): the first leaf takes plane 0, the last plane m-1.
struct plane_range {
  std::size_t first, last;
};
plane_range with_ghosts(std::size_t lo, std::size_t hi, std::size_t planes) {
  return {lo == 0 ? 0 : lo + 1, hi == planes ? planes + 2 : hi + 1};
}

}  // namespace

std::string_view to_string(kernel k) noexcept {
  constexpr std::array<std::string_view, kernel_count> names{"init", "resid", "psinv", "rprj3", "interp", "norm"};
  const auto i = static_cast<std::size_t>(k);
  return i < names.size() ? names[i] : "?";
}

solver::solver(const class_params& c, hierarchy& grids, plane_runner& runner) : c_(c), g_(grids), runner_(runner) {}

void solver::first_touch() {
  const unsigned lt = g_.levels();
  for (unsigned k = lt; k >= 1; --k) {
    const std::size_t m = extent_of(k), planes = interior_of(k);
    double* u = g_.u(k);
    double* r = g_.r(k);
    double* v = k == lt ? g_.v() : nullptr;
    const bool declare = runner_.declares_touches(k);
    runner_.run(kernel::init, k, planes, [=](std::size_t lo, std::size_t hi) {
      const plane_range p = with_ghosts(lo, hi, planes);
      for (double* g : {u, r, v}) {
        if (g == nullptr) continue;
        if (declare) touch_planes(g, m, p.first, p.last);
        zero_planes(g, m, p.first, p.last);
      }
    });
  }
}

void solver::set_rhs(const charges& ch) {
  const unsigned lt = g_.levels();
  const std::size_t m = extent_of(lt);
  double* v = g_.v();
  // first_touch left v zero; the charges go to interior points, then the ghosts.
  for (const grid_point& p : ch.minus) v[p.i1 + m * (p.i2 + m * p.i3)] = -1.0;
  for (const grid_point& p : ch.plus) v[p.i1 + m * (p.i2 + m * p.i3)] = +1.0;
  comm3(v, m);
}

void solver::reset() {
  const unsigned lt = g_.levels();
  zero_planes(g_.u(lt), extent_of(lt), 0, extent_of(lt));
}

void solver::resid(unsigned level, bool top) {
  const std::size_t m = extent_of(level);
  const double* u = g_.u(level);
  double* r = g_.r(level);
  const double* v = top ? g_.v() : r;  // below the finest level: in place, r = r - A u
  const bool declare = runner_.declares_touches(level);
  const std::array<double, 4> a = operator_a;
  runner_.run(kernel::resid, level, interior_of(level), [=](std::size_t lo, std::size_t hi) {
    if (declare) {
      touch_planes(u, m, lo, hi + 2);
      if (v != r) touch_planes(v, m, lo + 1, hi + 1);
      touch_planes(r, m, lo + 1, hi + 1);
    }
    mg::resid(u, v, r, m, lo + 1, hi + 1, a);
  });
  comm3_axis3(r, m);
}

void solver::psinv(unsigned level) {
  const std::size_t m = extent_of(level);
  const double* r = g_.r(level);
  double* u = g_.u(level);
  const bool declare = runner_.declares_touches(level);
  const std::array<double, 4> c = c_.smoother;
  runner_.run(kernel::psinv, level, interior_of(level), [=](std::size_t lo, std::size_t hi) {
    if (declare) {
      touch_planes(r, m, lo, hi + 2);
      touch_planes(u, m, lo + 1, hi + 1);
    }
    mg::psinv(r, u, m, lo + 1, hi + 1, c);
  });
  comm3_axis3(u, m);
}

void solver::rprj3(unsigned coarse_level) {
  const std::size_t mc = extent_of(coarse_level), mf = extent_of(coarse_level + 1);
  const double* fine = g_.r(coarse_level + 1);
  double* coarse = g_.r(coarse_level);
  const bool declare = runner_.declares_touches(coarse_level);
  runner_.run(kernel::rprj3, coarse_level, interior_of(coarse_level), [=](std::size_t lo, std::size_t hi) {
    if (declare) {
      touch_planes(fine, mf, 2 * lo + 1, 2 * hi + 2);  // fine planes 2j-1 .. 2j+1 of coarse planes j = lo+1 .. hi
      touch_planes(coarse, mc, lo + 1, hi + 1);
    }
    mg::rprj3(fine, mf, coarse, mc, lo + 1, hi + 1);
  });
  comm3_axis3(coarse, mc);
}

void solver::interp(unsigned fine_level, bool zero_first) {
  const std::size_t mf = extent_of(fine_level), mc = extent_of(fine_level - 1), planes = interior_of(fine_level);
  const double* coarse = g_.u(fine_level - 1);
  double* fine = g_.u(fine_level);
  const bool declare = runner_.declares_touches(fine_level);
  // The coarse level's pages have a home only if its own loops ran as cws
  // phases (a level run on the caller declares nothing).
  const bool declare_coarse = runner_.declares_touches(fine_level - 1);
  runner_.run(kernel::interp, fine_level, planes, [=](std::size_t lo, std::size_t hi) {
    const plane_range p = with_ghosts(lo, hi, planes);
    if (declare) {
      if (declare_coarse) touch_planes(coarse, mc, p.first / 2, std::min(mc, (p.last - 1) / 2 + 2));
      touch_planes(fine, mf, p.first, p.last);
    }
    mg::interp(coarse, mc, fine, mf, p.first, p.last, zero_first);
  });
}

void solver::top_residual() { resid(g_.levels(), true); }

void solver::vcycle() {
  const unsigned lt = g_.levels();
  // Down: restrict the residual to every coarser level.
  for (unsigned k = lt; k >= 2; --k) rprj3(k - 1);
  // Coarsest level: u = S r from u = 0.
  zero_planes(g_.u(1), extent_of(1), 0, extent_of(1));
  psinv(1);
  // Up: each intermediate level starts from the prolongated correction
  // (u = 0 first), updates its residual in place and smooths.
  for (unsigned k = 2; k < lt; ++k) {
    interp(k, true);
    resid(k, false);
    psinv(k);
  }
  // Finest level: the correction accumulates into u across V-cycles.
  interp(lt, false);
  resid(lt, true);
  psinv(lt);
}

norms solver::norm() {
  const unsigned lt = g_.levels();
  const std::size_t m = extent_of(lt), planes = interior_of(lt);
  const double* r = g_.r(lt);
  double* sums = g_.plane_sums();
  double* maxima = g_.plane_maxima();
  const bool declare = runner_.declares_touches(lt);
  runner_.run(kernel::norm, lt, planes, [=](std::size_t lo, std::size_t hi) {
    if (declare) touch_planes(r, m, lo + 1, hi + 1);
    norm_planes(r, m, lo + 1, hi + 1, sums, maxima);
  });
  // Summed in plane order whatever ran the planes: the same bits for every variant.
  double s = 0, mx = 0;
  for (std::size_t p = 0; p < planes; ++p) {
    s += sums[p];
    mx = std::max(mx, maxima[p]);
  }
  const double points = static_cast<double>(planes) * static_cast<double>(planes) * static_cast<double>(planes);
  return {std::sqrt(s / points), mx};
}

norms solver::benchmark(const std::function<void(unsigned, solver&)>& after_iteration) {
  top_residual();
  if (after_iteration) after_iteration(0, *this);
  for (unsigned it = 1; it <= c_.iterations; ++it) {
    vcycle();
    top_residual();
    if (after_iteration) after_iteration(it, *this);
  }
  return norm();
}

}  // namespace mg
