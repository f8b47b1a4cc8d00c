#pragma once
// The grids of one NAS MG solve: for every level k = 1 .. lt a cube of
// (2^k + 2)^3 doubles for the correction u and one for the residual r (one
// ghost layer on each side, periodic), plus the right-hand side v on the
// finest level, and per-plane partial sums for a deterministic norm.
//
// Layout: ghost-inclusive indices 0 .. m-1 per dimension, i1 fastest, so
// point (i1, i2, i3) is at i1 + m (i2 + m i3) and an i3 plane is m^2
// consecutive doubles. Each grid is its own allocation (cws::numa::allocate:
// page aligned, pages left untouched), so the variant's first-touch phase
// decides where its pages live.

#include <cstddef>
#include <vector>

#include <cws/numa.hpp>

namespace mg {

// Points per dimension of level k, ghosts included.
constexpr std::size_t extent_of(unsigned level) noexcept { return (std::size_t{1} << level) + 2; }
// Interior points per dimension of level k (also its interior i3 planes).
constexpr std::size_t interior_of(unsigned level) noexcept { return std::size_t{1} << level; }

class hierarchy {
 public:
  hierarchy(unsigned levels, cws::numa::placement where);

  unsigned levels() const noexcept { return levels_; }  // lt: level 1 is the coarsest
  double* u(unsigned level) noexcept { return u_[level - 1].data(); }
  double* r(unsigned level) noexcept { return r_[level - 1].data(); }
  double* v() noexcept { return v_.data(); }
  const double* u(unsigned level) const noexcept { return u_[level - 1].data(); }
  const double* r(unsigned level) const noexcept { return r_[level - 1].data(); }
  const double* v() const noexcept { return v_.data(); }

  // Per interior plane of the finest level: the sum of squares and the largest magnitude.
  double* plane_sums() noexcept { return plane_sums_.data(); }
  double* plane_maxima() noexcept { return plane_maxima_.data(); }

  // Bytes of all grids (u and r on every level, v) of a hierarchy of `levels` levels.
  static std::size_t bytes_for(unsigned levels) noexcept;

 private:
  unsigned levels_;
  std::vector<cws::numa::array<double>> u_, r_;
  cws::numa::array<double> v_;
  std::vector<double> plane_sums_, plane_maxima_;
};

}  // namespace mg
