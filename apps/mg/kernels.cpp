#include "mg/kernels.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

namespace mg {

namespace {

// Scratch lines on the stack: up to class D's extent (1026).
constexpr std::size_t max_extent = 1026;
using line = std::array<double, max_extent>;

// Point (i1, i2, i3) of a grid of extent m.
inline std::size_t at(std::size_t m, std::size_t i1, std::size_t i2, std::size_t i3) { return i1 + m * (i2 + m * i3); }

// NPB's line buffers of resid and psinv, for line (i2, i3) of g at every
// i1: edge[i1], the sum of its 4 edge-adjacent neighbours in (i2, i3), and
// corner[i1], of its 4 diagonal ones (added in NPB's order, so every
// variant gets the same bits).
void neighbour_sums(const double* g, std::size_t m, std::size_t i2, std::size_t i3, line& edge, line& corner) {
  const double* n2 = g + at(m, 0, i2 - 1, i3);
  const double* s2 = g + at(m, 0, i2 + 1, i3);
  const double* n3 = g + at(m, 0, i2, i3 - 1);
  const double* s3 = g + at(m, 0, i2, i3 + 1);
  const double* n2n3 = g + at(m, 0, i2 - 1, i3 - 1);
  const double* s2n3 = g + at(m, 0, i2 + 1, i3 - 1);
  const double* n2s3 = g + at(m, 0, i2 - 1, i3 + 1);
  const double* s2s3 = g + at(m, 0, i2 + 1, i3 + 1);
  for (std::size_t i1 = 0; i1 < m; ++i1) {
    edge[i1] = n2[i1] + s2[i1] + n3[i1] + s3[i1];
    corner[i1] = n2n3[i1] + s2n3[i1] + n2s3[i1] + s2s3[i1];
  }
}

}  // namespace

void comm3_planes(double* g, std::size_t m, std::size_t p0, std::size_t p1) {
  for (std::size_t i3 = p0; i3 < p1; ++i3) {
    double* plane = g + m * m * i3;
    for (std::size_t i2 = 1; i2 + 1 < m; ++i2) {
      double* row = plane + m * i2;
      row[0] = row[m - 2];
      row[m - 1] = row[1];
    }
    std::memcpy(plane, plane + m * (m - 2), m * sizeof(double));
    std::memcpy(plane + m * (m - 1), plane + m, m * sizeof(double));
  }
}

void comm3_axis3(double* g, std::size_t m) {
  const std::size_t plane = m * m;
  std::memcpy(g, g + plane * (m - 2), plane * sizeof(double));
  std::memcpy(g + plane * (m - 1), g + plane, plane * sizeof(double));
}

void comm3(double* g, std::size_t m) {
  comm3_planes(g, m, 1, m - 1);
  comm3_axis3(g, m);
}

void zero_planes(double* g, std::size_t m, std::size_t p0, std::size_t p1) {
  if (p1 > p0) std::fill(g + m * m * p0, g + m * m * p1, 0.0);
}

void resid(const double* u, const double* v, double* r, std::size_t m, std::size_t p0, std::size_t p1,
           const std::array<double, 4>& a) {
  assert(m <= max_extent);
  line u1, u2;  // per i1: sum of the 4 edge-adjacent (in i2, i3) neighbours / of the 4 diagonal ones
  for (std::size_t i3 = p0; i3 < p1; ++i3) {
    for (std::size_t i2 = 1; i2 + 1 < m; ++i2) {
      const double* c = u + at(m, 0, i2, i3);
      neighbour_sums(u, m, i2, i3, u1, u2);
      const double* vr = v + at(m, 0, i2, i3);
      double* rr = r + at(m, 0, i2, i3);
      for (std::size_t i1 = 1; i1 + 1 < m; ++i1)
        rr[i1] = vr[i1] - a[0] * c[i1] - a[2] * (u2[i1] + u1[i1 - 1] + u1[i1 + 1]) - a[3] * (u2[i1 - 1] + u2[i1 + 1]);
    }
    comm3_planes(r, m, i3, i3 + 1);
  }
}

void psinv(const double* r, double* u, std::size_t m, std::size_t p0, std::size_t p1, const std::array<double, 4>& c) {
  assert(m <= max_extent);
  line r1, r2;
  for (std::size_t i3 = p0; i3 < p1; ++i3) {
    for (std::size_t i2 = 1; i2 + 1 < m; ++i2) {
      const double* cr = r + at(m, 0, i2, i3);
      neighbour_sums(r, m, i2, i3, r1, r2);
      double* uu = u + at(m, 0, i2, i3);
      for (std::size_t i1 = 1; i1 + 1 < m; ++i1)
        uu[i1] = uu[i1] + c[0] * cr[i1] + c[1] * (cr[i1 - 1] + cr[i1 + 1] + r1[i1]) +
                 c[2] * (r2[i1] + r1[i1 - 1] + r1[i1 + 1]);
    }
    comm3_planes(u, m, i3, i3 + 1);
  }
}

void rprj3(const double* fine, std::size_t mf, double* coarse, std::size_t mc, std::size_t p0, std::size_t p1) {
  // NPB's d = 2 case (a fine grid of extent 3) never occurs for cubic grids of
  // at least 2 interior points.
  assert(mf >= 4 && mf == 2 * mc - 2 && mf <= max_extent);
  line x1, y1;  // at odd fine i1: sums of the 4 face-adjacent (in i2, i3) / the 4 diagonal fine neighbours
  for (std::size_t j3 = p0; j3 < p1; ++j3) {
    const std::size_t i3 = 2 * j3;
    for (std::size_t j2 = 1; j2 + 1 < mc; ++j2) {
      const std::size_t i2 = 2 * j2;
      const double* c = fine + at(mf, 0, i2, i3);
      const double* n2 = fine + at(mf, 0, i2 - 1, i3);
      const double* s2 = fine + at(mf, 0, i2 + 1, i3);
      const double* n3 = fine + at(mf, 0, i2, i3 - 1);
      const double* s3 = fine + at(mf, 0, i2, i3 + 1);
      const double* n2n3 = fine + at(mf, 0, i2 - 1, i3 - 1);
      const double* n2s3 = fine + at(mf, 0, i2 - 1, i3 + 1);
      const double* s2n3 = fine + at(mf, 0, i2 + 1, i3 - 1);
      const double* s2s3 = fine + at(mf, 0, i2 + 1, i3 + 1);
      for (std::size_t j1 = 1; j1 < mc; ++j1) {
        const std::size_t i1 = 2 * j1 - 1;
        x1[i1] = n2[i1] + s2[i1] + n3[i1] + s3[i1];
        y1[i1] = n2n3[i1] + n2s3[i1] + s2n3[i1] + s2s3[i1];
      }
      double* out = coarse + at(mc, 0, j2, j3);
      for (std::size_t j1 = 1; j1 + 1 < mc; ++j1) {
        const std::size_t i1 = 2 * j1;
        const double y2 = n2n3[i1] + n2s3[i1] + s2n3[i1] + s2s3[i1];
        const double x2 = n2[i1] + s2[i1] + n3[i1] + s3[i1];
        out[j1] = 0.5 * c[i1] + 0.25 * (c[i1 - 1] + c[i1 + 1] + x2) + 0.125 * (x1[i1 - 1] + x1[i1 + 1] + y2) +
                  0.0625 * (y1[i1 - 1] + y1[i1 + 1]);
      }
    }
    comm3_planes(coarse, mc, j3, j3 + 1);
  }
}

void interp(const double* coarse, std::size_t mc, double* fine, std::size_t mf, std::size_t p0, std::size_t p1,
            bool zero_first) {
  assert(mf == 2 * mc - 2 && mc <= max_extent);
  line z1, z3;
  // Fine plane 2c takes coarse plane c; fine plane 2c+1 takes coarse planes c and c+1.
  for (std::size_t f3 = p0; f3 < p1; ++f3) {
    if (zero_first) zero_planes(fine, mf, f3, f3 + 1);
    const std::size_t c3 = f3 / 2;
    const bool odd3 = f3 % 2 == 1;
    for (std::size_t c2 = 0; c2 + 1 < mc; ++c2) {
      const double* z = coarse + at(mc, 0, c2, c3);        // (c2, c3)
      const double* z_2 = coarse + at(mc, 0, c2 + 1, c3);  // (c2+1, c3)
      double* even = fine + at(mf, 0, 2 * c2, f3);         // fine line 2 c2
      double* odd = fine + at(mf, 0, 2 * c2 + 1, f3);      // fine line 2 c2 + 1
      if (!odd3) {
        for (std::size_t c1 = 0; c1 < mc; ++c1) z1[c1] = z_2[c1] + z[c1];
        for (std::size_t c1 = 0; c1 + 1 < mc; ++c1) {
          even[2 * c1] += z[c1];
          even[2 * c1 + 1] += 0.5 * (z[c1 + 1] + z[c1]);
        }
        for (std::size_t c1 = 0; c1 + 1 < mc; ++c1) {
          odd[2 * c1] += 0.5 * z1[c1];
          odd[2 * c1 + 1] += 0.25 * (z1[c1] + z1[c1 + 1]);
        }
      } else {
        const double* z_3 = coarse + at(mc, 0, c2, c3 + 1);       // (c2, c3+1)
        const double* z_23 = coarse + at(mc, 0, c2 + 1, c3 + 1);  // (c2+1, c3+1)
        line& z2 = z1;                                            // z1 is not needed on odd planes
        for (std::size_t c1 = 0; c1 < mc; ++c1) {
          const double z1_c1 = z_2[c1] + z[c1];
          z2[c1] = z_3[c1] + z[c1];
          z3[c1] = z_23[c1] + z_3[c1] + z1_c1;
        }
        for (std::size_t c1 = 0; c1 + 1 < mc; ++c1) {
          even[2 * c1] += 0.5 * z2[c1];
          even[2 * c1 + 1] += 0.25 * (z2[c1] + z2[c1 + 1]);
        }
        for (std::size_t c1 = 0; c1 + 1 < mc; ++c1) {
          odd[2 * c1] += 0.25 * z3[c1];
          odd[2 * c1 + 1] += 0.125 * (z3[c1] + z3[c1 + 1]);
        }
      }
    }
  }
}

void norm_planes(const double* r, std::size_t m, std::size_t p0, std::size_t p1, double* sums, double* maxima) {
  for (std::size_t i3 = p0; i3 < p1; ++i3) {
    double s = 0, mx = 0;
    for (std::size_t i2 = 1; i2 + 1 < m; ++i2) {
      const double* row = r + at(m, 0, i2, i3);
      for (std::size_t i1 = 1; i1 + 1 < m; ++i1) {
        s += row[i1] * row[i1];
        mx = std::max(mx, std::abs(row[i1]));
      }
    }
    sums[i3 - 1] = s;
    maxima[i3 - 1] = mx;
  }
}

}  // namespace mg
