#pragma once
// The NAS MG kernels over a range of i3 planes of one level, so that the same
// code runs the whole grid (serial) or one leaf of a parallel loop. Planes
// are ghost-inclusive indices (interior planes 1 .. m-2 of a grid of extent
// m). Every kernel writes only the planes of its range and reads other grids
// (or, in place, only the centre point it overwrites), so disjoint ranges are
// independent; all variants call these functions, compiled once, so they
// compute the same values in the same order.
//
// Periodic ghosts (NPB comm3) are filled in NPB's order: axis 1 (the i1
// ghosts of the interior lines), then axis 2 (the i2 ghost lines, full i1
// range), then axis 3 (the two ghost planes, full i2 and i1 range). Axes 1
// and 2 stay inside an i3 plane, so the kernels that end with comm3 do them
// for each plane they computed; axis 3 copies planes m-2 and 1, which other
// leaves compute, so it runs after the whole kernel (comm3_axis3).

#include <array>
#include <cstddef>

namespace mg {

// r = v - A u on interior planes [p0, p1), then comm3 axes 1 and 2 of those
// planes of r. In place (v == r) is allowed: each point reads only its own v.
void resid(const double* u, const double* v, double* r, std::size_t m, std::size_t p0, std::size_t p1,
           const std::array<double, 4>& a);

// u += S r (the smoother, corner weight 0) on interior planes [p0, p1), then
// comm3 axes 1 and 2 of those planes of u.
void psinv(const double* r, double* u, std::size_t m, std::size_t p0, std::size_t p1, const std::array<double, 4>& c);

// Full-weighting restriction of the fine grid (extent mf) onto interior
// planes [p0, p1) of the coarse grid (extent mc = mf / 2 + 1; coarse point j
// sits on fine point 2j), then comm3 axes 1 and 2 of those coarse planes.
void rprj3(const double* fine, std::size_t mf, double* coarse, std::size_t mc, std::size_t p0, std::size_t p1);

// Trilinear prolongation, added: fine planes [p0, p1) (ghost planes 0 and
// mf-1 included, every point of a plane, so the fine ghosts stay periodic and
// no comm3 follows) += the interpolation of the coarse grid (extent mc).
// With zero_first the planes are cleared first (NPB's zero3 of the lower
// levels' u before interp: each fine point receives exactly one term).
void interp(const double* coarse, std::size_t mc, double* fine, std::size_t mf, std::size_t p0, std::size_t p1,
            bool zero_first);

// For each interior plane p in [p0, p1): sums[p - 1] = sum of r^2 over its
// interior points and maxima[p - 1] = their largest |r|, in a fixed order.
void norm_planes(const double* r, std::size_t m, std::size_t p0, std::size_t p1, double* sums, double* maxima);

// comm3 axes 1 and 2 of interior planes [p0, p1).
void comm3_planes(double* g, std::size_t m, std::size_t p0, std::size_t p1);
// comm3 axis 3: ghost plane 0 <- plane m-2, ghost plane m-1 <- plane 1.
void comm3_axis3(double* g, std::size_t m);
// The whole comm3.
void comm3(double* g, std::size_t m);

// Zeroes planes [p0, p1) (ghosts included).
void zero_planes(double* g, std::size_t m, std::size_t p0, std::size_t p1);

}  // namespace mg
