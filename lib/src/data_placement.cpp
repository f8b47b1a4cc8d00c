#include "data_placement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <span>

#include "cws/error.hpp"
#include "cws/platform/page_homes_cache.hpp"
#include "cws/platform/region_generation.hpp"

namespace cws::detail {

namespace {
// The backend; `cache` points at the kernel backend's cache when that is the one.
std::unique_ptr<numa::page_homes> pick(const runtime_config& cfg, const cws::topology& topo, std::string& why,
                                       cached_page_homes*& cache) {
  const auto kernel = [&] {
    auto c = std::make_unique<cached_page_homes>(numa::make_kernel_page_homes(topo, cfg.page_mover));  // throws why not
    cache = c.get();
    return c;
  };
  switch (cfg.pages) {
    case page_backend::simulated:
      why = "CWS_PAGES=simulated";
      return numa::make_simulated_page_homes(topo);
    case page_backend::kernel:
      why = "CWS_PAGES=kernel";
      return kernel();
    case page_backend::automatic:
      break;
  }
  if (topo.is_synthetic()) {
    why = "synthetic topology";
    return numa::make_simulated_page_homes(topo);
  }
  try {
    why = "this machine";
    return kernel();
  } catch (const error& e) {
    why = fmt::format("kernel backend unavailable: {}", e.what());
    return numa::make_simulated_page_homes(topo);
  }
}
}  // namespace

data_placement::data_placement(const runtime_config& cfg, const cws::topology& topo,
                               const std::vector<worker_placement>& placement)
    : nodes_(topo.numa_nodes()) {
  std::string why;
  homes_ = std::make_unique<counted_page_homes>(pick(cfg, topo, why, kernel_cache_));
  description_ = fmt::format("{} ({})", homes_->name(), why);
  for (const worker_placement& p : placement) node_of_worker_.push_back(p.numa_node);
}

std::uint64_t data_placement::homes_epoch() const noexcept {
  // Both counts only grow, so their sum changes whenever either does.
  return homes_->changes() + region_generation();
}

page_usage data_placement::usage(const touch_map& touches) const {
  return usage_of(touches, node_of_worker_, nodes_, homes_->page_size());
}

namespace {
// The canonical per-node form of `touches` (locality_memo.hpp) into `out`.
// O(R log R) for R ranges; allocates only to grow the scratch vectors.
void node_coverage(const touch_map& touches, std::span<const unsigned> node_of_worker,
                   std::vector<coverage_event>& events, std::vector<coverage_run>& out) {
  events.clear();
  out.clear();
  for (std::size_t w = 0; w < touches.per_worker.size() && w < node_of_worker.size(); ++w)
    for (const byte_range& r : touches.per_worker[w]) {
      if (r.end <= r.begin) continue;
      events.push_back({node_of_worker[w], r.begin, +1});
      events.push_back({node_of_worker[w], r.end, -1});
    }
  std::sort(events.begin(), events.end(), [](const coverage_event& a, const coverage_event& b) {
    return a.node != b.node ? a.node < b.node : a.at < b.at;
  });
  std::uint32_t count = 0;
  std::uintptr_t from = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const coverage_event& e = events[i];
    if (i > 0 && events[i - 1].node != e.node) count = 0;  // (each node's events sum to 0 anyway)
    if (count > 0 && e.at > from) {
      if (!out.empty() && out.back().node == e.node && out.back().end == from && out.back().count == count)
        out.back().end = e.at;
      else
        out.push_back({from, e.at, count, e.node});
    }
    count = static_cast<std::uint32_t>(static_cast<int>(count) + e.delta);
    from = e.at;
  }
}
}  // namespace

std::uint64_t data_placement::measure(const touch_map& touches, locality_memo& memo,
                                      std::optional<locality_report>& out) {
  const std::uint64_t epoch = homes_epoch();
  node_coverage(touches, node_of_worker_, memo.events, memo.current);
  if (memo.valid && memo.homes_epoch == epoch && memo.reuses < refresh_runs && memo.current == memo.coverage) {
    ++memo.reuses;
    out = memo.report;  // into an engaged optional: the per-node vector keeps its capacity
    return 0;
  }
  const bool refresh = memo.valid && memo.reuses >= refresh_runs;
  memo.coverage.swap(memo.current);
  memo.valid = false;  // until the report below is made from it
  const page_usage u = usage(touches);
  std::vector<int> homes(u.pages.size(), unknown_home);
  if (refresh && kernel_cache_ != nullptr)
    kernel_cache_->requery(u.pages, homes);
  else
    homes_->query(u.pages, homes);
  std::vector<std::uintptr_t> fresh;
  std::vector<unsigned> toucher;
  std::vector<int> fresh_homes;
  for (std::size_t p = 0; p < u.pages.size(); ++p) {
    if (homes[p] != unknown_home) continue;
    fresh.push_back(u.pages[p]);
    toucher.push_back(desired_node(u, p, unknown_home));
  }
  if (!fresh.empty()) {
    fresh_homes.assign(fresh.size(), unknown_home);
    homes_->first_touch(fresh, toucher, fresh_homes);
    for (std::size_t p = 0, i = 0; p < u.pages.size(); ++p)
      if (homes[p] == unknown_home) homes[p] = fresh_homes[i++];
  }
  memo.report = measure_locality(u, homes);
  // A page without a home may get one without any move (the kernel places it
  // at its first write): such a report is made again next run.
  memo.valid = memo.report.unknown_bytes == 0;
  memo.homes_epoch = homes_epoch();  // after this run's own first-touch placements
  memo.reuses = 0;
  out = memo.report;
  return u.pages.size();
}

relocalization_report data_placement::relocalize(const touch_map& touches) {
  const auto t0 = std::chrono::steady_clock::now();
  const page_usage u = usage(touches);
  std::vector<int> homes(u.pages.size(), unknown_home);
  homes_->query(u.pages, homes);
  const std::vector<page_move> plan = plan_relocation(u, homes);
  std::vector<std::uintptr_t> pages;
  std::vector<unsigned> to;
  pages.reserve(plan.size());
  to.reserve(plan.size());
  for (const page_move& m : plan) {
    pages.push_back(m.page);
    to.push_back(m.to);
  }
  const numa::move_outcome moved = plan.empty() ? numa::move_outcome{} : homes_->move(pages, to);
  relocalization_report r;
  r.backend = homes_->name();
  r.pages_examined = u.pages.size();
  r.pages_moved = moved.moved;
  r.pages_failed = moved.failed;
  r.bytes_moved = moved.moved * homes_->page_size();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace cws::detail
