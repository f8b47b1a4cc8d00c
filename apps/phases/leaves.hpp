#pragma once
// The leaves of one phase of cws-phases, the same code for every variant:
// leaf j of `blocks` runs the kernel (kernel.hpp) over elements
// [j n / blocks, (j + 1) n / blocks) of a and b. The loops (block_loops) run
// over the leaf indices.

#include <cstddef>

#include <cws/cws.hpp>

#include "phases/kernel.hpp"

namespace phases {

struct leaves {
  double* a;
  const double* b;
  std::size_t n, blocks;
  bool declare = false;        // --touches: each leaf declares the bytes of a and b it uses (cws::touch)
  unsigned* visits = nullptr;  // during the verification only: the runs of each leaf

  void operator()(std::size_t lo, std::size_t hi) const {
    for (std::size_t j = lo; j < hi; ++j) {
      const std::size_t first = j * n / blocks, last = (j + 1) * n / blocks;
      scale_add(a, b, first, last);
      if (declare) {  // a no-op outside a cws phase
        cws::touch(a + first, (last - first) * sizeof(double));
        cws::touch(b + first, (last - first) * sizeof(double));
      }
      if (visits != nullptr) ++visits[j];
    }
  }
};

}  // namespace phases
