#pragma once
// The geometry of one hexahedral element, as LULESH evaluates it: volume,
// shape-function derivatives (the B matrix), face-normal sums, volume
// derivatives, characteristic length and velocity gradient. Pure functions of
// the eight corner coordinates (and velocities), used by the setup, the nodal
// and the element kernels alike.
//
// Corner numbering (LULESH's): 0..3 is the lower face (zeta = 0) going
// (0,0), (1,0), (1,1), (0,1) in (xi, eta); 4..7 the same above it.
//
// The formulas and their order of operations follow LULESH 2.0, so that a
// run reproduces its published cycle counts and origin energies; the file is
// compiled with -ffp-contract=off (no fused multiply-adds), so that every
// variant gets exactly the same roundings.

#include <algorithm>
#include <cmath>

namespace lulesh {

using real = double;

// Corner coordinates (or velocities) of one element.
struct corners {
  real x[8], y[8], z[8];
};

// Volume of the hexahedron, the sum of three triple products of edge
// combinations, over 12.
inline real element_volume(const corners& c) {
  const real* x = c.x;
  const real* y = c.y;
  const real* z = c.z;
  const auto triple = [](real a1, real b1, real c1, real a2, real b2, real c2, real a3, real b3, real c3) {
    return a1 * (b2 * c3 - c2 * b3) + a2 * (c1 * b3 - b1 * c3) + a3 * (b1 * c2 - c1 * b2);
  };
  const real dx61 = x[6] - x[1], dy61 = y[6] - y[1], dz61 = z[6] - z[1];
  const real dx70 = x[7] - x[0], dy70 = y[7] - y[0], dz70 = z[7] - z[0];
  const real dx63 = x[6] - x[3], dy63 = y[6] - y[3], dz63 = z[6] - z[3];
  const real dx20 = x[2] - x[0], dy20 = y[2] - y[0], dz20 = z[2] - z[0];
  const real dx50 = x[5] - x[0], dy50 = y[5] - y[0], dz50 = z[5] - z[0];
  const real dx64 = x[6] - x[4], dy64 = y[6] - y[4], dz64 = z[6] - z[4];
  const real dx31 = x[3] - x[1], dy31 = y[3] - y[1], dz31 = z[3] - z[1];
  const real dx72 = x[7] - x[2], dy72 = y[7] - y[2], dz72 = z[7] - z[2];
  const real dx43 = x[4] - x[3], dy43 = y[4] - y[3], dz43 = z[4] - z[3];
  const real dx57 = x[5] - x[7], dy57 = y[5] - y[7], dz57 = z[5] - z[7];
  const real dx14 = x[1] - x[4], dy14 = y[1] - y[4], dz14 = z[1] - z[4];
  const real dx25 = x[2] - x[5], dy25 = y[2] - y[5], dz25 = z[2] - z[5];
  real volume = triple(dx31 + dx72, dx63, dx20, dy31 + dy72, dy63, dy20, dz31 + dz72, dz63, dz20) +
                triple(dx43 + dx57, dx64, dx70, dy43 + dy57, dy64, dy70, dz43 + dz57, dz64, dz70) +
                triple(dx14 + dx25, dx61, dx50, dy14 + dy25, dy61, dy50, dz14 + dz25, dz61, dz50);
  const real twelfth = real(1.0) / real(12.0);
  volume *= twelfth;
  return volume;
}

// Shape-function derivatives b[dim][corner] at the element centre and the
// Jacobian determinant (8 x the centre Jacobian), returned.
inline real shape_derivatives(const corners& c, real b[3][8]) {
  const real* x = c.x;
  const real* y = c.y;
  const real* z = c.z;
  const auto jac = [](const real* v, real s1, real s2, real s3) {
    // Combines the four body diagonals with the given signs.
    return real(.125) * ((v[6] - v[0]) + s1 * (v[5] - v[3]) + s2 * (v[7] - v[1]) + s3 * (v[4] - v[2]));
  };
  const real fjxxi = jac(x, 1, -1, -1), fjxet = jac(x, -1, 1, -1), fjxze = jac(x, 1, 1, 1);
  const real fjyxi = jac(y, 1, -1, -1), fjyet = jac(y, -1, 1, -1), fjyze = jac(y, 1, 1, 1);
  const real fjzxi = jac(z, 1, -1, -1), fjzet = jac(z, -1, 1, -1), fjzze = jac(z, 1, 1, 1);

  // Cofactors of the Jacobian.
  const real cjxxi = (fjyet * fjzze) - (fjzet * fjyze);
  const real cjxet = -(fjyxi * fjzze) + (fjzxi * fjyze);
  const real cjxze = (fjyxi * fjzet) - (fjzxi * fjyet);
  const real cjyxi = -(fjxet * fjzze) + (fjzet * fjxze);
  const real cjyet = (fjxxi * fjzze) - (fjzxi * fjxze);
  const real cjyze = -(fjxxi * fjzet) + (fjzxi * fjxet);
  const real cjzxi = (fjxet * fjyze) - (fjyet * fjxze);
  const real cjzet = -(fjxxi * fjyze) + (fjyxi * fjxze);
  const real cjzze = (fjxxi * fjyet) - (fjyxi * fjxet);

  // Corners 4..7 are the negatives of 2, 3, 0, 1 (central symmetry).
  const auto fill = [](real* row, real cxi, real cet, real cze) {
    row[0] = -cxi - cet - cze;
    row[1] = cxi - cet - cze;
    row[2] = cxi + cet - cze;
    row[3] = -cxi + cet - cze;
    row[4] = -row[2];
    row[5] = -row[3];
    row[6] = -row[0];
    row[7] = -row[1];
  };
  fill(b[0], cjxxi, cjxet, cjxze);
  fill(b[1], cjyxi, cjyet, cjyze);
  fill(b[2], cjzxi, cjzet, cjzze);
  return real(8.) * (fjxet * cjxet + fjyet * cjyet + fjzet * cjzet);
}

// Adds a quarter of the area vector of face (n0, n1, n2, n3) to each of its corners.
inline void add_face_normal(real pf[3][8], const corners& c, int n0, int n1, int n2, int n3) {
  const real bx0 = real(0.5) * (c.x[n3] + c.x[n2] - c.x[n1] - c.x[n0]);
  const real by0 = real(0.5) * (c.y[n3] + c.y[n2] - c.y[n1] - c.y[n0]);
  const real bz0 = real(0.5) * (c.z[n3] + c.z[n2] - c.z[n1] - c.z[n0]);
  const real bx1 = real(0.5) * (c.x[n2] + c.x[n1] - c.x[n3] - c.x[n0]);
  const real by1 = real(0.5) * (c.y[n2] + c.y[n1] - c.y[n3] - c.y[n0]);
  const real bz1 = real(0.5) * (c.z[n2] + c.z[n1] - c.z[n3] - c.z[n0]);
  const real ax = real(0.25) * (by0 * bz1 - bz0 * by1);
  const real ay = real(0.25) * (bz0 * bx1 - bx0 * bz1);
  const real az = real(0.25) * (bx0 * by1 - by0 * bx1);
  for (int n : {n0, n1, n2, n3}) {
    pf[0][n] += ax;
    pf[1][n] += ay;
    pf[2][n] += az;
  }
}

// The area-weighted normals at each corner (sum over its three faces), into pf.
inline void corner_normals(const corners& c, real pf[3][8]) {
  for (int d = 0; d < 3; ++d) std::fill(pf[d], pf[d] + 8, real(0.0));
  add_face_normal(pf, c, 0, 1, 2, 3);
  add_face_normal(pf, c, 0, 4, 5, 1);
  add_face_normal(pf, c, 1, 5, 6, 2);
  add_face_normal(pf, c, 2, 6, 7, 3);
  add_face_normal(pf, c, 3, 7, 4, 0);
  add_face_normal(pf, c, 4, 7, 6, 5);
}

// Derivative of the volume with respect to one corner, from the six corners
// around it (in LULESH's order a0..a5).
inline void volume_derivative_at(const corners& c, int a0, int a1, int a2, int a3, int a4, int a5, real& dvdx,
                                 real& dvdy, real& dvdz) {
  const real x0 = c.x[a0], x1 = c.x[a1], x2 = c.x[a2], x3 = c.x[a3], x4 = c.x[a4], x5 = c.x[a5];
  const real y0 = c.y[a0], y1 = c.y[a1], y2 = c.y[a2], y3 = c.y[a3], y4 = c.y[a4], y5 = c.y[a5];
  const real z0 = c.z[a0], z1 = c.z[a1], z2 = c.z[a2], z3 = c.z[a3], z4 = c.z[a4], z5 = c.z[a5];
  const real twelfth = real(1.0) / real(12.0);
  dvdx = (y1 + y2) * (z0 + z1) - (y0 + y1) * (z1 + z2) + (y0 + y4) * (z3 + z4) - (y3 + y4) * (z0 + z4) -
         (y2 + y5) * (z3 + z5) + (y3 + y5) * (z2 + z5);
  dvdy = -(x1 + x2) * (z0 + z1) + (x0 + x1) * (z1 + z2) - (x0 + x4) * (z3 + z4) + (x3 + x4) * (z0 + z4) +
         (x2 + x5) * (z3 + z5) - (x3 + x5) * (z2 + z5);
  dvdz = -(y1 + y2) * (x0 + x1) + (y0 + y1) * (x1 + x2) - (y0 + y4) * (x3 + x4) + (y3 + y4) * (x0 + x4) +
         (y2 + y5) * (x3 + x5) - (y3 + y5) * (x2 + x5);
  dvdx *= twelfth;
  dvdy *= twelfth;
  dvdz *= twelfth;
}

// Volume derivatives at all eight corners.
inline void volume_derivatives(const corners& c, real dvdx[8], real dvdy[8], real dvdz[8]) {
  // For each corner, its neighbours in the order the derivative formula expects.
  static constexpr int around[8][6] = {{1, 2, 3, 4, 5, 7}, {2, 3, 0, 5, 6, 4}, {3, 0, 1, 6, 7, 5}, {0, 1, 2, 7, 4, 6},
                                       {7, 6, 5, 0, 3, 1}, {4, 7, 6, 1, 0, 2}, {5, 4, 7, 2, 1, 3}, {6, 5, 4, 3, 2, 0}};
  for (int n = 0; n < 8; ++n) {
    const int* a = around[n];
    volume_derivative_at(c, a[0], a[1], a[2], a[3], a[4], a[5], dvdx[n], dvdy[n], dvdz[n]);
  }
}

// Squared-area measure of face (n0, n1, n2, n3), as LULESH's AreaFace.
inline real face_area(const corners& c, int n0, int n1, int n2, int n3) {
  const real fx = (c.x[n2] - c.x[n0]) - (c.x[n3] - c.x[n1]);
  const real fy = (c.y[n2] - c.y[n0]) - (c.y[n3] - c.y[n1]);
  const real fz = (c.z[n2] - c.z[n0]) - (c.z[n3] - c.z[n1]);
  const real gx = (c.x[n2] - c.x[n0]) + (c.x[n3] - c.x[n1]);
  const real gy = (c.y[n2] - c.y[n0]) + (c.y[n3] - c.y[n1]);
  const real gz = (c.z[n2] - c.z[n0]) + (c.z[n3] - c.z[n1]);
  const real fg = fx * gx + fy * gy + fz * gz;
  return (fx * fx + fy * fy + fz * fz) * (gx * gx + gy * gy + gz * gz) - fg * fg;
}

// 4 x volume / sqrt(largest face measure): the length the Courant condition uses.
inline real characteristic_length(const corners& c, real volume) {
  real largest = real(0.0);
  largest = std::max(face_area(c, 0, 1, 2, 3), largest);
  largest = std::max(face_area(c, 4, 5, 6, 7), largest);
  largest = std::max(face_area(c, 0, 1, 5, 4), largest);
  largest = std::max(face_area(c, 1, 2, 6, 5), largest);
  largest = std::max(face_area(c, 2, 3, 7, 6), largest);
  largest = std::max(face_area(c, 3, 0, 4, 7), largest);
  return real(4.0) * volume / std::sqrt(largest);
}

// The diagonal of the velocity gradient (d[0..2]) and its symmetric
// off-diagonal terms (d[3] = yz, d[4] = xz, d[5] = xy), from the
// shape-function derivatives b and the determinant.
inline void velocity_gradient(const corners& v, const real b[3][8], real det, real d[6]) {
  const real inv = real(1.0) / det;
  // Sum over the four body diagonals of b[dim][n] * (vel[n] - vel[opposite n]).
  const auto grad = [&](const real* pf, const real* vel) {
    return inv * (pf[0] * (vel[0] - vel[6]) + pf[1] * (vel[1] - vel[7]) + pf[2] * (vel[2] - vel[4]) +
                  pf[3] * (vel[3] - vel[5]));
  };
  d[0] = grad(b[0], v.x);
  d[1] = grad(b[1], v.y);
  d[2] = grad(b[2], v.z);
  const real dyddx = grad(b[0], v.y), dxddy = grad(b[1], v.x);
  const real dzddx = grad(b[0], v.z), dxddz = grad(b[2], v.x);
  const real dzddy = grad(b[1], v.z), dyddz = grad(b[2], v.y);
  d[5] = real(.5) * (dxddy + dyddx);
  d[4] = real(.5) * (dxddz + dzddx);
  d[3] = real(.5) * (dzddy + dyddz);
}

}  // namespace lulesh
