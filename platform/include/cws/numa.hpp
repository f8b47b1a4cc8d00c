#pragma once
// cws::numa — arrays whose pages are placed on NUMA nodes, and a registry that
// answers "which node owns this element / address" in O(1) (plus an O(log n)
// lookup of the allocation containing an address).
//
//   auto a = cws::numa::allocate<double>(n, cws::numa::block_cyclic);
//   a.node_of(i);                     // virtual NUMA node of element i
//   cws::numa::prefault_zero(a);      // optional: fault the pages in now
//
// Placements (nodes are the topology's logical NUMA nodes, 0..N-1):
//   first_touch    the kernel's default: a page lives where it is first written.
//                  node_of() is -1: the home is unknown until touch tracking.
//   on_node(v)     every page on node v.
//   interleaved    page p on node p % N.
//   block_cyclic   PufferFish: blocks of ceil(pages / N) pages, block b on node b.
//   local          PufferFish's "local": the node of the allocating worker (of
//                  the calling thread's CPU outside a phase), resolved by
//                  allocate() into on_node(v), so region::where() says which
//                  node it was (numa_shapes.hpp, caller_node()).
//
// node_of() answers the placement *intended* for the topology the array was
// allocated for, so a synthetic topology (CWS_TOPOLOGY) behaves like the
// machine it describes. Whether the kernel really put the pages there is
// region::kernel_placed(): true only on a real topology whose nodes libnuma
// could bind.
//
// allocate() maps fresh zero pages and does not touch them: with first_touch
// the first writer decides, and bound pages are allocated on their node when
// first written. Element types must therefore be implicit-lifetime types
// (trivially default-constructible and destructible); every element starts as
// zero bytes.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace cws {
class topology;
}

namespace cws::numa {

enum class placement_kind { first_touch, on_node, interleaved, block_cyclic, local };

struct placement {
  placement_kind kind = placement_kind::first_touch;
  unsigned node = 0;  // on_node only
  friend bool operator==(const placement&, const placement&) = default;
};

inline constexpr placement first_touch{placement_kind::first_touch, 0};
inline constexpr placement interleaved{placement_kind::interleaved, 0};
inline constexpr placement block_cyclic{placement_kind::block_cyclic, 0};
inline constexpr placement local{placement_kind::local, 0};  // never stored: allocate() makes it on_node(v)
constexpr placement on_node(unsigned node) noexcept { return {placement_kind::on_node, node}; }

// "first_touch", "on_node(2)", "interleaved", "block_cyclic", "local".
std::string to_string(const placement& p);

// One registered allocation. Immutable once created; lives as long as the
// allocation that owns it.
class region {
 public:
  void* begin() const noexcept { return begin_; }
  std::size_t bytes() const noexcept { return bytes_; }  // as requested
  const placement& where() const noexcept { return where_; }
  unsigned nodes() const noexcept { return nodes_; }  // NUMA nodes of the topology
  std::size_t page_size() const noexcept { return page_size_; }
  std::size_t pages() const noexcept { return pages_; }
  // Pages per block: ceil(pages / nodes) for block_cyclic, 1 for interleaved,
  // all pages for on_node and first_touch.
  std::size_t block_pages() const noexcept { return block_pages_; }
  // True when the kernel was told to put every page where node_of() says.
  bool kernel_placed() const noexcept { return kernel_placed_; }
  // Why kernel_placed() is what it is, e.g. "synthetic topology: intent only".
  const std::string& kernel_note() const noexcept { return kernel_note_; }
  // True when the mapping asked the kernel for transparent huge pages: only
  // where this process can allocate on one kernel node, so no page has
  // another node to go to. Elsewhere cws maps base pages, the unit that homes
  // are tracked and moved in. A huge page makes one TLB entry cover 512 base
  // pages (docs/data-placement.md has what that was worth). Whether the kernel
  // grants them is its THP setting's call (madvise, always: yes; never: no).
  bool huge_pages() const noexcept { return huge_pages_; }
  // Kernel node each virtual node was bound to (-1: not bound), one entry per node.
  const std::vector<int>& kernel_nodes() const noexcept { return kernel_nodes_; }
  // Unique for the process's lifetime (never reused, unlike addresses): lets a
  // table keyed by region tell a new region at a reused address from the old one.
  std::uint64_t serial() const noexcept { return serial_; }

  bool contains(const void* p) const noexcept {
    auto a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(begin_);
    return a >= b && a - b < bytes_;
  }

  // Virtual node of page `page` / of the byte at `offset`; -1 for first_touch.
  // Preconditions: page < pages(), offset < bytes().
  int node_of_page(std::size_t page) const noexcept {
    switch (where_.kind) {
      case placement_kind::on_node:
        return static_cast<int>(where_.node);
      case placement_kind::interleaved:
        return static_cast<int>(page % nodes_);
      // ceil(pages / nodes) * nodes >= pages, so the block number is already < nodes.
      case placement_kind::block_cyclic:
        return static_cast<int>(page / block_pages_);
      case placement_kind::first_touch:
      case placement_kind::local:  // resolved to on_node when allocated: a region never holds it
        break;
    }
    return -1;
  }
  int node_of_offset(std::size_t offset) const noexcept { return node_of_page(offset >> page_shift_); }
  // Precondition: contains(p).
  int node_of_address(const void* p) const noexcept {
    return node_of_offset(reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(begin_));
  }

 private:
  friend class allocation;
  region() = default;
  void* begin_ = nullptr;  // the mapping is [begin_, begin_ + pages_ * page_size_)
  std::size_t bytes_ = 0;
  placement where_;
  unsigned nodes_ = 1;
  std::size_t page_size_ = 0;
  unsigned page_shift_ = 0;
  std::size_t pages_ = 0;
  std::size_t block_pages_ = 0;
  bool kernel_placed_ = false;
  bool huge_pages_ = false;
  std::uint64_t serial_ = 0;
  std::string kernel_note_;
  std::vector<int> kernel_nodes_;
};

// The untyped owner of one placed, registered mapping (move-only). array<T>
// is a typed view on top; the non-template work lives in numa.cpp.
class allocation {
 public:
  allocation() noexcept = default;
  // Maps `bytes` (> 0) placed for `topo`, registers it. Throws cws::error when
  // the placement is invalid for the topology or the mapping fails.
  allocation(std::size_t bytes, placement p, const topology& topo);
  // Same, for the live runtime's topology; without a runtime, for the
  // topology the runtime would use (CWS_TOPOLOGY, else this machine).
  allocation(std::size_t bytes, placement p);
  allocation(allocation&& o) noexcept : r_(std::exchange(o.r_, nullptr)) {}
  allocation& operator=(allocation&& o) noexcept {
    if (this != &o) {
      release();
      r_ = std::exchange(o.r_, nullptr);
    }
    return *this;
  }
  allocation(const allocation&) = delete;
  allocation& operator=(const allocation&) = delete;
  ~allocation() { release(); }

  void* data() const noexcept { return r_ ? r_->begin() : nullptr; }
  std::size_t bytes() const noexcept { return r_ ? r_->bytes() : 0; }
  const region* get() const noexcept { return r_; }
  explicit operator bool() const noexcept { return r_ != nullptr; }

 private:
  void release() noexcept;
  region* r_ = nullptr;
};

// n * size in bytes; throws cws::error when that overflows.
std::size_t checked_bytes(std::size_t n, std::size_t size);

namespace detail {
[[noreturn]] void throw_array_too_small(std::size_t need, std::size_t have);
}

template <class T>
class array {
  static_assert(std::is_trivially_default_constructible_v<T> && std::is_trivially_destructible_v<T>,
                "numa::array elements start as zero bytes and are never constructed or destroyed");
  static_assert(alignof(T) <= 4096, "numa::array data is only page-aligned");

 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = T*;
  using const_iterator = const T*;

  array() noexcept = default;
  // Views `mem` as `n` elements. Throws cws::error when mem is too small.
  array(allocation mem, std::size_t n) : mem_(std::move(mem)), size_(n) {
    if (std::size_t need = checked_bytes(n, sizeof(T)); need > mem_.bytes())
      detail::throw_array_too_small(need, mem_.bytes());
  }
  array(array&& o) noexcept : mem_(std::move(o.mem_)), size_(std::exchange(o.size_, 0)) {}
  array& operator=(array&& o) noexcept {
    if (this != &o) {
      mem_ = std::move(o.mem_);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }

  T* data() noexcept { return static_cast<T*>(mem_.data()); }
  const T* data() const noexcept { return static_cast<const T*>(mem_.data()); }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T& operator[](std::size_t i) noexcept { return data()[i]; }
  const T& operator[](std::size_t i) const noexcept { return data()[i]; }
  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + size_; }
  const T* begin() const noexcept { return data(); }
  const T* end() const noexcept { return data() + size_; }
  std::span<T> span() noexcept { return {data(), size_}; }
  std::span<const T> span() const noexcept { return {data(), size_}; }

  // Virtual NUMA node of element i (of its first byte, should it straddle a
  // page boundary); -1 for first_touch. O(1). Precondition: i < size().
  int node_of(std::size_t i) const noexcept { return mem_.get()->node_of_offset(i * sizeof(T)); }
  // The registered region; nullptr for an empty array.
  const region* memory() const noexcept { return mem_.get(); }

 private:
  allocation mem_;
  std::size_t size_ = 0;
};

// n elements of T placed as `p` for `topo`. n == 0 gives an empty array
// (nothing mapped or registered).
template <class T>
array<T> allocate(std::size_t n, placement p, const topology& topo) {
  if (n == 0) return {};
  return array<T>(allocation(checked_bytes(n, sizeof(T)), p, topo), n);
}

// Same, for the live runtime's topology (see allocation(bytes, p)).
template <class T>
array<T> allocate(std::size_t n, placement p) {
  if (n == 0) return {};
  return array<T>(allocation(checked_bytes(n, sizeof(T)), p), n);
}

// The live allocation containing address p, or nullptr. O(log allocations),
// thread-safe. The result is valid while that allocation lives.
const region* find_region(const void* p) noexcept;

// One line: placement, size, pages, block size, kernel placement and why.
std::string describe(const region& r);

// Faults in the pages of [p, p + bytes) for writing now instead of at first
// use (e.g. before timing a phase), so that each lands on its bound node.
// Uses MADV_POPULATE_WRITE, which leaves the contents alone; on kernels
// without it (< 5.14) it falls back to writing a zero byte into every page,
// so it is meant for FRESH allocations only, whose contents are zero anyway.
// Never call it on data you want to keep. Throws cws::error on failure.
void prefault_zero(void* p, std::size_t bytes);

template <class T>
void prefault_zero(array<T>& a) {
  prefault_zero(a.data(), a.size() * sizeof(T));
}

}  // namespace cws::numa
