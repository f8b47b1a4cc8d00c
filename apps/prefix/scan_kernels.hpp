#pragma once
// The leaves of cws-prefix, shared by every variant (serial, cws, TBB,
// OpenMP): a blocked two-pass inclusive scan of int64 values in place.
//
//   blocking b{a, n, block};
//   init_blocks(b, 0, b.blocks());            // pass 0: a[i] = initial_value(i)
//   sum_blocks(b, 0, b.blocks(), sums);       // pass 1: sums[k] = sum of block k
//   exclusive_offsets(sums, offsets);         // serial, over the block sums only
//   scan_blocks(b, 0, b.blocks(), offsets);   // pass 2: block k scanned from offsets[k]
//
// Every pass works on whole blocks [bl, bh), so its parallel loops run over
// block indices and a leaf of any loop is a set of whole blocks: the same
// block -> leaf map in all three passes, which is what lets the scan passes
// replay the init pass's schedule. Integer addition is associative, so the
// result is exactly std::inclusive_scan's whatever the block size (the
// values stay far from overflow: |a[i]| < 512, n < 2^40).

#include <cstddef>
#include <cstdint>
#include <span>

namespace prefix {

// The array and its blocks: block k is [k * block, min(n, (k + 1) * block)).
struct blocking {
  std::int64_t* a = nullptr;
  std::size_t n = 0;
  std::size_t block = 1;  // elements per block, >= 1

  std::size_t blocks() const noexcept { return (n + block - 1) / block; }
  std::size_t begin_of(std::size_t k) const noexcept { return k * block; }
  std::size_t end_of(std::size_t k) const noexcept { return (k + 1) * block < n ? (k + 1) * block : n; }
};

// The initial value of element i: a hash of i in [-512, 512), so that every
// block sum differs and a scan that used the wrong offset or the wrong block
// shows.
inline std::int64_t initial_value(std::size_t i) noexcept {
  const std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
  return static_cast<std::int64_t>(h >> 54) - 512;
}

void init_blocks(const blocking& b, std::size_t bl, std::size_t bh);
void sum_blocks(const blocking& b, std::size_t bl, std::size_t bh, std::span<std::int64_t> sums);
// offsets[k] = sums[0] + ... + sums[k-1] (offsets[0] = 0); returns the total.
std::int64_t exclusive_offsets(std::span<const std::int64_t> sums, std::span<std::int64_t> offsets);
void scan_blocks(const blocking& b, std::size_t bl, std::size_t bh, std::span<const std::int64_t> offsets);

}  // namespace prefix
