#pragma once
// PufferFish's allocator surface on top of cws::numa: the `local` placement
// and row-major 2D and 3D arrays whose pages are placed like any numa::array.
//
//   auto g = cws::numa::allocate2d<double>(rows, cols, cws::numa::block_cyclic);
//   g(i, j) = 1.0;                       // row-major: element i * cols + j of g.flat()
//   g.node_of(i, j);                     // virtual NUMA node of that element, O(1)
//   cws::spawn(g.hint_rows(r0, r1), [&] { ... });   // this task uses rows [r0, r1)
//
//   auto v = cws::numa::allocate3d<float>(nx, ny, nz, cws::numa::local);
//   v(i, j, k);                          // element (i * ny + j) * nz + k
//   v.hint_planes(p0, p1);               // planes i in [p0, p1)
//
// A shape is a numa::array<T> (flat()) plus its extents: the data starts at
// the first byte of its first page (no header in front of it, unlike
// PufferFish's numa_malloc), so element (i, j[, k]) lives on the page of byte
// index * sizeof(T), and node_of answers what home_of (hint.hpp) answers for a
// hint of that single element, for every placement. That is why element sizes
// are powers of two up to 4096 bytes: no element straddles two pages, so no
// single element can span two nodes.

#include <bit>
#include <cstddef>
#include <span>
#include <utility>

#include "cws/hint.hpp"
#include "cws/numa.hpp"

namespace cws {
class topology;
}

namespace cws::numa {

// The logical NUMA node numa::local resolves to on `topo`:
//   * inside a phase, the node of the worker running the calling task, as
//     placed by the live runtime (runtime::current(), the runtime whose
//     topology allocate() without a topology uses);
//   * outside a phase, on a discovered topology, the node of the CPU the
//     calling thread runs on now (sched_getcpu; node 0 if that CPU is not in
//     the topology, e.g. outside its cpuset);
//   * outside a phase, on a synthetic topology (CWS_TOPOLOGY), node 0: its
//     nodes have no real CPUs, and the calling thread runs a phase as worker
//     0, which sits on node 0.
// Throws cws::error when the calling worker's node is not a node of `topo`
// (a runtime on another topology than the allocation's).
unsigned caller_node(const topology& topo);

namespace detail {
// a * b [* c], or a cws::error naming the shape when the element count overflows.
std::size_t checked_extent(std::size_t a, std::size_t b);
std::size_t checked_extent(std::size_t a, std::size_t b, std::size_t c);
[[noreturn]] void throw_shape_mismatch(std::size_t have, std::size_t need);
}  // namespace detail

template <class T>
inline constexpr bool page_aligned_element = std::has_single_bit(sizeof(T)) && sizeof(T) <= 4096;

// rows x cols elements, row-major, in one placed numa::array<T>.
template <class T>
class array2d {
  static_assert(page_aligned_element<T>,
                "numa::array2d elements must have a power-of-two size up to 4096 bytes, so that no element straddles "
                "two pages (node_of(i, j) is then the home of that element)");

 public:
  using value_type = T;

  array2d() noexcept = default;
  // Views `flat` as rows x cols. Throws cws::error unless flat.size() == rows * cols.
  array2d(array<T> flat, std::size_t rows, std::size_t cols) : flat_(std::move(flat)), rows_(rows), cols_(cols) {
    if (const std::size_t need = detail::checked_extent(rows, cols); need != flat_.size())
      detail::throw_shape_mismatch(flat_.size(), need);
  }
  array2d(array2d&& o) noexcept
      : flat_(std::move(o.flat_)), rows_(std::exchange(o.rows_, 0)), cols_(std::exchange(o.cols_, 0)) {}
  array2d& operator=(array2d&& o) noexcept {
    if (this != &o) {
      flat_ = std::move(o.flat_);
      rows_ = std::exchange(o.rows_, 0);
      cols_ = std::exchange(o.cols_, 0);
    }
    return *this;
  }

  std::size_t rows() const noexcept { return rows_; }
  std::size_t cols() const noexcept { return cols_; }
  std::size_t size() const noexcept { return flat_.size(); }
  bool empty() const noexcept { return flat_.empty(); }
  T* data() noexcept { return flat_.data(); }
  const T* data() const noexcept { return flat_.data(); }
  // The elements as one array, row after row (for 1D loops and cws::hint).
  array<T>& flat() noexcept { return flat_; }
  const array<T>& flat() const noexcept { return flat_; }

  // Position of (i, j) in flat(). Preconditions for all element accessors: i < rows(), j < cols().
  std::size_t index(std::size_t i, std::size_t j) const noexcept { return i * cols_ + j; }
  T& operator()(std::size_t i, std::size_t j) noexcept { return flat_[index(i, j)]; }
  const T& operator()(std::size_t i, std::size_t j) const noexcept { return flat_[index(i, j)]; }
  std::span<T> row(std::size_t i) noexcept { return {data() + index(i, 0), cols_}; }
  std::span<const T> row(std::size_t i) const noexcept { return {data() + index(i, 0), cols_}; }

  // Virtual NUMA node of element (i, j); -1 for first_touch. O(1).
  int node_of(std::size_t i, std::size_t j) const noexcept { return flat_.node_of(index(i, j)); }

  // Rows [r0, r1) (r1 clamped to rows(); empty when r0 >= r1), for cws::spawn.
  touch_hint hint_rows(std::size_t r0, std::size_t r1) const noexcept {
    if (r1 > rows_) r1 = rows_;
    if (r0 > r1) r0 = r1;
    return cws::hint(flat_, r0 * cols_, r1 * cols_);
  }

 private:
  array<T> flat_;
  std::size_t rows_ = 0, cols_ = 0;
};

// nx x ny x nz elements, (i, j, k) at (i * ny + j) * nz + k: plane i is
// ny * nz contiguous elements.
template <class T>
class array3d {
  static_assert(page_aligned_element<T>,
                "numa::array3d elements must have a power-of-two size up to 4096 bytes, so that no element straddles "
                "two pages (node_of(i, j, k) is then the home of that element)");

 public:
  using value_type = T;

  array3d() noexcept = default;
  // Views `flat` as nx x ny x nz. Throws cws::error unless flat.size() == nx * ny * nz.
  array3d(array<T> flat, std::size_t nx, std::size_t ny, std::size_t nz)
      : flat_(std::move(flat)), nx_(nx), ny_(ny), nz_(nz) {
    if (const std::size_t need = detail::checked_extent(nx, ny, nz); need != flat_.size())
      detail::throw_shape_mismatch(flat_.size(), need);
  }
  array3d(array3d&& o) noexcept
      : flat_(std::move(o.flat_)),
        nx_(std::exchange(o.nx_, 0)),
        ny_(std::exchange(o.ny_, 0)),
        nz_(std::exchange(o.nz_, 0)) {}
  array3d& operator=(array3d&& o) noexcept {
    if (this != &o) {
      flat_ = std::move(o.flat_);
      nx_ = std::exchange(o.nx_, 0);
      ny_ = std::exchange(o.ny_, 0);
      nz_ = std::exchange(o.nz_, 0);
    }
    return *this;
  }

  std::size_t nx() const noexcept { return nx_; }
  std::size_t ny() const noexcept { return ny_; }
  std::size_t nz() const noexcept { return nz_; }
  std::size_t size() const noexcept { return flat_.size(); }
  bool empty() const noexcept { return flat_.empty(); }
  T* data() noexcept { return flat_.data(); }
  const T* data() const noexcept { return flat_.data(); }
  array<T>& flat() noexcept { return flat_; }
  const array<T>& flat() const noexcept { return flat_; }

  // Position of (i, j, k) in flat(). Preconditions: i < nx(), j < ny(), k < nz().
  std::size_t index(std::size_t i, std::size_t j, std::size_t k) const noexcept { return (i * ny_ + j) * nz_ + k; }
  T& operator()(std::size_t i, std::size_t j, std::size_t k) noexcept { return flat_[index(i, j, k)]; }
  const T& operator()(std::size_t i, std::size_t j, std::size_t k) const noexcept { return flat_[index(i, j, k)]; }

  // Virtual NUMA node of element (i, j, k); -1 for first_touch. O(1).
  int node_of(std::size_t i, std::size_t j, std::size_t k) const noexcept { return flat_.node_of(index(i, j, k)); }

  // Planes [p0, p1) of the first index (p1 clamped to nx(); empty when p0 >= p1).
  touch_hint hint_planes(std::size_t p0, std::size_t p1) const noexcept {
    if (p1 > nx_) p1 = nx_;
    if (p0 > p1) p0 = p1;
    const std::size_t plane = ny_ * nz_;
    return cws::hint(flat_, p0 * plane, p1 * plane);
  }

 private:
  array<T> flat_;
  std::size_t nx_ = 0, ny_ = 0, nz_ = 0;
};

// rows x cols elements placed as `p` for `topo` (for the live runtime's
// topology without it, as numa::allocate). A zero extent gives an empty
// array. Throws cws::error when rows * cols overflows, and as numa::allocate.
template <class T>
array2d<T> allocate2d(std::size_t rows, std::size_t cols, placement p, const topology& topo) {
  return {allocate<T>(detail::checked_extent(rows, cols), p, topo), rows, cols};
}
template <class T>
array2d<T> allocate2d(std::size_t rows, std::size_t cols, placement p) {
  return {allocate<T>(detail::checked_extent(rows, cols), p), rows, cols};
}

template <class T>
array3d<T> allocate3d(std::size_t nx, std::size_t ny, std::size_t nz, placement p, const topology& topo) {
  return {allocate<T>(detail::checked_extent(nx, ny, nz), p, topo), nx, ny, nz};
}
template <class T>
array3d<T> allocate3d(std::size_t nx, std::size_t ny, std::size_t nz, placement p) {
  return {allocate<T>(detail::checked_extent(nx, ny, nz), p), nx, ny, nz};
}

template <class T>
void prefault_zero(array2d<T>& a) {
  prefault_zero(a.flat());
}
template <class T>
void prefault_zero(array3d<T>& a) {
  prefault_zero(a.flat());
}

}  // namespace cws::numa
