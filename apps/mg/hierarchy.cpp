#include "mg/hierarchy.hpp"

namespace mg {

namespace {
std::size_t cube(std::size_t m) { return m * m * m; }
}  // namespace

hierarchy::hierarchy(unsigned levels, cws::numa::placement where)
    : levels_(levels),
      v_(cws::numa::allocate<double>(cube(extent_of(levels)), where)),
      plane_sums_(interior_of(levels)),
      plane_maxima_(interior_of(levels)) {
  for (unsigned k = 1; k <= levels; ++k) {
    u_.push_back(cws::numa::allocate<double>(cube(extent_of(k)), where));
    r_.push_back(cws::numa::allocate<double>(cube(extent_of(k)), where));
  }
}

std::size_t hierarchy::bytes_for(unsigned levels) noexcept {
  std::size_t n = cube(extent_of(levels));
  for (unsigned k = 1; k <= levels; ++k) n += 2 * cube(extent_of(k));
  return n * sizeof(double);
}

}  // namespace mg
