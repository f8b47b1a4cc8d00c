#include "template_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>
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

void build_elision(template_plan& plan, const steal_tree::tree& tree);

// Whether every worker's segments, in start order, are laminar in time: each
// one either starts after the enclosing ones ended or ends inside them (a
// worker's open segments form a stack). Needs some stamp to be set.
bool nests_in_time(const steal_tree::tree& t, const std::vector<std::vector<std::uint32_t>>& order,
                   std::vector<std::uint32_t>& open) {
  bool stamped = false;
  for (const auto& list : order) {
    open.clear();
    for (std::uint32_t s : list) {
      const steal_tree::segment& g = t.segments[s];
      if (g.end_ns < g.start_ns) return false;
      stamped = stamped || g.end_ns > 0;
      while (!open.empty() && t.segments[open.back()].end_ns <= g.start_ns) open.pop_back();
      if (!open.empty() && g.end_ns > t.segments[open.back()].end_ns) return false;  // overlaps, not nested
      open.push_back(s);
    }
  }
  return stamped;
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
  plan.nesting_known = nests_in_time(tree, plan.order, plan.scratch_stack);
  build_elision(plan, tree);
  plan.tree = std::move(t);
}

// Per segment: the trie of its steals' pedigrees in depth-first order. The
// pedigrees sorted lexicographically share prefixes with their predecessor,
// so each one adds nodes only below the common prefix; a node's children are
// then created in increasing rank order and linked as siblings. A segment
// where a pedigree is missing, repeats, or runs through a designated task
// (its descendants would belong to the thief's segment) gets no trie.
void build_elision(template_plan& plan, const steal_tree::tree& tree) {
  plan.elision.clear();
  plan.elision_begin.clear();
  if (tree.paths.empty() && std::any_of(tree.segments.begin(), tree.segments.end(),
                                        [](const steal_tree::segment& s) { return !s.steals.empty(); }))
    return;
  std::vector<std::uint32_t>& order = plan.scratch_order;
  std::vector<std::uint32_t>& stack = plan.scratch_stack;
  std::vector<std::uint32_t>& last_child = plan.scratch_last;
  for (const steal_tree::segment& s : tree.segments) {
    plan.elision_begin.push_back(static_cast<std::uint32_t>(plan.elision.size()));
    const auto base = static_cast<std::uint32_t>(plan.elision.size());
    bool ok = true;
    for (const steal_tree::steal_point& p : s.steals) ok = ok && p.level > 0 && !path_of(tree, p).empty();
    if (!ok) continue;
    order.resize(s.steals.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      const auto pa = path_of(tree, s.steals[a]), pb = path_of(tree, s.steals[b]);
      return std::lexicographical_compare(pa.begin(), pa.end(), pb.begin(), pb.end());
    });
    plan.elision.push_back(elision_node{});  // the segment's root task
    stack.assign(1, base);                   // stack[d]: node of the current path at depth d
    last_child.assign(1, elision_node::none);
    std::span<const std::uint32_t> previous;
    for (std::uint32_t i : order) {
      const steal_tree::steal_point& p = s.steals[i];
      const std::span<const std::uint32_t> path = path_of(tree, p);
      std::size_t common = 0;
      while (common < previous.size() && common < path.size() && previous[common] == path[common]) ++common;
      if (common == path.size() || (common == previous.size() && !previous.empty())) {
        ok = false;  // a repeated pedigree, or one through a designated task
        break;
      }
      stack.resize(common + 1);
      last_child.resize(common + 1);
      for (std::size_t d = common; d < path.size(); ++d) {
        const auto node = static_cast<std::uint32_t>(plan.elision.size());
        plan.elision.push_back(elision_node{path[d], elision_node::none, elision_node::none, elision_node::none});
        const std::uint32_t parent = stack[d];
        if (last_child[d] == elision_node::none)
          plan.elision[parent].first_child = node;
        else
          plan.elision[last_child[d]].next_sibling = node;
        last_child[d] = node;
        stack.push_back(node);
        last_child.push_back(elision_node::none);
      }
      plan.elision.back().step = p.step;
      previous = path;
    }
    if (!ok) {
      plan.elision.resize(base);
      continue;
    }
    // Children links are indices into the whole vector; make them relative to the segment's span.
    for (std::uint32_t k = base; k < plan.elision.size(); ++k) {
      elision_node& n = plan.elision[k];
      if (n.first_child != elision_node::none) n.first_child -= base;
      if (n.next_sibling != elision_node::none) n.next_sibling -= base;
    }
  }
  plan.elision_begin.push_back(static_cast<std::uint32_t>(plan.elision.size()));
}

}  // namespace cws::schedulers::detail
