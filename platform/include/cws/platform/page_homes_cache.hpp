#pragma once
// A page-home cache in front of the kernel backend.
//
// The locality report of a phase that declared touches needs the home of
// every touched page. Asking the kernel (move_pages with nodes = NULL) costs
// about 0.2 us per page: 3 ms per phase for a stencil over two 32 MiB grids,
// more than the phase itself. Homes change only when pages move, so the cache
// keeps every home the kernel reported and asks again only for
//   * pages it has not seen with a home yet (not yet faulted in),
//   * pages moved through this backend (move() forgets them),
//   * everything, every `refresh_queries` queries, so that pages moved behind
//     cws's back (automatic NUMA balancing, the program's own move_pages or
//     mbind) are seen within that many phases.
// Lookups go per 2 MiB chunk (one hash lookup per 512 pages).

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "cws/locality.hpp"
#include "cws/page_homes.hpp"

namespace cws::detail {

class cached_page_homes final : public numa::page_homes {
 public:
  static constexpr unsigned refresh_queries = 256;

  explicit cached_page_homes(std::unique_ptr<numa::page_homes> kernel);

  std::string name() const override { return inner_->name(); }
  void query(std::span<const std::uintptr_t> pages, std::span<int> homes) override;
  void first_touch(std::span<const std::uintptr_t> pages, std::span<const unsigned> nodes,
                   std::span<int> homes) override {
    inner_->first_touch(pages, nodes, homes);
  }
  numa::move_outcome move(std::span<const std::uintptr_t> pages, std::span<const unsigned> nodes) override;
  // query(), but the kernel is asked about every page (what it answers is
  // cached): for a caller that reuses homes across runs without asking, to
  // see pages moved behind cws's back.
  void requery(std::span<const std::uintptr_t> pages, std::span<int> homes);
  std::size_t page_size() const noexcept override { return page_size_; }

  // Pages the last query() asked the kernel about (tests, figures).
  std::size_t last_kernel_pages() const noexcept { return last_kernel_pages_; }

 private:
  static constexpr std::size_t chunk_pages = 512;
  using chunk = std::array<std::int16_t, chunk_pages>;  // home, or unknown_home
  std::int16_t* slot(std::uintptr_t page, bool create);

  std::unique_ptr<numa::page_homes> inner_;
  std::size_t page_size_;
  unsigned page_shift_;
  std::unordered_map<std::uintptr_t, std::unique_ptr<chunk>> chunks_;
  unsigned queries_ = 0;
  std::size_t last_kernel_pages_ = 0;
  // Scratch reused by every query (no allocation in steady state).
  std::vector<std::uintptr_t> misses_;
  std::vector<std::size_t> miss_index_;
  std::vector<int> miss_homes_;
};

}  // namespace cws::detail
