#pragma once
// The leaves of one phase of cws-phases, the same code for every variant:
// leaf j of `blocks` runs the kernel (kernel.hpp) over elements
// [leaf_begin(j), leaf_begin(j + 1)) of a and b. The loops (block_loops) run
// over the leaf indices.
//
// Equal leaves by default ([j n / blocks, (j + 1) n / blocks)). With a skew
// of s (--skew, s = S / 100), leaf j weighs 1 + s j / (blocks - 1): the last
// leaf is (1 + s) times the first, and the later half of the leaves holds
// more than half of the work (s = 1: 58 % with 64 leaves). A split of the
// leaves in equal counts, which a template balanced in task counts is, then
// is not a split of the work in equal halves; random stealing rebalances
// every phase, a strict replay does not.

#include <cmath>
#include <cstddef>

#include <cws/cws.hpp>

#include "phases/kernel.hpp"

namespace phases {

// The share of the work in leaves 0 .. j-1 of `blocks` (j in [0, blocks]),
// `skew` being s above.
inline double work_before(std::size_t j, std::size_t blocks, double skew) noexcept {
  const auto weight = [&](double k) { return k + skew * k * (k - 1) / (2.0 * static_cast<double>(blocks - 1)); };
  return blocks < 2 ? static_cast<double>(j) : weight(static_cast<double>(j)) / weight(static_cast<double>(blocks));
}

// The first element of leaf j of `blocks` over n elements, for j in
// [0, blocks]: 0 for j = 0, n for j = blocks, never decreasing; with no
// skew exactly as integer division splits n.
inline std::size_t leaf_begin(std::size_t j, std::size_t n, std::size_t blocks, double skew) noexcept {
  if (skew == 0 || blocks < 2) return j * n / blocks;
  if (j >= blocks) return n;
  return static_cast<std::size_t>(std::floor(work_before(j, blocks, skew) * static_cast<double>(n)));
}

struct leaves {
  double* a;
  const double* b;
  std::size_t n, blocks;
  bool declare = false;        // --touches: each leaf declares the bytes of a and b it uses (cws::touch)
  unsigned* visits = nullptr;  // during the verification only: the runs of each leaf
  double skew = 0;             // --skew / 100 (leaf_begin)

  void operator()(std::size_t lo, std::size_t hi) const {
    for (std::size_t j = lo; j < hi; ++j) {
      const std::size_t first = leaf_begin(j, n, blocks, skew), last = leaf_begin(j + 1, n, blocks, skew);
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
