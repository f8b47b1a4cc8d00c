#pragma once
// The values cws-cilksort sorts, and the check every sorted run must pass.
//
// The input is a pure function of (seed, index): value_at(g, i) hashes the
// pair, so any partition of the array writes the same values, in parallel,
// in any order. The check is order-independent on the multiset (count, sum,
// xor and a sum of hashed values, all modulo 2^64) plus a scan for a
// descending neighbour pair: a sort that drops, duplicates or alters a value
// changes the multiset digest, and one that misplaces a value breaks the
// order.

#include <cstddef>
#include <cstdint>
#include <string>

namespace cilksort {

using value = long;  // the paper's element type: 8-byte signed integers
static_assert(sizeof(value) == 8, "cws-cilksort sorts 64-bit longs");

struct generator {
  std::uint64_t seed = 1;
  // 0: values spread over the whole range of `value`; k > 0: values in
  // [0, k), so with k much smaller than the size most values repeat.
  std::uint64_t range = 0;
};

// SplitMix64's finalizer: a bijection of 64-bit words that mixes every bit.
constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

inline value value_at(const generator& g, std::size_t i) noexcept {
  const std::uint64_t h = mix64(g.seed * 0x9e3779b97f4a7c15ULL + mix64(static_cast<std::uint64_t>(i)));
  return g.range == 0 ? static_cast<value>(h) : static_cast<value>(h % g.range);
}

// Writes a[i] = value_at(g, i) for i in [lo, hi).
void fill(value* a, const generator& g, std::size_t lo, std::size_t hi) noexcept;

// An order-independent digest of a multiset of values.
struct digest {
  std::uint64_t count = 0, sum = 0, xor_all = 0, mixed_sum = 0;
  void add(value v) noexcept {
    const auto u = static_cast<std::uint64_t>(v);
    ++count, sum += u, xor_all ^= u, mixed_sum += mix64(u);
  }
  friend bool operator==(const digest&, const digest&) = default;
};

// The digest of the n values g generates (what every sorted array must hold).
digest digest_of(const generator& g, std::size_t n) noexcept;

// "" when a[0, n) is non-decreasing and its digest is `expected`; otherwise
// one sentence saying what is wrong (the first descending pair, or which
// digest fields differ).
std::string check_sorted(const value* a, std::size_t n, const digest& expected);

// Test-only (--corrupt-output): damages a sorted array so that check_sorted
// must fail. Swaps the first and last elements when they differ (the order
// breaks), else adds 1 to the last one (the digest changes). Nothing for n = 0.
void corrupt(value* a, std::size_t n) noexcept;

}  // namespace cilksort
