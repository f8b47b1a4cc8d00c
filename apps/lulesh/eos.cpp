#include "lulesh/eos.hpp"

#include <cmath>
#include <cstddef>

namespace lulesh {

namespace {

constexpr real c1s = real(2.0) / real(3.0);  // the ideal gas's (gamma - 1)
constexpr real sound_floor = real(.1111111e-36);
constexpr real sound_floor_value = real(.3333333e-18);

// sqrt(x), or a tiny sound speed when x is not above LULESH's floor.
inline real floored_sqrt(real x) { return x <= sound_floor ? sound_floor_value : std::sqrt(x); }

// Pressure of element i from energy `e_in` at compression `comp`, with the
// EOS derivatives bvc and pbvc left for the q and sound-speed stages.
void pressure(domain& d, std::size_t i, const field& e_in, const field& comp, field& p_out) {
  d.bvc[i] = c1s * (comp[i] + real(1.));
  d.pbvc[i] = c1s;
  real p = d.bvc[i] * e_in[i];
  if (std::fabs(p) < d.param.p_cut) p = real(0.0);
  if (d.vnewc[i] >= d.param.eosvmax) p = real(0.0);  // cannot happen after the bounds, kept as LULESH has it
  if (p < d.param.pmin) p = d.param.pmin;
  p_out[i] = p;
}

// The q of a compressing element from its sound speed at relative volume
// `vol` and pressure `p`: ssc * ql + qq.
inline real viscosity(const domain& d, std::size_t i, real vol, real p) {
  const real ssc = floored_sqrt((d.pbvc[i] * d.e_new[i] + vol * vol * d.bvc[i] * p) / d.param.refdens);
  return ssc * d.ql_old[i] + d.qq_old[i];
}

// The energy cut-offs: tiny energies are zero, and none is below emin.
inline real cut_energy(const domain& d, real e) {
  if (std::fabs(e) < d.param.e_cut) e = real(0.);
  if (e < d.param.emin) e = d.param.emin;
  return e;
}

}  // namespace

void apply_material(domain& d, loop_runner& loops) {
  const std::size_t ne = d.num_elem();
  const constants& k = d.param;
  // Loop body over [lo, hi), one element at a time.
  const auto each = [](auto&& f) {
    return [f](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) f(i);
    };
  };

  loops.run(loop_id::material, ne, hint_target(d.vnewc), each([&](std::size_t i) {
              real vn = d.vnew[i];
              if (k.eosvmin != real(0.) && vn < k.eosvmin) vn = k.eosvmin;
              if (k.eosvmax != real(0.) && vn > k.eosvmax) vn = k.eosvmax;
              d.vnewc[i] = vn;
              // LULESH's check of the old volume, bounded the same way.
              real vc = d.v[i];
              if (k.eosvmin != real(0.) && vc < k.eosvmin) vc = k.eosvmin;
              if (k.eosvmax != real(0.) && vc > k.eosvmax) vc = k.eosvmax;
              if (vc <= 0.) d.flag(failure::negative_volume);
            }));
  d.check();

  // EvalEOSForElems: the old state, then the compressions.
  loops.run(loop_id::eos_gather, ne, hint_target(d.e_old), each([&](std::size_t i) {
              d.e_old[i] = d.e[i];
              d.delvc[i] = d.delv[i];
              d.p_old[i] = d.p[i];
              d.q_old[i] = d.q[i];
              d.qq_old[i] = d.qq[i];
              d.ql_old[i] = d.ql[i];
            }));
  loops.run(loop_id::eos_compression, ne, hint_target(d.compression), each([&](std::size_t i) {
              d.compression[i] = real(1.) / d.vnewc[i] - real(1.);
              const real vchalf = d.vnewc[i] - d.delvc[i] * real(.5);
              d.comp_half_step[i] = real(1.) / vchalf - real(1.);
              if (k.eosvmin != real(0.) && d.vnewc[i] <= k.eosvmin) d.comp_half_step[i] = d.compression[i];
              if (k.eosvmax != real(0.) && d.vnewc[i] >= k.eosvmax) {
                d.p_old[i] = real(0.);
                d.compression[i] = real(0.);
                d.comp_half_step[i] = real(0.);
              }
              d.work[i] = real(0.);
            }));

  // CalcEnergyForElems: predictor at the half step...
  loops.run(loop_id::energy_predict, ne, hint_target(d.e_new), each([&](std::size_t i) {
              real e = d.e_old[i] - real(0.5) * d.delvc[i] * (d.p_old[i] + d.q_old[i]) + real(0.5) * d.work[i];
              if (e < k.emin) e = k.emin;
              d.e_new[i] = e;
            }));
  loops.run(loop_id::pressure_half, ne, hint_target(d.p_half),
            each([&](std::size_t i) { pressure(d, i, d.e_new, d.comp_half_step, d.p_half); }));
  loops.run(loop_id::energy_correct, ne, hint_target(d.q_new), each([&](std::size_t i) {
              if (d.delvc[i] > real(0.)) {
                d.q_new[i] = real(0.);
              } else {
                const real vhalf = real(1.) / (real(1.) + d.comp_half_step[i]);
                d.q_new[i] = viscosity(d, i, vhalf, d.p_half[i]);
              }
              d.e_new[i] =
                  d.e_new[i] + real(0.5) * d.delvc[i] *
                                   (real(3.0) * (d.p_old[i] + d.q_old[i]) - real(4.0) * (d.p_half[i] + d.q_new[i]));
            }));
  loops.run(loop_id::energy_work, ne, hint_target(d.e_new), each([&](std::size_t i) {
              d.e_new[i] += real(0.5) * d.work[i];
              d.e_new[i] = cut_energy(d, d.e_new[i]);
            }));
  // ... corrector with the full-step pressure ...
  loops.run(loop_id::pressure_full, ne, hint_target(d.p_new),
            each([&](std::size_t i) { pressure(d, i, d.e_new, d.compression, d.p_new); }));
  loops.run(loop_id::energy_final, ne, hint_target(d.e_new), each([&](std::size_t i) {
              const real sixth = real(1.0) / real(6.0);
              const real q_tilde = d.delvc[i] > real(0.) ? real(0.) : viscosity(d, i, d.vnewc[i], d.p_new[i]);
              const real e = d.e_new[i] - (real(7.0) * (d.p_old[i] + d.q_old[i]) -
                                           real(8.0) * (d.p_half[i] + d.q_new[i]) + (d.p_new[i] + q_tilde)) *
                                              d.delvc[i] * sixth;
              d.e_new[i] = cut_energy(d, e);
            }));
  // ... and the final pressure and q.
  loops.run(loop_id::pressure_final, ne, hint_target(d.p_new),
            each([&](std::size_t i) { pressure(d, i, d.e_new, d.compression, d.p_new); }));
  loops.run(loop_id::viscosity_final, ne, hint_target(d.q_new), each([&](std::size_t i) {
              if (d.delvc[i] <= real(0.)) {
                real q = viscosity(d, i, d.vnewc[i], d.p_new[i]);
                if (std::fabs(q) < k.q_cut) q = real(0.);
                d.q_new[i] = q;
              }
            }));

  loops.run(loop_id::eos_store, ne, hint_target(d.e), each([&](std::size_t i) {
              d.p[i] = d.p_new[i];
              d.e[i] = d.e_new[i];
              d.q[i] = d.q_new[i];
            }));
  loops.run(loop_id::sound_speed, ne, hint_target(d.ss), each([&](std::size_t i) {
              d.ss[i] =
                  floored_sqrt((d.pbvc[i] * d.e_new[i] + d.vnewc[i] * d.vnewc[i] * d.bvc[i] * d.p_new[i]) / k.refdens);
            }));
  loops.run(loop_id::volume_update, ne, hint_target(d.v), each([&](std::size_t i) {
              real v = d.vnew[i];
              if (std::fabs(v - real(1.0)) < k.v_cut) v = real(1.0);
              d.v[i] = v;
            }));
}

}  // namespace lulesh
