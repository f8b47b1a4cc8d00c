#pragma once
// One worker's declared touches in the running phase (touch.hpp).
//
// Owned and written only by its worker during a phase; read by the scheduler
// after every worker has stopped. add() keeps the log short, so that sorting
// it at the end costs little:
//   * the new range merges into one of the most recent `window` ranges when
//     they overlap or are adjacent: a task that walks one or more arrays in
//     order (a leaf of a recursive bisection touching `in` and `out` rows,
//     say) extends its existing ranges, so a segment leaves O(arrays) ranges,
//     not O(tasks). The window's ranges are in neither table below, and one
//     extended there is not checked for a join (seal() merges it): that scan
//     is all a leaf walking its arrays pays per declaration, inlined into
//     cws::touch (4.3 to 3.2-3.8 ns a declaration, cg's pattern of four
//     arrays);
//   * else it extends any earlier range it continues exactly (that range ends
//     where it begins, or begins where it ends), found through two small
//     direct-mapped tables keyed by end and begin addresses (a range enters
//     them as it leaves the window), and two ranges it joins become one: a
//     worker that relaxes the tiles of a 2-D tiling
//     row by row, tile after tile (each tile a range per row, the tile to its
//     right continuing every one of them), ends with one range per band of
//     rows instead of one per row and tile.
// A table slot is a hint, checked against the range it names before use
// (ranges move on; a stale slot just misses). seal() sorts and merges
// whatever is left: each worker seals its own log as it leaves the phase, so
// that the workers sort theirs at the same time instead of the caller
// sorting every log after the phase.
//
// A block of rows (cws::touch_rows: a tile of a row-major matrix) is one
// entry, O(1) to add however many rows it has: it widens a recent block it
// continues sideways (the tile to its right: when its rows then fill the
// stride, the block becomes one plain range) or downwards (the tile below),
// and is otherwise kept as it is. seal() expands the blocks still left into
// their rows, off the tasks' path.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "cws/locality.hpp"

namespace cws::detail {

class touch_log {
 public:
  static constexpr std::size_t window = 4;
  static constexpr std::size_t slots = 256;  // per table (2 KiB in all)

  void add(const void* p, std::size_t bytes) {
    const auto lo = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t hi = lo + bytes;
    if (hi <= lo) return;  // empty (or wrapping) range: nothing touched
    const std::size_t first = ranges_.size() > window ? ranges_.size() - window : 0;
    for (std::size_t i = ranges_.size(); i-- > first;) {
      byte_range& r = ranges_[i];
      if (lo <= r.end && r.begin <= hi && r.end > r.begin) {
        // In the window: the scan finds it, so neither table needs it yet,
        // and a range it now meets is merged by seal().
        r.begin = std::min(r.begin, lo);
        r.end = std::max(r.end, hi);
        return;
      }
    }
    add_outside_window(lo, hi);
  }

  // `rows` ranges of `row_bytes`, `stride` bytes apart, the first at `p`
  // (touch.hpp, touch_rows). A block whose rows meet or overlap is one range;
  // one whose span does not fit the address space is dropped, as add() drops
  // a wrapping range.
  void add_rows(const void* p, std::size_t rows, std::size_t row_bytes, std::size_t stride) {
    if (rows == 0 || row_bytes == 0) return;
    std::size_t span = 0;  // (rows - 1) * stride + row_bytes, if it fits
    if (__builtin_mul_overflow(rows - 1, stride, &span) || __builtin_add_overflow(span, row_bytes, &span)) return;
    if (rows == 1 || stride <= row_bytes) return add(p, span);
    const auto lo = reinterpret_cast<std::uintptr_t>(p);
    if (lo + span <= lo) return;
    const std::size_t first = blocks_.size() > window ? blocks_.size() - window : 0;
    for (std::size_t i = blocks_.size(); i-- > first;) {
      row_block& b = blocks_[i];
      if (b.stride != stride) continue;
      if (b.rows == rows && (lo == b.begin + b.row_bytes || lo + row_bytes == b.begin)) {  // beside it
        b.begin = std::min(b.begin, lo);
        b.row_bytes += row_bytes;
        if (b.row_bytes >= stride) flatten(i);  // its rows now meet: one range
        return;
      }
      if (b.row_bytes == row_bytes &&
          (lo == b.begin + b.rows * stride || lo + rows * stride == b.begin)) {  // below or above it
        b.begin = std::min(b.begin, lo);
        b.rows += rows;
        return;
      }
    }
    blocks_.push_back({lo, rows, row_bytes, stride});
  }

  bool empty() const noexcept { return ranges_.empty() && blocks_.empty(); }
  // Entries to sort when the phase ends (ranges emptied by a join included),
  // a block of rows counting as one.
  std::size_t size() const noexcept { return ranges_.size() + blocks_.size(); }

  // Sorts and merges the phase's ranges in place (by the worker that owns the log).
  void seal() {
    expand_blocks();
    coalesce(ranges_);  // drops the ranges emptied by a join, too
    sealed_ = true;
  }

  // Replaces `out` by the phase's ranges, sorted and merged (sealing them
  // first if the worker did not); the log is empty afterwards. The two
  // exchange their storage: no copy, and no allocation in steady state. An
  // empty log (a phase that declared nothing) has nothing to sort.
  void take(std::vector<byte_range>& out) {
    if (!sealed_ && !empty()) seal();
    out.swap(ranges_);
    ranges_.clear();
    sealed_ = false;  // the tables keep stale slots: each is checked before use
  }

 private:
  static constexpr std::size_t none = ~std::size_t{0};
  static constexpr std::uint32_t unset = ~std::uint32_t{0};

  // A range none of the window's meets (add), kept out of line: add's scan
  // is what a leaf walking its arrays runs, and it stays short enough to inline.
  [[gnu::noinline]] void add_outside_window(std::uintptr_t lo, std::uintptr_t hi) {
    if (const std::size_t i = ending_at(lo); i != none) return extend(i, hi);
    if (const std::size_t i = beginning_at(hi); i != none) {
      ranges_[i].begin = lo;
      by_begin_[slot(lo)] = static_cast<std::uint32_t>(i);
      return;
    }
    ranges_.push_back({lo, hi});
    if (ranges_.size() > window) index(ranges_.size() - 1 - window);  // it just left the window
  }

  // Fibonacci hashing: the top bits of the product depend on every address
  // bit (rows of a matrix are a power-of-two stride apart).
  static std::size_t slot(std::uintptr_t address) noexcept {
    static_assert(slots == 256);
    return static_cast<std::size_t>((static_cast<std::uint64_t>(address) * 0x9E3779B97F4A7C15ull) >> 56);
  }
  std::size_t ending_at(std::uintptr_t address) const noexcept {
    const std::uint32_t i = by_end_[slot(address)];
    return i < ranges_.size() && ranges_[i].end == address && ranges_[i].end > ranges_[i].begin ? i : none;
  }
  std::size_t beginning_at(std::uintptr_t address) const noexcept {
    const std::uint32_t i = by_begin_[slot(address)];
    return i < ranges_.size() && ranges_[i].begin == address && ranges_[i].end > ranges_[i].begin ? i : none;
  }
  void index(std::size_t i) noexcept {
    by_end_[slot(ranges_[i].end)] = static_cast<std::uint32_t>(i);
    by_begin_[slot(ranges_[i].begin)] = static_cast<std::uint32_t>(i);
  }
  // Range i now ends at `hi`; a range that began there joins it (and is left
  // empty, for seal() to drop).
  void extend(std::size_t i, std::uintptr_t hi) {
    ranges_[i].end = hi;
    if (const std::size_t j = beginning_at(hi); j != none && j != i) {
      ranges_[i].end = ranges_[j].end;
      ranges_[j] = {};
    }
    index(i);
  }

  // Block i's rows meet: it leaves the blocks as one plain range.
  void flatten(std::size_t i) {
    const row_block b = blocks_[i];
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));  // one of the last few: a short move
    add(reinterpret_cast<const void*>(b.begin), (b.rows - 1) * b.stride + b.row_bytes);
  }
  // Each block left becomes its rows. Out of memory for a block's rows, the
  // report undercounts that block, as touch() drops a range it cannot store.
  void expand_blocks() noexcept {
    std::size_t total = ranges_.size();
    for (const row_block& b : blocks_) total = b.rows > SIZE_MAX - total ? SIZE_MAX : total + b.rows;
    try {
      ranges_.reserve(total);
    } catch (...) {  // too many for one allocation: room is made block by block below
    }
    for (const row_block& b : blocks_) {
      if (b.rows > ranges_.max_size() - ranges_.size()) continue;
      if (ranges_.capacity() - ranges_.size() < b.rows) try {
          ranges_.reserve(std::max(ranges_.size() + b.rows, 2 * ranges_.capacity()));
        } catch (...) {
          continue;
        }
      for (std::size_t r = 0; r < b.rows; ++r)
        ranges_.push_back({b.begin + r * b.stride, b.begin + r * b.stride + b.row_bytes});
    }
    blocks_.clear();
  }

  struct row_block {
    std::uintptr_t begin;
    std::size_t rows, row_bytes, stride;  // row_bytes < stride: the rows do not meet
  };

  std::vector<byte_range> ranges_;
  std::vector<row_block> blocks_;
  std::array<std::uint32_t, slots> by_end_ = filled(), by_begin_ = filled();
  bool sealed_ = false;

  static constexpr std::array<std::uint32_t, slots> filled() {
    std::array<std::uint32_t, slots> a{};
    a.fill(unset);
    return a;
  }
};

}  // namespace cws::detail
