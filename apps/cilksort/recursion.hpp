#pragma once
// Frigo's cilksort (the Cilk-5 example, as PufferFish's CilkSort meant to run
// it): a 4-way mergesort whose merges are themselves parallel
// divide-and-conquer merges. Written once, compiled for every fork/join
// flavour (fork_join.hpp), so the serial, cws, TBB and OpenMP variants run
// the same recursion with the same cutoffs.
//
//   sort(lo, n)      sorts a[lo, lo + n), using t[lo, lo + n) as scratch:
//                    n below the quick-size cutoff: std::sort in place;
//                    else, with q = n / 4 (the last quarter takes the rest),
//                    sort the four quarters in parallel; then merge quarters
//                    1+2 and 3+4 of a into the same places of t in parallel;
//                    then merge the two halves of t back into a (called, not
//                    spawned: the parent has nothing else to do meanwhile).
//   merge(r1, r2, d) merges the sorted runs r1 and r2 of one buffer into the
//                    other one from index d on: with r1 the longer run, if r2
//                    is shorter than the merge-size cutoff, a serial merge
//                    (merge_serial: std::merge without its branch);
//                    else take r1's middle element as the pivot, find where
//                    it goes in r2 by binary search on its *value*, store it
//                    at its final place, and merge the two lower parts and
//                    the two upper parts in parallel.
//
// Unlike the PufferFish port, every merge reads its source buffer and writes
// the other one, with the operands in the right order, and the split searches
// for the pivot value (its output is sorted; verified on every run).
//
// Hints name ranges of the array `a` (the scratch buffer t has the same size
// and placement, so index i of either lives on the same node): a sort task
// its quarter; a merge task, with merge_hints::pieces, the ranges of its two
// input runs and of its output (three hints: find_place counts their pages
// per node), with merge_hints::envelope one range from the lowest to the
// highest index of its input runs (what the PufferFish port passes).

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

#include <cws/cws.hpp>

#include "cilksort/input.hpp"

namespace cilksort {

enum class merge_hints { pieces, envelope };

struct sort_setup {
  value* a = nullptr;                               // the data, sorted in place
  value* t = nullptr;                               // scratch of the same size
  const cws::numa::array<value>* hinted = nullptr;  // the array hints name (a's)
  std::size_t quick_size = 1024;                    // a range shorter than this (and than 4) is sorted serially
  std::size_t merge_size = 1024;                    // a merge whose shorter run is shorter than this is serial
  merge_hints hints = merge_hints::pieces;
};

template <class Group>
class recursion {
 public:
  explicit recursion(const sort_setup& s) : s_(s) {}

  void sort(std::size_t lo, std::size_t n) const {
    if (n < std::max<std::size_t>(s_.quick_size, 4)) {
      std::sort(s_.a + lo, s_.a + lo + n);
      return;
    }
    const std::size_t q = n / 4, b = lo + q, c = b + q, d = c + q, end = lo + n;
    Group g;
    g.spawn(range(lo, b), [this, lo, q] { sort(lo, q); });
    g.spawn(range(b, c), [this, b, q] { sort(b, q); });
    g.spawn(range(c, d), [this, c, q] { sort(c, q); });
    g.spawn(range(d, end), [this, d, end] { sort(d, end - d); });
    g.wait();
    const run ab1{lo, b}, ab2{b, c}, cd1{c, d}, cd2{d, end};
    g.spawn(merge_hint(ab1, ab2, lo), [this, ab1, ab2, lo] { merge(false, ab1, ab2, lo); });
    g.spawn(merge_hint(cd1, cd2, c), [this, cd1, cd2, c] { merge(false, cd1, cd2, c); });
    g.wait();
    merge(true, {lo, c}, {c, end}, lo);
  }

 private:
  struct run {
    std::size_t lo = 0, hi = 0;  // [lo, hi)
    std::size_t size() const noexcept { return hi - lo; }
  };

  // Merges runs r1 and r2 of t (from_tmp) or a into the other buffer, from index dest on.
  void merge(bool from_tmp, run r1, run r2, std::size_t dest) const {
    const value* src = from_tmp ? s_.t : s_.a;
    value* dst = from_tmp ? s_.a : s_.t;
    if (r1.size() < r2.size()) std::swap(r1, r2);
    if (r2.size() < std::max<std::size_t>(s_.merge_size, 1)) {
      merge_serial(src + r1.lo, src + r1.hi, src + r2.lo, src + r2.hi, dst + dest);
      return;
    }
    // r1 is not empty (it is at least as long as r2, which is not).
    const std::size_t m1 = r1.lo + r1.size() / 2;
    const value pivot = src[m1];
    const auto s2 = static_cast<std::size_t>(std::lower_bound(src + r2.lo, src + r2.hi, pivot) - src);
    // Everything in r1[lo, m1) and r2[lo, s2) is <= pivot <= everything in r1[m1 + 1, hi) and r2[s2, hi).
    const run low1{r1.lo, m1}, low2{r2.lo, s2}, high1{m1 + 1, r1.hi}, high2{s2, r2.hi};
    const std::size_t at = dest + low1.size() + low2.size();
    dst[at] = pivot;
    Group g;
    g.spawn(merge_hint(low1, low2, dest), [=, this] { merge(from_tmp, low1, low2, dest); });
    g.spawn(merge_hint(high1, high2, at + 1), [=, this] { merge(from_tmp, high1, high2, at + 1); });
    g.wait();
  }

  // std::merge without a branch on the comparison. On random input that
  // branch is mispredicted about every other element, which made the serial
  // recursion 1.23 x std::sort on 2^22 values. Each step stores the smaller
  // head and advances its run by a select that compiles to conditional moves;
  // a tie takes r1's head first.
  static void merge_serial(const value* i1, const value* e1, const value* i2, const value* e2, value* out) noexcept {
    while (i1 != e1 && i2 != e2) {
      const value x = *i1, y = *i2;
      const bool second = y < x;
      *out++ = second ? y : x;
      i1 += !second;
      i2 += second;
    }
    out = std::copy(i1, e1, out);
    std::copy(i2, e2, out);
  }

  cws::touch_hint range(std::size_t lo, std::size_t hi) const { return cws::hint(*s_.hinted, lo, hi); }

  std::array<cws::touch_hint, 3> merge_hint(run r1, run r2, std::size_t dest) const {
    if (s_.hints == merge_hints::pieces)
      return {range(r1.lo, r1.hi), range(r2.lo, r2.hi), range(dest, dest + r1.size() + r2.size())};
    if (r1.size() == 0) std::swap(r1, r2);
    const std::size_t lo = r2.size() == 0 ? r1.lo : std::min(r1.lo, r2.lo);
    const std::size_t hi = r2.size() == 0 ? r1.hi : std::max(r1.hi, r2.hi);
    return {range(lo, hi), cws::touch_hint{}, cws::touch_hint{}};
  }

  sort_setup s_;
};

}  // namespace cilksort
