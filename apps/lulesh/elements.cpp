#include "lulesh/elements.hpp"

#include <cmath>
#include <cstddef>

namespace lulesh {

namespace {

constexpr real ptiny = real(1.e-36);

// New relative volume, volume change, characteristic length and strain rates
// (at the half step) of element k.
void kinematics(domain& d, std::size_t k, real dt) {
  corners c;
  d.corner_positions(k, c);
  const real volume = element_volume(c);
  const real relative = volume / d.volo[k];
  d.vnew[k] = relative;
  d.delv[k] = relative - d.v[k];
  d.arealg[k] = characteristic_length(c, volume);

  corners vel;
  d.corner_velocities(k, vel);
  const real dt2 = real(0.5) * dt;
  for (int j = 0; j < 8; ++j) {
    c.x[j] -= dt2 * vel.x[j];
    c.y[j] -= dt2 * vel.y[j];
    c.z[j] -= dt2 * vel.z[j];
  }
  real b[3][8];
  const real det = shape_derivatives(c, b);
  real grad[6];
  velocity_gradient(vel, b, det, grad);
  d.dxx[k] = grad[0];
  d.dyy[k] = grad[1];
  d.dzz[k] = grad[2];
}

// The volumetric strain rate of element k, and the strain rates made deviatoric.
void strain(domain& d, std::size_t k) {
  const real vdov = d.dxx[k] + d.dyy[k] + d.dzz[k];
  const real third = vdov / real(3.0);
  d.vdov[k] = vdov;
  d.dxx[k] -= third;
  d.dyy[k] -= third;
  d.dzz[k] -= third;
  if (d.vnew[k] <= real(0.0)) d.flag(failure::negative_volume);
}

// Position and velocity differences across element k in each logical direction.
void monoq_gradients(domain& d, std::size_t k) {
  corners c, v;
  d.corner_positions(k, c);
  d.corner_velocities(k, v);
  const real vol = d.volo[k] * d.vnew[k];
  const real norm = real(1.0) / (vol + ptiny);

  // Difference of the face sums (a, b, c, d) and (e, f, g, h) of one coordinate, times s.
  const auto across = [](const real* u, real s, int a, int b, int cc, int dd, int ee, int f, int g, int h) {
    return s * ((u[a] + u[b] + u[cc] + u[dd]) - (u[ee] + u[f] + u[g] + u[h]));
  };
  const auto eta = [&](const real* u) { return across(u, real(-0.25), 0, 1, 5, 4, 3, 2, 6, 7); };
  const auto xi = [&](const real* u) { return across(u, real(0.25), 1, 2, 6, 5, 0, 3, 7, 4); };
  const auto zeta = [&](const real* u) { return across(u, real(0.25), 4, 5, 6, 7, 0, 1, 2, 3); };

  const real dxj = eta(c.x), dyj = eta(c.y), dzj = eta(c.z);
  const real dxi = xi(c.x), dyi = xi(c.y), dzi = xi(c.z);
  const real dxk = zeta(c.x), dyk = zeta(c.y), dzk = zeta(c.z);

  // One direction: the area vector (a cross b), the length across, and the
  // velocity difference along the normal.
  const auto direction = [&](real ax, real ay, real az, real dxv, real dyv, real dzv, real& delx, real& delv) {
    delx = vol / std::sqrt(ax * ax + ay * ay + az * az + ptiny);
    ax *= norm;
    ay *= norm;
    az *= norm;
    delv = ax * dxv + ay * dyv + az * dzv;
  };
  // zeta: i cross j
  direction(dyi * dzj - dzi * dyj, dzi * dxj - dxi * dzj, dxi * dyj - dyi * dxj, zeta(v.x), zeta(v.y), zeta(v.z),
            d.delx_zeta[k], d.delv_zeta[k]);
  // xi: j cross k
  direction(dyj * dzk - dzj * dyk, dzj * dxk - dxj * dzk, dxj * dyk - dyj * dxk, xi(v.x), xi(v.y), xi(v.z),
            d.delx_xi[k], d.delv_xi[k]);
  // eta: k cross i
  direction(dyk * dzi - dzk * dyi, dzk * dxi - dxk * dzi, dxk * dyi - dyk * dxi, eta(v.x), eta(v.y), eta(v.z),
            d.delx_eta[k], d.delv_eta[k]);
}

// The slope limiter of one direction: the velocity gradients of the
// neighbours on each side (the element's own across a symmetry plane, zero
// across a free surface) relative to the element's own.
real limiter(const domain& d, const field& delv_dir, std::size_t k, index_t bc, index_t m_symm, index_t p_free,
             const index_field& minus, const index_field& plus) {
  const real norm = real(1.) / (delv_dir[k] + ptiny);
  real delvm = (bc & m_symm) ? delv_dir[k] : delv_dir[static_cast<std::size_t>(minus[k])];
  real delvp = (bc & p_free) ? real(0.0) : delv_dir[static_cast<std::size_t>(plus[k])];
  delvm = delvm * norm;
  delvp = delvp * norm;
  real phi = real(.5) * (delvm + delvp);
  delvm *= d.param.monoq_limiter_mult;
  delvp *= d.param.monoq_limiter_mult;
  if (delvm < phi) phi = delvm;
  if (delvp < phi) phi = delvp;
  if (phi < real(0.)) phi = real(0.);
  if (phi > d.param.monoq_max_slope) phi = d.param.monoq_max_slope;
  return phi;
}

// The monotonic q terms (linear and quadratic) of element k.
void monoq_region(domain& d, std::size_t k) {
  const index_t bc = d.elem_bc[k];
  const real phixi = limiter(d, d.delv_xi, k, bc, xi_m_symm, xi_p_free, d.lxim, d.lxip);
  const real phieta = limiter(d, d.delv_eta, k, bc, eta_m_symm, eta_p_free, d.letam, d.letap);
  const real phizeta = limiter(d, d.delv_zeta, k, bc, zeta_m_symm, zeta_p_free, d.lzetam, d.lzetap);

  real qlin = real(0.), qquad = real(0.);
  if (d.vdov[k] <= real(0.)) {  // compression: viscosity acts
    real dxi = d.delv_xi[k] * d.delx_xi[k];
    real deta = d.delv_eta[k] * d.delx_eta[k];
    real dzeta = d.delv_zeta[k] * d.delx_zeta[k];
    if (dxi > real(0.)) dxi = real(0.);
    if (deta > real(0.)) deta = real(0.);
    if (dzeta > real(0.)) dzeta = real(0.);
    const real rho = d.elem_mass[k] / (d.volo[k] * d.vnew[k]);
    qlin = -d.param.qlc_monoq * rho *
           (dxi * (real(1.) - phixi) + deta * (real(1.) - phieta) + dzeta * (real(1.) - phizeta));
    qquad = d.param.qqc_monoq * rho *
            (dxi * dxi * (real(1.) - phixi * phixi) + deta * deta * (real(1.) - phieta * phieta) +
             dzeta * dzeta * (real(1.) - phizeta * phizeta));
  }
  d.qq[k] = qquad;
  d.ql[k] = qlin;
  // LULESH stops when the viscosity of the last step was excessive.
  if (d.q[k] > d.param.qstop) d.flag(failure::q_stop);
}

}  // namespace

void lagrange_elements(domain& d, loop_runner& loops) {
  const std::size_t ne = d.num_elem();
  const real dt = d.clock.deltatime;
  loops.run(loop_id::kinematics, ne, hint_target(d.vnew), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k) kinematics(d, k, dt);
  });
  loops.run(loop_id::strain, ne, hint_target(d.vdov), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k) strain(d, k);
  });
  d.check();
  loops.run(loop_id::monoq_gradients, ne, hint_target(d.delv_xi), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k) monoq_gradients(d, k);
  });
  loops.run(loop_id::monoq_region, ne, hint_target(d.qq), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k) monoq_region(d, k);
  });
  d.check();
}

}  // namespace lulesh
