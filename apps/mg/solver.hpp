#pragma once
// The NAS MG benchmark over a hierarchy of grids: NPB's V-cycle (mg3P) and
// its timed driver, with every kernel call handed to a plane_runner that
// decides how to run it (whole range on the caller, or a parallel loop of
// one variant). A kernel call is one parallel phase over the interior i3
// planes of the level it writes, so the task count of a phase halves with
// every level down the V-cycle.
//
//   mg::solver s(mg::class_named('S'), grids, runner);
//   s.first_touch();                 // zero every grid through the runner (page placement)
//   s.set_rhs(mg::find_charges(32));
//   s.reset();                       // u = 0 on the finest level
//   double rnm2 = s.benchmark().rnm2;

#include <array>
#include <cstddef>
#include <functional>
#include <string_view>

#include "mg/classes.hpp"
#include "mg/hierarchy.hpp"
#include "mg/zran3.hpp"

namespace mg {

// The loops of the benchmark, each over the interior planes of its output level.
enum class kernel {
  init,    // first touch: zero u, r (and v on the finest level)
  resid,   // r = v - A u (in place r = r - A u below the finest level)
  psinv,   // u += S r
  rprj3,   // r(level) = restriction of r(level + 1)
  interp,  // u(level) += prolongation of u(level - 1)
  norm,    // per-plane sums of r^2 on the finest level
};
inline constexpr std::size_t kernel_count = 6;
inline constexpr std::array<kernel, kernel_count> all_kernels{kernel::init,  kernel::resid,  kernel::psinv,
                                                              kernel::rprj3, kernel::interp, kernel::norm};
std::string_view to_string(kernel k) noexcept;

// How a kernel call runs: body(lo, hi) over consecutive sub-ranges covering
// the interior planes [0, planes) of `level`, each exactly once, and returns
// after all of them (a fork/join phase, or a plain call).
class plane_runner {
 public:
  using body_fn = std::function<void(std::size_t, std::size_t)>;
  virtual ~plane_runner() = default;
  virtual void run(kernel k, unsigned level, std::size_t planes, const body_fn& body) = 0;
  // True when the bodies run as cws tasks that should declare what they touch (cws::touch).
  virtual bool declares_touches(unsigned /*level*/) const { return false; }
};

// Runs every call as one body(0, planes) on the calling thread.
class serial_runner final : public plane_runner {
 public:
  void run(kernel, unsigned, std::size_t planes, const body_fn& body) override { body(0, planes); }
};

struct norms {
  double rnm2 = 0;  // sqrt(sum of r^2 / n^3) over the finest interior
  double rnmu = 0;  // max |r|
};

class solver {
 public:
  solver(const class_params& c, hierarchy& grids, plane_runner& runner);

  // Zeroes every grid (ghosts included) through the runner: the pages'
  // first touch, by the loops that will later use them.
  void first_touch();
  // v = the charges (+1 / -1 at 10 points each, 0 elsewhere), ghosts filled.
  // Writes only those points and v's ghosts: call after first_touch.
  void set_rhs(const charges& ch);
  // u = 0 on the finest level: the state before each benchmark (the lower
  // levels' u are cleared by every V-cycle).
  void reset();

  // NPB's timed region: r = v - A u; nit times (V-cycle; r = v - A u); the
  // norm. after_iteration(it, s) is called after the initial residual (it =
  // 0) and after each V-cycle's residual, outside nothing timed here (the
  // caller times the whole call, so pass none when timing).
  norms benchmark(const std::function<void(unsigned, solver&)>& after_iteration = {});

  // The norms of the finest residual, through the runner (kernel::norm).
  norms norm();

  // One V-cycle (NPB mg3P) from the finest residual.
  void vcycle();
  // r = v - A u on the finest level.
  void top_residual();

  const class_params& params() const noexcept { return c_; }
  hierarchy& grids() noexcept { return g_; }

 private:
  // The kernels, each one runner call (plus comm3's axis 3 on the caller).
  void resid(unsigned level, bool top);
  void psinv(unsigned level);
  void rprj3(unsigned coarse_level);
  void interp(unsigned fine_level, bool zero_first);

  const class_params& c_;
  hierarchy& g_;
  plane_runner& runner_;
};

}  // namespace mg
