#pragma once
// Deterministic reductions over row blocks: every block writes its partial
// sums into its own slot, and the total adds the slots in block order,
// serially, after the phase. The partition into blocks is fixed (it does
// not depend on the worker count nor on which worker ran which block), so a
// dot product gives bitwise the same value under every scheduling policy,
// with TBB, OpenMP and serially, on any number of workers: the zeta of
// every variant can be compared exactly, not only within NPB's tolerance.

#include <cstddef>
#include <vector>

namespace cg {

class block_sums {
 public:
  static constexpr std::size_t max_width = 2;  // sums per block (the norms phase computes two)

  explicit block_sums(std::size_t blocks) : slots_(blocks) {}

  // Partial sum `k` of block `b`; each block's slot is written by the one leaf that runs that block.
  double& at(std::size_t b, std::size_t k = 0) noexcept { return slots_[b].v[k]; }
  // Sum `k` over all blocks, added in block order from 0.0.
  double total(std::size_t k = 0) const noexcept {
    double s = 0.0;
    for (const slot& x : slots_) s += x.v[k];
    return s;
  }
  std::size_t blocks() const noexcept { return slots_.size(); }

 private:
  // One cache line per block: neighbouring blocks run on different workers.
  struct alignas(64) slot {
    double v[max_width] = {};
  };
  std::vector<slot> slots_;
};

}  // namespace cg
