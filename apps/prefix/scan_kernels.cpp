#include "prefix/scan_kernels.hpp"

namespace prefix {

void init_blocks(const blocking& b, std::size_t bl, std::size_t bh) {
  if (bl >= bh) return;
  std::int64_t* const a = b.a;
  for (std::size_t i = b.begin_of(bl), end = b.end_of(bh - 1); i < end; ++i) a[i] = initial_value(i);
}

void sum_blocks(const blocking& b, std::size_t bl, std::size_t bh, std::span<std::int64_t> sums) {
  const std::int64_t* const a = b.a;
  for (std::size_t k = bl; k < bh; ++k) {
    std::int64_t s = 0;
    for (std::size_t i = b.begin_of(k), end = b.end_of(k); i < end; ++i) s += a[i];
    sums[k] = s;
  }
}

std::int64_t exclusive_offsets(std::span<const std::int64_t> sums, std::span<std::int64_t> offsets) {
  std::int64_t running = 0;
  for (std::size_t k = 0; k < sums.size(); ++k) {
    offsets[k] = running;
    running += sums[k];
  }
  return running;
}

void scan_blocks(const blocking& b, std::size_t bl, std::size_t bh, std::span<const std::int64_t> offsets) {
  std::int64_t* const a = b.a;
  for (std::size_t k = bl; k < bh; ++k) {
    std::int64_t running = offsets[k];
    for (std::size_t i = b.begin_of(k), end = b.end_of(k); i < end; ++i) a[i] = running += a[i];
  }
}

}  // namespace prefix
