// cws::numa: placed mappings, the process-wide region registry, prefaulting.
//
// The placement a region records is the *intent* for the topology it was
// allocated for (virtual nodes 0..N-1); node_of answers it in O(1). Kernel
// binding (numa_kernel.cpp) is applied on top when libnuma is available, and
// region::kernel_placed says whether it realises that intent exactly.

#include "cws/numa.hpp"
#include "cws/numa_shapes.hpp"  // caller_node

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "cws/error.hpp"
#include "cws/topology.hpp"
#include "cws/platform/region_generation.hpp"
#include "cws/platform/runtime_hooks.hpp"
#include "numa_kernel.hpp"

namespace cws::numa {

std::string to_string(const placement& p) {
  switch (p.kind) {
    case placement_kind::first_touch:
      return "first_touch";
    case placement_kind::on_node:
      return fmt::format("on_node({})", p.node);
    case placement_kind::interleaved:
      return "interleaved";
    case placement_kind::block_cyclic:
      return "block_cyclic";
    case placement_kind::local:
      return "local";
  }
  return "unknown";
}

std::size_t checked_bytes(std::size_t n, std::size_t size) {
  if (size != 0 && n > SIZE_MAX / size)
    throw error(fmt::format("numa::allocate: {} elements of {} bytes overflow the address space", n, size));
  return n * size;
}

void detail::throw_array_too_small(std::size_t need, std::size_t have) {
  throw error(fmt::format("numa::array needs {} bytes but the allocation has {}", need, have));
}

namespace {

std::size_t system_page_size() {
  static const std::size_t size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

// ---- registry ---------------------------------------------------------------

struct registry {
  std::shared_mutex mutex;
  std::map<std::uintptr_t, const region*> by_begin;
};

// Deliberately never destroyed: arrays with static storage duration may be
// freed after any static registry object would already be gone.
registry& the_registry() {
  static registry* r = new registry;
  return *r;
}

// Bumped by every registration and release (region_generation.hpp).
constinit std::atomic<std::uint64_t> registry_changes{0};

}  // namespace

// ---- allocation ---------------------------------------------------------------

allocation::allocation(std::size_t bytes, placement p, const topology& topo) {
  const unsigned nodes = topo.numa_nodes();
  if (bytes == 0) throw error("numa::allocate: cannot place an allocation of 0 bytes");
  if (p.kind == placement_kind::local) p = on_node(caller_node(topo));  // once, so node_of stays O(1)
  if (p.kind == placement_kind::on_node && p.node >= nodes)
    throw error(fmt::format("numa::{}: the topology has {} NUMA node{} ({})", to_string(p), nodes,
                            nodes == 1 ? "" : "s", topo.summary()));

  static std::atomic<std::uint64_t> next_serial{1};
  auto r = std::unique_ptr<region>(new region);
  r->serial_ = next_serial.fetch_add(1, std::memory_order_relaxed);
  r->where_ = p;
  r->nodes_ = nodes;
  r->bytes_ = bytes;
  r->page_size_ = system_page_size();
  r->page_shift_ = static_cast<unsigned>(std::countr_zero(r->page_size_));
  r->pages_ = (bytes + r->page_size_ - 1) / r->page_size_;
  switch (p.kind) {
    case placement_kind::interleaved:
      r->block_pages_ = 1;
      break;
    case placement_kind::block_cyclic:
      r->block_pages_ = (r->pages_ + nodes - 1) / nodes;
      break;
    default:
      r->block_pages_ = r->pages_;
      break;
  }

  detail::kernel_layout k = detail::map_placed(r->pages_, r->page_size_, r->block_pages_, p, topo);
  r->begin_ = k.begin;
  // Unmap again should anything below throw (only allocation failures can).
  struct unmap_on_throw {
    void* p;
    std::size_t len;
    ~unmap_on_throw() {
      if (p) ::munmap(p, len);
    }
  } guard{r->begin_, r->pages_ * r->page_size_};
  r->kernel_placed_ = k.placed;
  r->huge_pages_ = k.huge_pages;
  r->kernel_note_ = std::move(k.note);
  r->kernel_nodes_ = std::move(k.bound);

  registry& reg = the_registry();
  {
    std::unique_lock lock(reg.mutex);
    reg.by_begin.emplace(reinterpret_cast<std::uintptr_t>(r->begin_), r.get());
    registry_changes.fetch_add(1, std::memory_order_release);
  }
  guard.p = nullptr;
  r_ = r.release();
}

allocation::allocation(std::size_t bytes, placement p) {
  const platform::runtime_hooks& h = platform::hooks();
  if (const topology* running = h.running_topology ? h.running_topology() : nullptr) {
    *this = allocation(bytes, p, *running);
    return;
  }
  // No runtime yet: the topology it would use, so node numbers agree later.
  *this = allocation(bytes, p, h.configured_topology ? h.configured_topology() : topology::discover());
}

void allocation::release() noexcept {
  if (!r_) return;
  {
    registry& reg = the_registry();
    std::unique_lock lock(reg.mutex);
    reg.by_begin.erase(reinterpret_cast<std::uintptr_t>(r_->begin_));
    registry_changes.fetch_add(1, std::memory_order_release);
  }
  ::munmap(r_->begin_, r_->pages_ * r_->page_size_);
  delete r_;
  r_ = nullptr;
}

const region* find_region(const void* p) noexcept {
  registry& reg = the_registry();
  std::shared_lock lock(reg.mutex);
  auto it = reg.by_begin.upper_bound(reinterpret_cast<std::uintptr_t>(p));
  if (it == reg.by_begin.begin()) return nullptr;
  --it;
  return it->second->contains(p) ? it->second : nullptr;
}

std::string describe(const region& r) {
  std::string layout = fmt::format("{} over {} node{}", to_string(r.where()), r.nodes(), r.nodes() == 1 ? "" : "s");
  if (r.where().kind == placement_kind::block_cyclic) layout += fmt::format(" ({} pages per block)", r.block_pages());
  return fmt::format("{}: {} bytes at {}, {} page{} of {} bytes; kernel: {}{}", layout, r.bytes(), r.begin(), r.pages(),
                     r.pages() == 1 ? "" : "s", r.page_size(), r.kernel_note(),
                     r.huge_pages() ? "; transparent huge pages (one kernel node)" : "");
}

void prefault_zero(void* p, std::size_t bytes) {
  if (bytes == 0) return;
  const std::size_t ps = system_page_size();
  auto lo = reinterpret_cast<std::uintptr_t>(p), hi = lo + bytes;
  std::uintptr_t first = lo & ~(ps - 1), last = (hi + ps - 1) & ~(ps - 1);
#ifdef MADV_POPULATE_WRITE
  if (::madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE) == 0) return;
  if (errno != EINVAL)  // EINVAL: kernel older than 5.14, use the fallback
    throw error(fmt::format("numa::prefault_zero: cannot populate {} bytes at {}: {}", bytes, p, std::strerror(errno)));
#endif
  // Fallback: one write per page, inside [p, p + bytes) only. It stores zero,
  // which is why this is for fresh (all-zero) allocations only.
  for (std::uintptr_t a = first; a < hi; a += ps) *reinterpret_cast<volatile char*>(std::max(a, lo)) = 0;
}

}  // namespace cws::numa

namespace cws::detail {
std::uint64_t region_generation() noexcept { return numa::registry_changes.load(std::memory_order_acquire); }
}  // namespace cws::detail
