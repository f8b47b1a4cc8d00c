#pragma once
// The two buffers of a stencil variant (cws-heat, cws-jacobi): a step reads
// `cur` and writes `next`, then they swap. Both are allocated with the
// variant's placement and left untouched: the variant's own init loop
// first-touches them (an untimed init phase before the runs), so the pages
// land where that variant's init mapping put them and no timed phase takes
// page faults.

#include <cstddef>
#include <utility>

#include <cws/cws.hpp>

namespace cws_apps {

struct two_buffers {
  cws::numa::array<double> a, b;
  double* cur = nullptr;  // the state after the steps so far
  double* next = nullptr;

  two_buffers(std::size_t cells, cws::numa::placement where)
      : a(cws::numa::allocate<double>(cells, where)), b(cws::numa::allocate<double>(cells, where)) {}
  // Init writes both buffers; the first step reads a.
  void restart() noexcept { cur = a.data(), next = b.data(); }
  void swap() noexcept { std::swap(cur, next); }
};

}  // namespace cws_apps
