// The pure part of data locality (locality.hpp): from per-worker touched
// ranges to per-page, per-node byte counts, locality shares and move plans.

#include "cws/locality.hpp"

#include <algorithm>
#include <numeric>

namespace cws {

bool touch_map::empty() const noexcept {
  return std::all_of(per_worker.begin(), per_worker.end(), [](const auto& r) { return r.empty(); });
}

std::uint64_t touch_map::bytes() const noexcept {
  std::uint64_t sum = 0;
  for (const auto& ranges : per_worker)
    for (const byte_range& r : ranges) sum += r.bytes();
  return sum;
}

std::size_t touch_map::ranges() const noexcept {
  std::size_t sum = 0;
  for (const auto& ranges : per_worker) sum += ranges.size();
  return sum;
}

void coalesce(std::vector<byte_range>& ranges) {
  std::erase_if(ranges, [](const byte_range& r) { return r.end <= r.begin; });
  std::sort(ranges.begin(), ranges.end(), [](const byte_range& a, const byte_range& b) { return a.begin < b.begin; });
  std::size_t out = 0;
  for (const byte_range& r : ranges) {
    if (out > 0 && r.begin <= ranges[out - 1].end) {
      ranges[out - 1].end = std::max(ranges[out - 1].end, r.end);
    } else {
      ranges[out++] = r;
    }
  }
  ranges.resize(out);
}

std::uint64_t page_usage::total_of(std::size_t p) const noexcept {
  std::uint64_t sum = 0;
  for (unsigned n = 0; n < nodes; ++n) sum += bytes_of(p, n);
  return sum;
}

namespace {
struct node_range {
  byte_range range;
  unsigned node;
};
// A run of consecutive touched pages and the index of its first page in page_usage::pages.
struct page_run {
  std::uintptr_t first, last;  // page addresses, inclusive
  std::size_t index;
};
}  // namespace

page_usage usage_of(const touch_map& touches, std::span<const unsigned> node_of_worker, unsigned nodes,
                    std::size_t page_size) {
  page_usage u;
  u.page_size = page_size;
  u.nodes = nodes;
  const std::uintptr_t mask = ~(static_cast<std::uintptr_t>(page_size) - 1);

  std::vector<node_range> all;
  all.reserve(touches.ranges());
  for (std::size_t w = 0; w < touches.per_worker.size() && w < node_of_worker.size(); ++w)
    for (const byte_range& r : touches.per_worker[w])
      if (r.end > r.begin) all.push_back({r, node_of_worker[w]});
  std::sort(all.begin(), all.end(),
            [](const node_range& a, const node_range& b) { return a.range.begin < b.range.begin; });

  // Ranges sorted by begin give page runs sorted by first page: merge the
  // ones that overlap or touch into runs of consecutive pages.
  std::vector<page_run> runs;
  for (const node_range& r : all) {
    std::uintptr_t first = r.range.begin & mask, last = (r.range.end - 1) & mask;
    if (!runs.empty() && first <= runs.back().last + page_size) {
      runs.back().last = std::max(runs.back().last, last);
    } else {
      runs.push_back({first, last, 0});
    }
  }
  std::size_t count = 0;
  for (page_run& run : runs) {
    run.index = count;
    count += (run.last - run.first) / page_size + 1;
  }
  u.pages.reserve(count);
  for (const page_run& run : runs)
    for (std::uintptr_t p = run.first; p <= run.last; p += page_size) u.pages.push_back(p);
  u.bytes.assign(count * nodes, 0);

  for (const node_range& r : all) {
    std::uintptr_t page = r.range.begin & mask;
    auto run = std::upper_bound(runs.begin(), runs.end(), page,
                                [](std::uintptr_t p, const page_run& x) { return p < x.first; });
    std::size_t index = std::prev(run)->index + (page - std::prev(run)->first) / page_size;
    for (; page < r.range.end; page += page_size, ++index) {
      std::uintptr_t lo = std::max(page, r.range.begin), hi = std::min(page + page_size, r.range.end);
      u.bytes[index * nodes + r.node] += static_cast<std::uint32_t>(hi - lo);
    }
  }
  return u;
}

unsigned desired_node(const page_usage& u, std::size_t p, int home) noexcept {
  unsigned best = 0;
  for (unsigned n = 1; n < u.nodes; ++n)
    if (u.bytes_of(p, n) > u.bytes_of(p, best)) best = n;
  if (home >= 0 && static_cast<unsigned>(home) < u.nodes &&
      u.bytes_of(p, static_cast<unsigned>(home)) == u.bytes_of(p, best))
    return static_cast<unsigned>(home);
  return best;
}

double locality_report::share() const noexcept {
  return touched_bytes ? static_cast<double>(local_bytes) / static_cast<double>(touched_bytes) : 1.0;
}

locality_report measure_locality(const page_usage& u, std::span<const int> homes) {
  locality_report out;
  out.pages = u.pages.size();
  out.per_node.assign(u.nodes, {});
  for (std::size_t p = 0; p < u.pages.size(); ++p) {
    const int home = p < homes.size() ? homes[p] : unknown_home;
    for (unsigned n = 0; n < u.nodes; ++n) {
      const std::uint64_t b = u.bytes_of(p, n);
      out.per_node[n].touched_bytes += b;
      if (home == static_cast<int>(n)) out.per_node[n].local_bytes += b;
      if (home == unknown_home) out.unknown_bytes += b;
    }
  }
  for (const node_locality& n : out.per_node) {
    out.touched_bytes += n.touched_bytes;
    out.local_bytes += n.local_bytes;
  }
  return out;
}

std::vector<page_move> plan_relocation(const page_usage& u, std::span<const int> homes) {
  std::vector<page_move> moves;
  for (std::size_t p = 0; p < u.pages.size() && p < homes.size(); ++p) {
    if (homes[p] == unknown_home) continue;
    const unsigned want = desired_node(u, p, homes[p]);
    if (static_cast<int>(want) != homes[p]) moves.push_back({u.pages[p], homes[p], want});
  }
  return moves;
}

}  // namespace cws
