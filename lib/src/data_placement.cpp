#include "data_placement.hpp"

#include <fmt/format.h>

#include <chrono>

#include "cws/error.hpp"
#include "page_homes_cache.hpp"

namespace cws::detail {

namespace {
std::unique_ptr<numa::page_homes> pick(const runtime_config& cfg, const cws::topology& topo, std::string& why) {
  switch (cfg.pages) {
    case page_backend::simulated:
      why = "CWS_PAGES=simulated";
      return numa::make_simulated_page_homes(topo);
    case page_backend::kernel:
      why = "CWS_PAGES=kernel";
      return std::make_unique<cached_page_homes>(numa::make_kernel_page_homes(topo, cfg.page_mover));  // throws why not
    case page_backend::automatic:
      break;
  }
  if (topo.is_synthetic()) {
    why = "synthetic topology";
    return numa::make_simulated_page_homes(topo);
  }
  try {
    why = "this machine";
    return std::make_unique<cached_page_homes>(numa::make_kernel_page_homes(topo, cfg.page_mover));
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
  homes_ = pick(cfg, topo, why);
  description_ = fmt::format("{} ({})", homes_->name(), why);
  for (const worker_placement& p : placement) node_of_worker_.push_back(p.numa_node);
}

page_usage data_placement::usage(const touch_map& touches) const {
  return usage_of(touches, node_of_worker_, nodes_, homes_->page_size());
}

locality_report data_placement::measure(const touch_map& touches) {
  const page_usage u = usage(touches);
  std::vector<int> homes(u.pages.size(), unknown_home);
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
  return measure_locality(u, homes);
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
