#include "lulesh/time_step.hpp"

#include <atomic>
#include <cmath>
#include <cstddef>

namespace lulesh {

namespace {

// Lowers `target` to `value` if smaller. The minimum of a set of doubles does
// not depend on the order they arrive in, so the result is deterministic.
void lower_to(std::atomic<real>& target, real value) noexcept {
  real current = target.load(std::memory_order_relaxed);
  while (value < current && !target.compare_exchange_weak(current, value, std::memory_order_relaxed)) {
  }
}

}  // namespace

void time_constraints(domain& d, loop_runner& loops) {
  const real qqc2 = real(64.0) * d.param.qqc * d.param.qqc;
  const real dvovmax = d.param.dvovmax;
  std::atomic<real> courant{real(1.0e+20)}, hydro{real(1.0e+20)};
  loops.run(loop_id::time_constraints, d.num_elem(), hint_target(d.vdov), [&](std::size_t lo, std::size_t hi) {
    real dtc = real(1.0e+20), dth = real(1.0e+20);
    for (std::size_t i = lo; i < hi; ++i) {
      const real vdov = d.vdov[i];
      if (vdov == real(0.)) continue;  // neither constraint applies to an element at rest
      real dtf = d.ss[i] * d.ss[i];
      if (vdov < real(0.)) dtf = dtf + qqc2 * d.arealg[i] * d.arealg[i] * vdov * vdov;
      dtf = std::sqrt(dtf);
      dtf = d.arealg[i] / dtf;
      if (dtf < dtc) dtc = dtf;
      const real dtdvov = dvovmax / (std::fabs(vdov) + real(1.e-20));
      if (dtdvov < dth) dth = dtdvov;
    }
    lower_to(courant, dtc);
    lower_to(hydro, dth);
  });
  d.clock.dtcourant = courant.load(std::memory_order_relaxed);
  d.clock.dthydro = hydro.load(std::memory_order_relaxed);
}

void time_increment(domain& d) {
  clock_state& c = d.clock;
  const constants& k = d.param;
  real targetdt = k.stoptime - c.time;
  if (c.cycle != 0) {
    const real olddt = c.deltatime;
    real newdt = real(1.0e+20);
    if (c.dtcourant < newdt) newdt = c.dtcourant / real(2.0);
    if (c.dthydro < newdt) newdt = c.dthydro * real(2.0) / real(3.0);
    const real ratio = newdt / olddt;
    if (ratio >= real(1.0)) {
      if (ratio < k.deltatimemultlb)
        newdt = olddt;
      else if (ratio > k.deltatimemultub)
        newdt = olddt * k.deltatimemultub;
    }
    if (newdt > k.dtmax) newdt = k.dtmax;
    c.deltatime = newdt;
  }
  // Avoid a very small last step: split the remainder when it is under 4/3 of a step.
  if (targetdt > c.deltatime && targetdt < (real(4.0) * c.deltatime / real(3.0)))
    targetdt = real(2.0) * c.deltatime / real(3.0);
  if (targetdt < c.deltatime) c.deltatime = targetdt;
  c.time += c.deltatime;
  ++c.cycle;
}

}  // namespace lulesh
