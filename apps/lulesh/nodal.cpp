#include "lulesh/nodal.hpp"

#include <cmath>
#include <cstddef>

namespace lulesh {

namespace {

// The four hourglass base vectors over the eight corners.
constexpr real hourglass_gamma[4][8] = {{1., 1., -1., -1., -1., -1., 1., 1.},
                                        {1., -1., -1., 1., -1., 1., 1., -1.},
                                        {1., -1., 1., -1., 1., -1., 1., -1.},
                                        {-1., 1., -1., 1., 1., -1., 1., -1.}};

// Corner forces of the stress in element k: minus the stress times the
// corner's area-weighted normal; also the element's Jacobian determinant.
void integrate_stress(domain& d, std::size_t k) {
  corners c;
  d.corner_positions(k, c);
  real b[3][8];
  d.determ[k] = shape_derivatives(c, b);
  if (d.determ[k] <= real(0.0)) d.flag(failure::negative_volume);
  real pf[3][8];
  corner_normals(c, pf);
  for (int i = 0; i < 8; ++i) {
    d.fx_elem[8 * k + i] = -(d.sigxx[k] * pf[0][i]);
    d.fy_elem[8 * k + i] = -(d.sigyy[k] * pf[1][i]);
    d.fz_elem[8 * k + i] = -(d.sigzz[k] * pf[2][i]);
  }
}

// The hourglass inputs of element k: volume derivatives and corner
// coordinates, and the determinant as volo * v.
void prepare_hourglass(domain& d, std::size_t k) {
  corners c;
  d.corner_positions(k, c);
  real dx[8], dy[8], dz[8];
  volume_derivatives(c, dx, dy, dz);
  for (int i = 0; i < 8; ++i) {
    d.dvdx[8 * k + i] = dx[i];
    d.dvdy[8 * k + i] = dy[i];
    d.dvdz[8 * k + i] = dz[i];
    d.x8n[8 * k + i] = c.x[i];
    d.y8n[8 * k + i] = c.y[i];
    d.z8n[8 * k + i] = c.z[i];
  }
  d.determ[k] = d.volo[k] * d.v[k];
  if (d.v[k] <= real(0.0)) d.flag(failure::negative_volume);
}

// Flanagan-Belytschko hourglass corner forces of element k.
void hourglass_force(domain& d, std::size_t k, real hourg) {
  const std::size_t i3 = 8 * k;
  const real volinv = real(1.0) / d.determ[k];
  real hourgam[8][4];
  for (int m = 0; m < 4; ++m) {
    const real* g = hourglass_gamma[m];
    const auto mode = [&](const field& pos) {
      real s = pos[i3] * g[0];
      for (int j = 1; j < 8; ++j) s = s + pos[i3 + j] * g[j];
      return s;
    };
    const real hx = mode(d.x8n), hy = mode(d.y8n), hz = mode(d.z8n);
    for (int j = 0; j < 8; ++j)
      hourgam[j][m] = g[j] - volinv * (d.dvdx[i3 + j] * hx + d.dvdy[i3 + j] * hy + d.dvdz[i3 + j] * hz);
  }
  const real volume13 = std::cbrt(d.determ[k]);
  const real coefficient = -hourg * real(0.01) * d.ss[k] * d.elem_mass[k] / volume13;

  corners vel;
  d.corner_velocities(k, vel);
  const auto forces = [&](const real* v, field& out) {
    real h[4];
    for (int m = 0; m < 4; ++m) {
      real s = hourgam[0][m] * v[0];
      for (int j = 1; j < 8; ++j) s = s + hourgam[j][m] * v[j];
      h[m] = s;
    }
    for (int j = 0; j < 8; ++j)
      out[i3 + j] =
          coefficient * (hourgam[j][0] * h[0] + hourgam[j][1] * h[1] + hourgam[j][2] * h[2] + hourgam[j][3] * h[3]);
  };
  forces(vel.x, d.fx_elem);
  forces(vel.y, d.fy_elem);
  forces(vel.z, d.fz_elem);
}

// Node n's force: `start` plus its corner forces, one at a time in element
// order (as LULESH's serial build adds them).
void gather_forces(domain& d, std::size_t n, bool add_to_current) {
  const index_t* list = &d.node_corners[8 * n];
  real fx = add_to_current ? d.fx[n] : real(0.0);
  real fy = add_to_current ? d.fy[n] : real(0.0);
  real fz = add_to_current ? d.fz[n] : real(0.0);
  for (index_t s = 0; s < d.node_corner_count[n]; ++s) {
    const auto c = static_cast<std::size_t>(list[s]);
    fx += d.fx_elem[c];
    fy += d.fy_elem[c];
    fz += d.fz_elem[c];
  }
  d.fx[n] = fx;
  d.fy[n] = fy;
  d.fz[n] = fz;
}

}  // namespace

void lagrange_nodal(domain& d, loop_runner& loops) {
  const std::size_t ne = d.num_elem(), nn = d.num_node();
  const real dt = d.clock.deltatime;
  const real u_cut = d.param.u_cut;

  // Forces: stresses, then hourglass control, each as corner forces and a gather.
  loops.run(loop_id::stress_init, ne, hint_target(d.sigxx), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k) d.sigxx[k] = d.sigyy[k] = d.sigzz[k] = -d.p[k] - d.q[k];
  });
  loops.run(loop_id::stress_integrate, ne, hint_target(d.fx_elem, 8), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k) integrate_stress(d, k);
  });
  d.check();
  loops.run(loop_id::stress_gather, nn, hint_target(d.fx), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t n = lo; n < hi; ++n) gather_forces(d, n, false);
  });
  loops.run(loop_id::hourglass_prep, ne, hint_target(d.dvdx, 8), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k) prepare_hourglass(d, k);
  });
  d.check();
  if (d.param.hgcoef > real(0.0)) {
    const real hourg = d.param.hgcoef;
    loops.run(loop_id::hourglass_force, ne, hint_target(d.fx_elem, 8), [&](std::size_t lo, std::size_t hi) {
      for (std::size_t k = lo; k < hi; ++k) hourglass_force(d, k, hourg);
    });
    loops.run(loop_id::hourglass_gather, nn, hint_target(d.fx), [&](std::size_t lo, std::size_t hi) {
      for (std::size_t n = lo; n < hi; ++n) gather_forces(d, n, true);
    });
  }

  // Motion. The acceleration normal to a symmetry plane is zero.
  loops.run(loop_id::acceleration, nn, hint_target(d.xdd), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t n = lo; n < hi; ++n) {
      d.xdd[n] = d.fx[n] / d.nodal_mass[n];
      d.ydd[n] = d.fy[n] / d.nodal_mass[n];
      d.zdd[n] = d.fz[n] / d.nodal_mass[n];
      const index_t bc = d.node_bc[n];
      if (bc & on_x0) d.xdd[n] = real(0.0);
      if (bc & on_y0) d.ydd[n] = real(0.0);
      if (bc & on_z0) d.zdd[n] = real(0.0);
    }
  });
  loops.run(loop_id::velocity, nn, hint_target(d.xd), [&](std::size_t lo, std::size_t hi) {
    const auto advance = [&](real v, real a) {
      const real next = v + a * dt;
      return std::fabs(next) < u_cut ? real(0.0) : next;
    };
    for (std::size_t n = lo; n < hi; ++n) {
      d.xd[n] = advance(d.xd[n], d.xdd[n]);
      d.yd[n] = advance(d.yd[n], d.ydd[n]);
      d.zd[n] = advance(d.zd[n], d.zdd[n]);
    }
  });
  loops.run(loop_id::position, nn, hint_target(d.x), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t n = lo; n < hi; ++n) {
      d.x[n] += d.xd[n] * dt;
      d.y[n] += d.yd[n] * dt;
      d.z[n] += d.zd[n] * dt;
    }
  });
}

}  // namespace lulesh
