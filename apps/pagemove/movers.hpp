#pragma once
// What cws-pagemove measures: a memcpy between two nodes, and one page_mover
// moving a fresh array's pages to node 1 and back (mover_case). Every move is
// checked complete and every page's home queried after each round; the data
// is checked unchanged at the end.

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <cws/cws.hpp>

#include "common/timing.hpp"

namespace pagemove {

namespace numa = cws::numa;

inline constexpr std::size_t all_pages = 0;  // run length: the whole array is one run

struct setup {
  const cws::topology& topo;
  std::size_t bytes;
  unsigned runs;
};

inline std::uint64_t checksum(const std::uint64_t* p, std::size_t n) {
  std::uint64_t s = 0;
  for (std::size_t i = 0; i < n; ++i) s = s * 1099511628211ull + p[i];
  return s;
}

// Seconds per memcpy of `bytes` from a buffer on node 0 to one on node `to`.
inline cws_apps::samples time_memcpy(const setup& s, unsigned to) {
  auto src = numa::allocate<char>(s.bytes, numa::on_node(0), s.topo);
  auto dst = numa::allocate<char>(s.bytes, numa::on_node(to), s.topo);
  numa::prefault_zero(src);
  numa::prefault_zero(dst);
  std::memset(src.data(), 0x5a, s.bytes);
  cws_apps::samples out;
  for (unsigned r = 0; r <= s.runs; ++r) {  // run 0 is a warm-up
    double t = cws_apps::seconds_of([&] { std::memcpy(dst.data(), src.data(), s.bytes); });
    if (r > 0) out.add(t);
  }
  if (std::memcmp(src.data(), dst.data(), s.bytes) != 0) throw std::runtime_error("memcpy: copy differs");
  return out;
}

// One mover on its own fresh array: every other run of `run` pages (all
// pages for all_pages) goes to node 1 and back per round.
class mover_case {
 public:
  mover_case(const setup& s, numa::page_mover mover, std::size_t run)
      : a_(numa::allocate<std::uint64_t>(s.bytes / sizeof(std::uint64_t), numa::first_touch, s.topo)),
        homes_(numa::make_kernel_page_homes(s.topo, mover)) {
    numa::prefault_zero(a_);
    std::iota(a_.begin(), a_.end(), std::uint64_t{7});
    sum_ = checksum(a_.data(), a_.size());
    const std::size_t ps = homes_->page_size(), pages = a_.memory()->pages();
    all_.resize(pages);
    for (std::size_t p = 0; p < pages; ++p) {
      all_[p] = reinterpret_cast<std::uintptr_t>(a_.data()) + p * ps;
      if (run == all_pages || (p / run) % 2 == 0) chosen_.push_back(all_[p]);
    }
    to_one_.assign(chosen_.size(), 1);
    to_zero_.assign(chosen_.size(), 0);
    all_on_zero("after prefault");
  }

  std::size_t pages() const noexcept { return chosen_.size(); }
  const cws_apps::samples& seconds() const noexcept { return seconds_; }
  const cws_apps::samples& query_seconds() const noexcept { return query_s_; }

  // There and back (two samples when recording), then a query of every page.
  void round(bool record) {
    for (const auto* targets : {&to_one_, &to_zero_}) {
      numa::move_outcome m;
      double t = cws_apps::seconds_of([&] { m = homes_->move(chosen_, *targets); });
      if (m.moved != chosen_.size() || m.failed != 0)
        throw std::runtime_error(
            fmt::format("{}: moved {} of {} pages ({} failed)", homes_->name(), m.moved, chosen_.size(), m.failed));
      if (record) seconds_.add(t);
    }
    double q = all_on_zero("after moving there and back");
    if (record) query_s_.add(q);
  }

  void check_data() const {
    if (checksum(a_.data(), a_.size()) != sum_) throw std::runtime_error(homes_->name() + ": data changed");
  }

 private:
  double all_on_zero(const char* when) {
    homes_of_.resize(all_.size());
    double t = cws_apps::seconds_of([&] { homes_->query(all_, homes_of_); });
    for (std::size_t p = 0; p < all_.size(); ++p)
      if (homes_of_[p] != 0)
        throw std::runtime_error(fmt::format("page {} is on node {}, not 0, {}", p, homes_of_[p], when));
    return t;
  }

  numa::array<std::uint64_t> a_;
  std::unique_ptr<numa::page_homes> homes_;
  std::uint64_t sum_ = 0;
  std::vector<std::uintptr_t> all_, chosen_;
  std::vector<unsigned> to_one_, to_zero_;
  std::vector<int> homes_of_;
  cws_apps::samples seconds_, query_s_;
};

}  // namespace pagemove
