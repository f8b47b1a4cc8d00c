#include "mg/zran3.hpp"

#include <algorithm>
#include <functional>

#include "mg/lcg.hpp"

namespace mg {

namespace {

struct candidate {
  double value = 0;
  grid_point at;
};

// The `charges_per_sign` best candidates seen so far under `better`, best first.
template <class Better>
class best_list {
 public:
  void offer(double value, const grid_point& at) {
    if (size_ == charges_per_sign && !better_(value, items_[size_ - 1].value)) return;
    std::size_t i = size_ < charges_per_sign ? size_++ : size_ - 1;
    for (; i > 0 && better_(value, items_[i - 1].value); --i) items_[i] = items_[i - 1];
    items_[i] = {value, at};
  }
  void merge(const best_list& other) {
    for (std::size_t i = 0; i < other.size_; ++i) offer(other.items_[i].value, other.items_[i].at);
  }
  std::size_t size() const noexcept { return size_; }
  const candidate& operator[](std::size_t i) const noexcept { return items_[i]; }

 private:
  std::array<candidate, charges_per_sign> items_{};
  std::size_t size_ = 0;
  Better better_{};
};

using largest = best_list<std::greater<double>>;
using smallest = best_list<std::less<double>>;

// The extremes of plane i3 (1-based), generated from its own jump-ahead seed.
void scan_plane(std::size_t n, std::size_t i3, largest& top, smallest& bottom) {
  const std::uint64_t per_line = lcg_power(lcg_multiplier, n);
  std::uint64_t line_start = zran3_state_before(n, 1, 1, i3);
  for (std::size_t i2 = 1; i2 <= n; ++i2) {
    std::uint64_t x = line_start;
    for (std::size_t i1 = 1; i1 <= n; ++i1) {
      x = lcg_multiply(lcg_multiplier, x);
      const double value = lcg_value(x);
      top.offer(value, {i1, i2, i3});
      bottom.offer(value, {i1, i2, i3});
    }
    line_start = lcg_multiply(per_line, line_start);
  }
}

}  // namespace

std::uint64_t zran3_state_before(std::size_t n, std::size_t i1, std::size_t i2, std::size_t i3) {
  const std::uint64_t position = (i1 - 1) + n * ((i2 - 1) + n * (i3 - 1));
  return lcg_multiply(lcg_power(lcg_multiplier, position), zran3_seed);
}

charges find_charges(std::size_t n) {
  // One list pair per plane, merged in plane order: the planes are
  // independent (each starts from its own seed), so this loop could run in
  // parallel; it is set-up, outside every timed region, and takes ~0.1 s at
  // class A, so it stays serial.
  largest top;
  smallest bottom;
  for (std::size_t i3 = 1; i3 <= n; ++i3) {
    largest plane_top;
    smallest plane_bottom;
    scan_plane(n, i3, plane_top, plane_bottom);
    top.merge(plane_top);
    bottom.merge(plane_bottom);
  }
  charges c;
  for (std::size_t i = 0; i < charges_per_sign; ++i) {
    c.plus[i] = top[i].at;
    c.plus_values[i] = top[i].value;
    c.minus[i] = bottom[i].at;
    c.minus_values[i] = bottom[i].value;
  }
  return c;
}

}  // namespace mg
