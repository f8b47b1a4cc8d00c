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
// Merges the sorted blocks [0, ends[0]), [ends[0], ends[1]), ... of `events`
// into one sequence sorted by address, pairwise: O(E log blocks).
void merge_blocks(std::vector<coverage_event>& events, std::vector<std::size_t>& ends,
                  std::vector<coverage_event>& scratch) {
  const auto by_address = [](const coverage_event& a, const coverage_event& b) { return a.at < b.at; };
  while (ends.size() > 1) {
    scratch.resize(events.size());
    std::size_t begin = 0, blocks = 0;
    for (std::size_t i = 0; i < ends.size(); i += 2) {
      const std::size_t mid = ends[i], end = i + 1 < ends.size() ? ends[i + 1] : mid;
      const coverage_event* from = events.data();
      std::merge(from + begin, from + mid, from + mid, from + end, scratch.data() + begin, by_address);
      ends[blocks++] = end;
      begin = end;
    }
    ends.resize(blocks);
    events.swap(scratch);
  }
}

// The coverage runs of one node from its events sorted by address, appended to `out`.
void sweep(unsigned node, const std::vector<coverage_event>& events, std::vector<coverage_run>& out) {
  std::uint32_t count = 0;
  std::uintptr_t from = 0;
  const std::size_t first = out.size();
  for (const coverage_event& e : events) {
    if (count > 0 && e.at > from) {
      if (out.size() > first && out.back().end == from && out.back().count == count)
        out.back().end = e.at;
      else
        out.push_back({from, e.at, count, node});
    }
    count = static_cast<std::uint32_t>(static_cast<int>(count) + e.delta);
    from = e.at;
  }
}
// Where a new report goes: an entry never made (or no longer valid), else the
// one used least recently.
locality_memo_entry& least_recently_used(locality_memo& memo) {
  return *std::min_element(memo.entries.begin(), memo.entries.end(),
                           [](const locality_memo_entry& a, const locality_memo_entry& b) {
                             return a.valid != b.valid ? !a.valid : a.used_at < b.used_at;
                           });
}
}  // namespace

void node_coverage(const touch_map& touches, std::span<const unsigned> node_of_worker, unsigned nodes,
                   locality_memo& m) {
  m.current.clear();
  const std::size_t workers = std::min(touches.per_worker.size(), node_of_worker.size());
  for (unsigned node = 0; node < nodes; ++node) {
    m.events.clear();
    m.block_ends.clear();
    for (std::size_t w = 0; w < workers; ++w) {
      if (node_of_worker[w] != node || touches.per_worker[w].empty()) continue;
      for (const byte_range& r : touches.per_worker[w]) {  // sorted and apart: its events are in address order
        m.events.push_back({node, r.begin, +1});
        m.events.push_back({node, r.end, -1});
      }
      m.block_ends.push_back(m.events.size());
    }
    merge_blocks(m.events, m.block_ends, m.merged);
    sweep(node, m.events, m.current);
  }
}

namespace {
// The report on a machine with one NUMA node, from the coverage alone: every
// page is on that node, so every declared byte is local, and the pages are
// counted from the runs (sorted by address) without asking where they are.
void one_node_report(const std::vector<coverage_run>& runs, std::size_t page_size, locality_report& out) {
  const std::uintptr_t mask = ~(static_cast<std::uintptr_t>(page_size) - 1);
  std::uint64_t bytes = 0, pages = 0;
  std::uintptr_t counted_to = 0;  // one past the last page counted
  for (const coverage_run& r : runs) {
    bytes += static_cast<std::uint64_t>(r.end - r.begin) * r.count;
    const std::uintptr_t first = std::max(r.begin & mask, counted_to), end = ((r.end - 1) & mask) + page_size;
    if (end > first) {
      pages += (end - first) / page_size;
      counted_to = end;
    }
  }
  out.pages = pages;
  out.touched_bytes = out.local_bytes = bytes;
  out.unknown_bytes = 0;
  out.per_node.resize(1);
  out.per_node[0].touched_bytes = out.per_node[0].local_bytes = bytes;
}
}  // namespace

std::uint64_t data_placement::measure(const touch_map& touches, locality_memo& memo,
                                      std::optional<locality_report>& out) {
  node_coverage(touches, node_of_worker_, nodes_, memo);
  if (nodes_ == 1) {  // no page home to ask, so no epoch to read either
    if (!out) out.emplace();
    one_node_report(memo.current, homes_->page_size(), *out);
    return 0;
  }
  const std::uint64_t epoch = homes_epoch();
  const std::uint64_t run = ++memo.runs;
  locality_memo_entry* same = nullptr;  // stale, made from these touches: made again in place
  for (locality_memo_entry& e : memo.entries) {
    if (!e.valid || e.coverage != memo.current) continue;
    if (e.homes_epoch == epoch && e.reuses < refresh_runs) {
      ++e.reuses;
      e.used_at = run;
      out = e.report;  // into an engaged optional: the per-node vector keeps its capacity
      return 0;
    }
    same = &e;
  }
  locality_memo_entry& slot = same != nullptr ? *same : least_recently_used(memo);
  const bool refresh = slot.valid && slot.reuses >= refresh_runs;
  slot.coverage.swap(memo.current);
  slot.valid = false;  // until the report below is made from it
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
  slot.report = measure_locality(u, homes);
  // A page without a home may get one without any move (the kernel places it
  // at its first write): such a report is made again next run.
  slot.valid = slot.report.unknown_bytes == 0;
  slot.homes_epoch = homes_epoch();  // after this run's own first-touch placements
  slot.reuses = 0;
  slot.used_at = run;
  out = slot.report;
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
