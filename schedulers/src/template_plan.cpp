#include "template_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace cws::schedulers::detail {

using steal_tree::no_parent;

std::string worker_count_error(const steal_tree::tree& t, unsigned workers) {
  if (t.workers == workers) return {};
  return fmt::format("recorded for {} workers, this runtime has {} (set CWS_WORKERS={} to replay it)", t.workers,
                     workers, t.workers);
}

std::string structural_error(const steal_tree::tree& t, std::vector<std::uint32_t>& claimed) {
  const unsigned workers = t.workers;
  const auto n = t.segments.size();
  if (n == 0) return "it has no segments";
  if (t.segments[0].parent != no_parent) return "segment #0 is not a root";
  claimed.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const steal_tree::segment& s = t.segments[i];
    if (s.worker >= workers) return fmt::format("segment #{} names worker {}", i, s.worker);
    for (std::size_t k = 0; k < s.steals.size(); ++k) {
      const steal_tree::steal_point& p = s.steals[k];
      if (p.child == 0 || p.child >= n)
        return fmt::format("segment #{}: steal {} points to segment #{}", i, k, p.child);
      if (p.level == 0) return fmt::format("segment #{}: steal {} at level 0", i, k);
      if (k > 0 && std::tie(s.steals[k - 1].level, s.steals[k - 1].step) >= std::tie(p.level, p.step))
        return fmt::format("segment #{}: steal points not sorted by (level, step)", i);
      const steal_tree::segment& c = t.segments[p.child];
      if (c.parent != i || c.level != p.level || c.step != p.step)
        return fmt::format("segment #{}: steal {} disagrees with segment #{}'s parent link", i, k, p.child);
      if (++claimed[p.child] > 1) return fmt::format("segment #{} is taken twice", p.child);
    }
  }
  for (std::size_t i = 1; i < n; ++i)
    if (claimed[i] != 1) return fmt::format("segment #{} is not reachable from the root", i);
  if (!t.worker_segments.empty() && t.worker_segments.size() != workers)
    return fmt::format("per-worker segment lists for {} workers", t.worker_segments.size());
  for (const auto& list : t.worker_segments)
    for (std::uint32_t s : list)
      if (s >= n) return fmt::format("a per-worker list names segment #{}", s);
  return {};
}

std::string consistency_error(const steal_tree::tree& t, std::vector<std::uint32_t>& seen) {
  if (t.segments[0].worker != 0)
    return fmt::format("the root segment is on worker {}, phases start on worker 0", t.segments[0].worker);
  for (std::size_t i = 0; i < t.segments.size(); ++i)
    for (const steal_tree::steal_point& p : t.segments[i].steals) {
      if (p.thief != t.segments[p.child].worker)
        return fmt::format("steal ({},{}) of segment #{} names thief {} but segment #{} ran on worker {}", p.level,
                           p.step, i, p.thief, p.child, t.segments[p.child].worker);
      if (p.thief == t.segments[i].worker)
        return fmt::format("worker {} takes ({},{}) from its own segment #{}", p.thief, p.level, p.step, i);
    }
  seen.assign(t.segments.size(), 0);
  for (std::size_t w = 0; w < t.worker_segments.size(); ++w)
    for (std::uint32_t s : t.worker_segments[w]) {
      if (t.segments[s].worker != w)
        return fmt::format("worker {}'s segment list holds segment #{} of worker {}", w, s, t.segments[s].worker);
      if (++seen[s] > 1) return fmt::format("segment #{} is listed twice", s);
    }
  if (!t.worker_segments.empty()) {
    for (std::size_t s = 0; s < seen.size(); ++s)
      if (seen[s] == 0) return fmt::format("segment #{} is missing from its worker's list", s);
    if (t.worker_segments[0].empty() || t.worker_segments[0][0] != 0)
      return "worker 0 does not start with the root segment";
  }
  return {};
}

std::shared_ptr<const template_plan> compile(std::shared_ptr<const steal_tree::tree> t) {
  auto plan = std::make_shared<template_plan>();
  compile_into(*plan, std::move(t));
  return plan;
}

void compile_into(template_plan& plan, std::shared_ptr<const steal_tree::tree> t) {
  const steal_tree::tree& tree = *t;
  // Only grows: shrinking would free the per-segment vectors a later, larger
  // template needs again.
  if (plan.level_begin.size() < tree.segments.size()) plan.level_begin.resize(tree.segments.size());
  for (std::size_t i = 0; i < tree.segments.size(); ++i) {
    const auto& steals = tree.segments[i].steals;
    const std::uint32_t levels = steals.empty() ? 0 : steals.back().level + 1;
    auto& begin = plan.level_begin[i];
    begin.assign(levels + 1, 0);
    // begin[l] = first steal with level >= l (steals are sorted by level).
    std::uint32_t k = 0;
    for (std::uint32_t l = 0; l <= levels; ++l) {
      while (k < steals.size() && steals[k].level < l) ++k;
      begin[l] = k;
    }
  }
  if (!tree.worker_segments.empty()) {
    plan.order.resize(tree.worker_segments.size());
    for (std::size_t w = 0; w < tree.worker_segments.size(); ++w)
      plan.order[w].assign(tree.worker_segments[w].begin(), tree.worker_segments[w].end());
  } else {  // hand-built trees may omit the lists: segment index order per worker
    plan.order.resize(tree.workers);
    for (auto& o : plan.order) o.clear();
    for (std::uint32_t i = 0; i < tree.segments.size(); ++i) plan.order[tree.segments[i].worker].push_back(i);
  }
  plan.tree = std::move(t);
}

}  // namespace cws::schedulers::detail
