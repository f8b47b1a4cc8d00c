// Dynamic coarsening of a steal tree (see coarsen.hpp for the rules).
#include "cws/steal_tree/coarsen.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "cws/error.hpp"

namespace cws::steal_tree {

namespace {

[[noreturn]] void malformed(const std::string& what) { throw cws::error("coarsen: malformed steal tree: " + what); }

// Checks the structure coarsen relies on and returns the segments in
// pre-order (children in (level, step) order) with, per segment, its steal
// points sorted by (level, step).
struct shape {
  std::vector<std::uint32_t> preorder;
  std::vector<std::vector<steal_point>> sorted;  // per segment
};

shape explore(const tree& t) {
  const std::size_t n = t.segments.size();
  if (n > std::numeric_limits<std::uint32_t>::max() - 1) malformed("too many segments");
  if (t.segments[0].parent != no_parent)
    malformed(fmt::format("segments[0] must be the root segment (it has parent {})", t.segments[0].parent));
  shape s;
  s.sorted.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const segment& g = t.segments[i];
    if (g.worker >= t.workers)
      malformed(fmt::format("segment {} runs on worker {} ({} workers)", i, g.worker, t.workers));
    auto& list = s.sorted[i];
    list = g.steals;
    for (const steal_point& p : list) {
      if (p.child == 0 || p.child >= n)
        malformed(fmt::format("segment {}: steal at ({}, {}) names segment {} ({} segments)", i, p.level, p.step,
                              p.child, n));
      const segment& c = t.segments[p.child];
      if (c.parent != i || c.level != p.level || c.step != p.step || c.worker != p.thief)
        malformed(
            fmt::format("segment {}: steal at ({}, {}) by worker {} does not match segment {} (parent {}, "
                        "taken at ({}, {}) by worker {})",
                        i, p.level, p.step, p.thief, p.child, c.parent, c.level, c.step, c.worker));
    }
    std::sort(list.begin(), list.end(), [](const steal_point& a, const steal_point& b) {
      return a.level != b.level ? a.level < b.level : a.step < b.step;
    });
    for (std::size_t k = 1; k < list.size(); ++k)
      if (list[k].level == list[k - 1].level && list[k].step == list[k - 1].step)
        malformed(fmt::format("segment {}: two steals at ({}, {})", i, list[k].level, list[k].step));
  }
  // Depth-first from the root, children in (level, step) order.
  std::vector<std::uint8_t> seen(n, 0);
  std::vector<std::uint32_t> stack{0};
  s.preorder.reserve(n);
  while (!stack.empty()) {
    const std::uint32_t i = stack.back();
    stack.pop_back();
    if (seen[i]) malformed(fmt::format("segment {} is reached twice from the root", i));
    seen[i] = 1;
    s.preorder.push_back(i);
    const auto& list = s.sorted[i];
    for (auto it = list.rbegin(); it != list.rend(); ++it) stack.push_back(it->child);
  }
  if (s.preorder.size() != n)
    malformed(fmt::format("{} of {} segments are not reachable from the root through the steal lists",
                          n - s.preorder.size(), n));
  return s;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  return b > std::numeric_limits<std::uint64_t>::max() - a ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

}  // namespace

tree coarsen(const tree& t, const coarsen_options& options, coarsen_summary* summary) {
  if (options.workers && (*options.workers == 0 || *options.workers > t.workers))
    throw error(fmt::format("coarsen: cannot re-plan a tree of {} workers for {}", t.workers, *options.workers));
  coarsen_summary sum;
  const std::size_t n = t.segments.size();
  sum.segments_before = sum.segments_after = n;
  sum.steals_before = sum.steals_after = n == 0 ? 0 : n - 1;
  if (n == 0) {
    tree out = t;
    out.audit.clear();
    if (summary) *summary = sum;
    return out;
  }
  const shape s = explore(t);

  // Work and size of every stolen subtree (children come after their parent
  // in pre-order, so a reverse walk sees them first).
  std::vector<std::uint64_t> work(n, 0), size(n, 1);
  for (auto it = s.preorder.rbegin(); it != s.preorder.rend(); ++it) {
    const std::uint32_t i = *it;
    work[i] = t.segments[i].tasks;
    for (const steal_point& p : s.sorted[i]) {
      work[i] = saturating_add(work[i], work[p.child]);
      size[i] += size[p.child];
    }
  }

  // Decide top-down: a segment is kept when its parent is kept and keeps the
  // steal that started it.
  std::vector<std::uint8_t> keep(n, 0);
  std::vector<std::uint64_t> merged(n, 0);  // tasks of the subtrees dropped out of each kept segment
  std::vector<std::vector<steal_point>> kept_steals(n);
  keep[0] = 1;
  auto foreign = [&](const steal_point& p) { return options.workers && p.thief >= *options.workers; };
  auto too_deep = [&](const steal_point& p) { return options.max_level && p.level > *options.max_level; };
  auto too_small = [&](const steal_point& p) { return work[p.child] < options.min_tasks; };
  for (const std::uint32_t i : s.preorder) {
    if (!keep[i]) continue;
    const auto& list = s.sorted[i];
    std::uint32_t cut = std::numeric_limits<std::uint32_t>::max();  // smallest level of a steal the criteria drop
    bool any_cut = false;
    for (const steal_point& p : list)
      if (foreign(p) || too_deep(p) || too_small(p)) {
        cut = std::min(cut, p.level);
        any_cut = true;
      }
    for (const steal_point& p : list) {
      bool drop = true;
      if (foreign(p))
        ++sum.dropped_workers;
      else if (too_deep(p))
        ++sum.dropped_level;
      else if (too_small(p))
        ++sum.dropped_small;
      else if (any_cut && p.level > cut)
        ++sum.dropped_deeper;
      else
        drop = false;
      if (!drop) {
        keep[p.child] = 1;
        kept_steals[i].push_back(p);
        continue;
      }
      merged[i] = saturating_add(merged[i], work[p.child]);
      sum.dropped_inside += size[p.child] - 1;
    }
  }

  // Renumber: pre-order restricted to the kept segments (an ancestor-closed
  // set, so this is the pre-order of the pruned tree).
  constexpr std::uint32_t gone = no_parent;
  std::vector<std::uint32_t> index(n, gone);
  std::uint32_t next = 0;
  for (const std::uint32_t i : s.preorder)
    if (keep[i]) index[i] = next++;

  tree out;
  out.workers = options.workers.value_or(t.workers);
  out.segments.reserve(next);
  for (const std::uint32_t i : s.preorder) {
    if (!keep[i]) continue;
    segment g = t.segments[i];
    g.parent = g.parent == no_parent ? no_parent : index[g.parent];
    g.tasks = saturating_add(g.tasks, merged[i]);
    g.steals = std::move(kept_steals[i]);
    for (steal_point& p : g.steals) {
      p.child = index[p.child];
      // A kept steal keeps its pedigree: ranks do not depend on what else was stolen.
      const std::span<const std::uint32_t> path = path_of(t, p);
      p.path = path.empty() && p.level > 0 ? no_path : static_cast<std::uint32_t>(out.paths.size());
      out.paths.insert(out.paths.end(), path.begin(), path.end());
    }
    out.segments.push_back(std::move(g));
  }

  // Per worker: the input's list filtered and renumbered; segments the input
  // did not list (hand-built trees) go after the listed ones in pre-order,
  // then a stable sort by start time restores start order (a no-op for a
  // consistent input, whose lists are in start order already).
  out.worker_segments.assign(out.workers, {});
  std::vector<std::uint8_t> listed(n, 0);
  for (std::size_t w = 0; w < t.worker_segments.size() && w < out.workers; ++w)
    for (const std::uint32_t i : t.worker_segments[w]) {
      if (i >= n || t.segments[i].worker != w || listed[i]) continue;  // not a list of this worker's segments
      listed[i] = 1;
      if (keep[i]) out.worker_segments[w].push_back(index[i]);
    }
  for (const std::uint32_t i : s.preorder)
    if (keep[i] && !listed[i]) out.worker_segments[t.segments[i].worker].push_back(index[i]);
  for (auto& list : out.worker_segments)
    std::stable_sort(list.begin(), list.end(), [&](std::uint32_t a, std::uint32_t b) {
      return out.segments[a].start_ns < out.segments[b].start_ns;
    });

  sum.segments_after = next;
  sum.steals_after = next - 1;
  if (summary) *summary = sum;
  return out;
}

}  // namespace cws::steal_tree
