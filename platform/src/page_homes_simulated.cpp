// The simulated page-home backend (page_homes.hpp): a table of homes for
// topologies whose nodes the kernel does not have (CWS_TOPOLOGY).
//
// Pages of a cws::numa region live in a per-region table, created on first
// use from the region's placement (node_of_page; unknown for first_touch) and
// keyed by the region's start address *and serial*, so a new region mapped at
// a reused address starts afresh. Tables of freed regions are dropped once
// the table count has doubled since the last sweep. Other pages (cws::touch of
// memory cws::numa did not allocate) live in a side table from their first
// declared touch on; they are never forgotten (a reused page keeps its home,
// as physical pages do).

#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "cws/locality.hpp"
#include "cws/numa.hpp"
#include "cws/page_homes.hpp"
#include "cws/topology.hpp"

namespace cws::numa {
namespace {

class simulated_page_homes final : public page_homes {
 public:
  explicit simulated_page_homes(unsigned nodes)
      : nodes_(nodes), page_size_(static_cast<std::size_t>(::sysconf(_SC_PAGESIZE))) {}

  std::string name() const override { return "simulated"; }
  std::size_t page_size() const noexcept override { return page_size_; }

  void query(std::span<const std::uintptr_t> pages, std::span<int> homes) override {
    sweep();
    cursor c;
    for (std::size_t i = 0; i < pages.size(); ++i) {
      const std::int16_t* h = find(c, pages[i]);
      homes[i] = h ? *h : unknown_home;
    }
  }

  void first_touch(std::span<const std::uintptr_t> pages, std::span<const unsigned> nodes,
                   std::span<int> homes) override {
    cursor c;
    for (std::size_t i = 0; i < pages.size(); ++i) {
      if (homes[i] != unknown_home || nodes[i] >= nodes_) continue;
      std::int16_t& h = slot(c, pages[i]);
      if (h == unknown_home) h = static_cast<std::int16_t>(nodes[i]);
      homes[i] = h;
    }
  }

  // Like move_pages(2): a page with no home (never touched) cannot move.
  move_outcome move(std::span<const std::uintptr_t> pages, std::span<const unsigned> nodes) override {
    move_outcome out;
    cursor c;
    for (std::size_t i = 0; i < pages.size(); ++i) {
      std::int16_t* h = find(c, pages[i]);
      if (h == nullptr || *h == unknown_home || nodes[i] >= nodes_) {
        ++out.failed;
      } else if (*h != static_cast<std::int16_t>(nodes[i])) {
        *h = static_cast<std::int16_t>(nodes[i]);
        ++out.moved;
      }
    }
    return out;
  }

 private:
  struct table {
    std::uint64_t serial = 0;
    std::uintptr_t end = 0;
    std::vector<std::int16_t> homes;  // per page of the region
  };
  // The region table of the previous lookup: pages come in ascending order,
  // so most lookups hit it without touching the registry.
  struct cursor {
    std::uintptr_t begin = 0, end = 0;
    table* t = nullptr;
  };

  // The home entry of `page`, or nullptr when it has none yet (a loose page
  // never touched). Region pages always have an entry (maybe unknown_home).
  std::int16_t* find(cursor& c, std::uintptr_t page) {
    if (table* t = region_table(c, page)) return &t->homes[(page - c.begin) / page_size_];
    auto it = loose_.find(page);
    return it == loose_.end() ? nullptr : &it->second;
  }
  std::int16_t& slot(cursor& c, std::uintptr_t page) {
    if (table* t = region_table(c, page)) return t->homes[(page - c.begin) / page_size_];
    return loose_.try_emplace(page, static_cast<std::int16_t>(unknown_home)).first->second;
  }

  table* region_table(cursor& c, std::uintptr_t page) {
    if (c.t && page >= c.begin && page < c.end) return c.t;
    const region* r = find_region(reinterpret_cast<const void*>(page));
    if (r == nullptr) return nullptr;
    const auto begin = reinterpret_cast<std::uintptr_t>(r->begin());
    table& t = regions_[begin];
    if (t.serial != r->serial()) {  // new, or a freed region's table at a reused address
      t.serial = r->serial();
      t.end = begin + r->pages() * r->page_size();
      t.homes.resize(r->pages());
      for (std::size_t p = 0; p < r->pages(); ++p) {
        const int n = r->node_of_page(p);
        t.homes[p] = static_cast<std::int16_t>(n >= 0 && static_cast<unsigned>(n) < nodes_ ? n : unknown_home);
      }
    }
    c = {begin, t.end, &t};
    return &t;
  }

  // Drops the tables of regions that were freed.
  void sweep() {
    if (regions_.size() < 2 * swept_size_ + 16) return;
    std::erase_if(regions_, [](const auto& kv) {
      const region* r = find_region(reinterpret_cast<const void*>(kv.first));
      return r == nullptr || r->serial() != kv.second.serial;
    });
    swept_size_ = regions_.size();
  }

  const unsigned nodes_;
  const std::size_t page_size_;
  std::map<std::uintptr_t, table> regions_;  // by region start address
  std::size_t swept_size_ = 0;
  std::unordered_map<std::uintptr_t, std::int16_t> loose_;
};

}  // namespace

std::unique_ptr<page_homes> make_simulated_page_homes(const topology& topo) {
  return std::make_unique<simulated_page_homes>(topo.numa_nodes());
}

}  // namespace cws::numa
