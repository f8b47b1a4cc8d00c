// The planner (see plan.hpp for what it builds and why the names are right).
//
// Everything works on tasks, i.e. audit records: the recorded spawn tree
// (parent links, depths, ranks), each task's planned segment (seg_of), and
// per planned segment its worker, root task and the recorded segment it was
// cut from. The tree is then written from scratch: names, pre-order,
// pedigrees, per-worker orders and (optionally) relabelled audit records.
#include "cws/steal_tree/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "cws/error.hpp"

namespace cws::steal_tree {

namespace {

constexpr std::uint32_t none = no_parent;

[[noreturn]] void fail(const std::string& what) { throw cws::error("plan: " + what); }

// ---------------------------------------------------------------- the recorded spawn tree

struct spawn_forest {
  std::uint32_t root = none;             // record of the phase root
  std::vector<std::uint32_t> depth;      // spawn depth, the phase root at 0
  std::vector<std::uint32_t> first;      // children of x: kids[first[x] .. first[x + 1]), in spawn order
  std::vector<std::uint32_t> kids;       //
  std::vector<std::uint32_t> rank;       // index among its parent's spawns
  std::vector<std::uint32_t> bfs;        // every record, parents before children
  std::vector<std::uint32_t> local;      // position among its recorded segment's tasks, in the order they ran
  std::vector<std::uint32_t> seg_root;   // per recorded segment: the record of its root task
  std::vector<std::uint32_t> seg_count;  // per recorded segment: its records
  std::span<const std::uint32_t> children(std::uint32_t x) const {
    return {kids.data() + first[x], first[x + 1] - first[x]};
  }
};

// Level of record `r` inside the segment that ran it (0 for a segment root).
std::uint32_t level_in_own_segment(const audit_record& r) {
  return r.parent == none || r.segment != r.spawn_segment ? 0 : r.level;
}

spawn_forest read_audit(const tree& t) {
  const std::vector<audit_record>& a = t.audit;
  const std::size_t segs = t.segments.size();
  if (segs == 0) fail("the tree has no segments");
  if (a.empty())
    fail("the recorded run has no audit records (record it in audit mode: CWS_AUDIT=1 or runtime_config::audit)");
  if (a.size() >= none || segs >= none) fail("too many audit records or segments");
  if (t.segments[0].parent != no_parent) fail("segments[0] is not the root segment");
  for (std::size_t s = 1; s < segs; ++s)
    if (t.segments[s].parent >= segs || t.segments[s].parent == s)
      fail(fmt::format("segment {} has parent {} ({} segments)", s, t.segments[s].parent, segs));
  const auto n = static_cast<std::uint32_t>(a.size());
  spawn_forest f;
  f.seg_root.assign(segs, none);
  f.seg_count.assign(segs, 0);
  f.local.resize(n);
  for (std::uint32_t k = 0; k < n; ++k) {
    const audit_record& r = a[k];
    if (r.segment >= segs)
      fail(fmt::format("audit record {}: segment {} out of range ({} segments)", k, r.segment, segs));
    f.local[k] = f.seg_count[r.segment]++;
    if (r.parent == none) {
      if (f.root != none)
        fail(fmt::format("audit records {} and {} both lack a parent (one phase root expected)", f.root, k));
      if (r.spawn_segment != none || r.segment != 0)
        fail(fmt::format("audit record {}: the phase root must run in segment 0", k));
      f.root = f.seg_root[0] = k;
      continue;
    }
    if (r.parent >= n) fail(fmt::format("audit record {}: parent {} out of range ({} records)", k, r.parent, n));
    if (r.spawn_segment >= segs)
      fail(fmt::format("audit record {}: spawning segment {} out of range ({} segments)", k, r.spawn_segment, segs));
    const audit_record& p = a[r.parent];
    if (p.segment != r.spawn_segment)
      fail(fmt::format("audit record {}: spawned in segment {} by record {}, which ran in segment {}", k,
                       r.spawn_segment, r.parent, p.segment));
    if (r.level != level_in_own_segment(p) + 1)
      fail(fmt::format("audit record {}: level {} but its parent (record {}) is at level {}", k, r.level, r.parent,
                       level_in_own_segment(p)));
    if (r.segment != r.spawn_segment) {  // the root task of segment r.segment
      if (f.seg_root[r.segment] != none)
        fail(fmt::format("segment {} has two root tasks (audit records {} and {})", r.segment, f.seg_root[r.segment],
                         k));
      f.seg_root[r.segment] = k;
      const segment& s = t.segments[r.segment];
      if (s.parent != r.spawn_segment || s.level != r.level || s.step != r.step)
        fail(
            fmt::format("audit record {} starts segment {} at ({}, {}) of segment {}, but the segment was taken at "
                        "({}, {}) of segment {}",
                        k, r.segment, r.level, r.step, r.spawn_segment, s.level, s.step, s.parent));
    } else if (f.local[r.parent] >= f.local[k]) {
      fail(
          fmt::format("audit record {} is listed before its parent (record {}) in segment {}", k, r.parent, r.segment));
    }
  }
  if (f.root == none) fail("no audit record of the phase root");
  for (std::size_t s = 0; s < segs; ++s) {
    if (f.seg_count[s] != t.segments[s].tasks)
      fail(
          fmt::format("segment {} ran {} tasks but has {} audit records (a replay with serial elision records none "
                      "for its elided calls: plan from a run without elision)",
                      s, t.segments[s].tasks, f.seg_count[s]));
    if (f.seg_root[s] == none) fail(fmt::format("segment {} has no audit record of its root task", s));
  }

  // Children in spawn order: one spawning segment and level, so by step.
  f.first.assign(n + 1, 0);
  for (std::uint32_t k = 0; k < n; ++k)
    if (a[k].parent != none) ++f.first[a[k].parent + 1];
  std::partial_sum(f.first.begin(), f.first.end(), f.first.begin());
  f.kids.resize(n);
  std::vector<std::uint32_t> fill(f.first.begin(), f.first.end() - 1);
  for (std::uint32_t k = 0; k < n; ++k)
    if (a[k].parent != none) f.kids[fill[a[k].parent]++] = k;
  f.rank.assign(n, 0);
  for (std::uint32_t x = 0; x < n; ++x) {
    auto b = f.kids.begin() + f.first[x], e = f.kids.begin() + f.first[x + 1];
    std::sort(b, e, [&](std::uint32_t u, std::uint32_t v) { return a[u].step < a[v].step; });
    for (auto it = b; it != e; ++it) {
      if (it != b && a[*it].step == a[*(it - 1)].step)
        fail(fmt::format("audit records {} and {} name the same task ({}, {}) of segment {}", *(it - 1), *it,
                         a[*it].level, a[*it].step, a[*it].spawn_segment));
      f.rank[*it] = static_cast<std::uint32_t>(it - b);
    }
  }
  // Depths, breadth first from the phase root: a record not reached hangs in a cycle.
  f.depth.assign(n, 0);
  f.bfs.reserve(n);
  f.bfs.push_back(f.root);
  for (std::size_t i = 0; i < f.bfs.size(); ++i)
    for (const std::uint32_t c : f.children(f.bfs[i])) {
      f.depth[c] = f.depth[f.bfs[i]] + 1;
      f.bfs.push_back(c);
    }
  if (f.bfs.size() != n)
    fail(fmt::format("{} audit records are not descendants of the phase root (their parent links form a cycle)",
                     n - f.bfs.size()));
  return f;
}

// ---------------------------------------------------------------- planned segments

struct planned_segment {
  std::uint32_t worker = 0;
  std::uint32_t root = none;    // record of its root task
  std::uint32_t origin = none;  // the recorded segment its tasks ran in
  std::uint64_t tasks = 0;
};

struct planning {
  const tree& t;
  const spawn_forest& f;
  std::uint32_t workers;
  std::vector<planned_segment> segs;
  std::vector<std::uint32_t> seg_of;  // per record: its planned segment

  std::vector<std::uint64_t> tasks_per_worker() const {
    std::vector<std::uint64_t> n(workers, 0);
    for (const planned_segment& s : segs) n[s.worker] += s.tasks;
    return n;
  }
};

// Chunk k of the serial order goes to order[k]: the root's worker first.
void split_serial(planning& p, const std::vector<std::uint32_t>& order) {
  const std::uint64_t n = p.f.bfs.size();
  std::vector<std::uint32_t> by_position(n);
  for (std::uint32_t x = 0; x < n; ++x) by_position[p.f.local[x]] = x;
  auto chunk = [&](std::uint32_t x) { return static_cast<std::uint32_t>(std::uint64_t{p.f.local[x]} * p.workers / n); };
  p.segs.assign(1, {p.t.segments[0].worker, p.f.root, 0, 0});
  p.seg_of.assign(n, 0);
  for (const std::uint32_t x : by_position) {
    const std::uint32_t parent = p.t.audit[x].parent;
    if (parent == none) continue;
    if (chunk(x) == chunk(parent)) {  // the parent ran earlier: its segment is known
      p.seg_of[x] = p.seg_of[parent];
    } else {  // a later chunk: x heads a subtree of it
      p.seg_of[x] = static_cast<std::uint32_t>(p.segs.size());
      p.segs.push_back({order[chunk(x)], x, 0, 0});
    }
  }
  for (std::uint32_t x = 0; x < n; ++x) ++p.segs[p.seg_of[x]].tasks;
}

// Tasks that move with x when x is carved out of its segment: x and its
// descendants reached without leaving that segment.
std::vector<std::uint64_t> carve_sizes(const planning& p) {
  std::vector<std::uint64_t> size(p.seg_of.size(), 1);
  for (auto it = p.f.bfs.rbegin(); it != p.f.bfs.rend(); ++it) {
    const std::uint32_t parent = p.t.audit[*it].parent;
    if (parent != none && p.seg_of[parent] == p.seg_of[*it]) size[parent] += size[*it];
  }
  return size;
}

// Calls visit(y) for x and every task that moves with it.
template <class Visit>
void for_moved(const planning& p, std::uint32_t x, std::vector<std::uint32_t>& stack, Visit visit) {
  const std::uint32_t seg = p.seg_of[x];
  stack.assign(1, x);
  while (!stack.empty()) {
    const std::uint32_t y = stack.back();
    stack.pop_back();
    visit(y);
    for (const std::uint32_t c : p.f.children(y))
      if (p.seg_of[c] == seg) stack.push_back(c);
  }
}

// Whether worker w may take x's subtree: no segment hanging below it is w's
// (w would take a segment out of its own).
bool may_take(const planning& p, std::uint32_t x, std::uint32_t w, std::vector<std::uint32_t>& stack) {
  bool ok = true;
  const std::uint32_t seg = p.seg_of[x];
  for_moved(p, x, stack, [&](std::uint32_t y) {
    for (const std::uint32_t c : p.f.children(y))
      if (p.seg_of[c] != seg && p.segs[p.seg_of[c]].worker == w) ok = false;
  });
  return ok;
}

void carve_out(planning& p, std::uint32_t x, std::uint32_t w, std::vector<std::uint32_t>& stack) {
  const std::uint32_t from = p.seg_of[x];
  const auto to = static_cast<std::uint32_t>(p.segs.size());
  p.segs.push_back({w, x, p.segs[from].origin, 0});
  std::uint64_t moved = 0;
  for_moved(p, x, stack, [&](std::uint32_t y) {
    p.seg_of[y] = to;
    ++moved;
  });
  p.segs[from].tasks -= moved;
  p.segs[to].tasks = moved;
}

// The first of `candidates` in `before` order that `takes` accepts, or none:
// the order a full sort would give, but sorted only as far as needed (the
// first candidate is usually taken; a full sort of a busy worker's tasks in
// every round was most of the planner's time). `before` must be a strict
// total order, so the result is the full sort's.
template <class Before, class Takes>
std::uint32_t first_taken(std::vector<std::uint32_t>& candidates, Before before, Takes takes) {
  std::size_t batch = 16;
  for (auto from = candidates.begin(); from != candidates.end();) {
    const auto to = from + static_cast<std::ptrdiff_t>(std::min<std::size_t>(batch, candidates.end() - from));
    std::partial_sort(from, to, candidates.end(), before);
    for (; from != to; ++from)
      if (takes(*from)) return *from;
    batch *= 2;
  }
  return none;
}

// Greedy carving: from a busiest worker to an idle one, else to the nearest
// light one (below 1/P), the subtree whose size best fits what both need.
// Each carve strictly lowers the sum of squared loads, so it ends.
void carve(planning& p, const std::vector<std::uint32_t>& position, double tolerance) {
  p.segs.clear();
  for (std::uint32_t s = 0; s < p.t.segments.size(); ++s)
    p.segs.push_back({p.t.segments[s].worker, p.f.seg_root[s], s, p.t.segments[s].tasks});
  p.seg_of.resize(p.t.audit.size());
  for (std::uint32_t x = 0; x < p.seg_of.size(); ++x) p.seg_of[x] = p.t.audit[x].segment;
  std::vector<std::uint32_t> stack, candidates;
  for (std::size_t round = 0; round < p.seg_of.size(); ++round) {
    const std::vector<std::uint64_t> load = p.tasks_per_worker();
    const balance b = balance_of(load);
    if (is_balanced(b, tolerance)) return;
    // Whole tasks: nobody can hold less than ceil(total / P) at the top, so a
    // tree already there only gains steals by going on.
    const std::uint64_t most = *std::max_element(load.begin(), load.end());
    if (b.idle_workers == 0 && most <= (b.total + p.workers - 1) / p.workers) return;
    const double fair = static_cast<double>(b.total) / p.workers;
    std::vector<std::uint32_t> busy, light;
    for (std::uint32_t w = 0; w < p.workers; ++w) {
      if (static_cast<double>(load[w]) > fair) busy.push_back(w);
      if (static_cast<double>(load[w]) < fair) light.push_back(w);
    }
    std::stable_sort(busy.begin(), busy.end(), [&](auto u, auto v) { return load[u] > load[v]; });
    const std::vector<std::uint64_t> size = carve_sizes(p);
    bool carved = false;
    for (const std::uint32_t from : busy) {
      auto distance = [&](std::uint32_t w) {
        return position[w] > position[from] ? position[w] - position[from] : position[from] - position[w];
      };
      std::vector<std::uint32_t> to = light;
      std::sort(to.begin(), to.end(), [&](auto u, auto v) {
        return std::tuple(load[u] != 0, distance(u), load[u], u) < std::tuple(load[v] != 0, distance(v), load[v], v);
      });
      for (const std::uint32_t w : to) {
        if (load[from] <= load[w] + 1) continue;
        const std::uint64_t limit = load[from] - load[w] - 1;  // moving more would not lower the sum of squares
        const double want = std::min(static_cast<double>(load[from]) - fair, fair - static_cast<double>(load[w]));
        candidates.clear();
        for (std::uint32_t x = 0; x < p.seg_of.size(); ++x) {
          const planned_segment& s = p.segs[p.seg_of[x]];
          if (s.worker == from && s.root != x && size[x] <= limit) candidates.push_back(x);
        }
        auto miss = [&](std::uint32_t x) { return std::abs(static_cast<double>(size[x]) - want); };
        const std::uint32_t x = first_taken(candidates, [&](auto u, auto v) {
          return std::tuple(miss(u), p.f.depth[u], u) < std::tuple(miss(v), p.f.depth[v], v);
        }, [&](std::uint32_t y) { return may_take(p, y, w, stack); });
        if (x != none) {
          carve_out(p, x, w, stack);
          carved = true;
          break;
        }
      }
      if (carved) break;
    }
    if (!carved) return;
  }
}

// ---------------------------------------------------------------- writing the tree

[[noreturn]] void fail_two_origins() {  // cannot happen: one origin per planned segment
  fail("internal error: tasks of two recorded segments named in one planned segment");
}

// Planned names (see plan.hpp): step[x] = rank of x among the tasks its
// planned segment spawned[x] spawns at level[x], by recorded step. Sorts
// every spawned task by (planned segment, level, recorded step).
void name_by_sorting(const planning& p, const std::vector<std::uint32_t>& level,
                     const std::vector<std::uint32_t>& spawned_in, std::vector<std::uint32_t>& step) {
  const std::vector<audit_record>& a = p.t.audit;
  std::vector<std::uint32_t> named;
  named.reserve(a.size());
  for (std::uint32_t x = 0; x < a.size(); ++x)
    if (a[x].parent != none) named.push_back(x);
  std::sort(named.begin(), named.end(), [&](auto u, auto v) {
    return std::tuple(spawned_in[u], level[u], a[u].step) < std::tuple(spawned_in[v], level[v], a[v].step);
  });
  for (std::size_t i = 0; i < named.size(); ++i) {
    const std::uint32_t x = named[i];
    if (i == 0 || spawned_in[named[i - 1]] != spawned_in[x] || level[named[i - 1]] != level[x]) {
      step[x] = 0;
    } else {
      if (a[named[i - 1]].spawn_segment != a[x].spawn_segment) fail_two_origins();
      step[x] = step[named[i - 1]] + 1;
    }
  }
}

// The same names without sorting, in O(tasks): the tasks a planned segment
// spawns at one level were all spawned in one recorded segment at one level,
// where tasks got their steps in spawn order; and in a recorded run, the
// tasks at one level of a segment run one after the other (each spawning its
// children before the next starts), so visiting every record in the order
// its segment ran them, and its children by step, meets each group in
// recorded-step order: ranks are counters. Returns false, leaving the work to
// name_by_sorting, if some group is not met in increasing step order (a
// recording that does not follow that rule).
bool name_in_spawn_order(const planning& p, const std::vector<std::uint32_t>& level,
                         const std::vector<std::uint32_t>& spawned_in, std::vector<std::uint32_t>& step) {
  const std::vector<audit_record>& a = p.t.audit;
  const auto n = static_cast<std::uint32_t>(a.size());
  const std::size_t k = p.segs.size();
  // One counter per (planned segment, level): slot offset[s] + level.
  std::vector<std::uint32_t> offset(k + 1, 0);
  for (std::uint32_t x = 0; x < n; ++x)
    if (a[x].parent != none) offset[spawned_in[x] + 1] = std::max(offset[spawned_in[x] + 1], level[x] + 1);
  std::partial_sum(offset.begin(), offset.end(), offset.begin());
  std::vector<std::uint32_t> count(offset[k], 0), origin(offset[k], none), last(offset[k], 0);
  for (std::uint32_t y = 0; y < n; ++y)  // the records of a recorded segment are in the order it ran them
    for (const std::uint32_t c : p.f.children(y)) {
      const std::uint32_t slot = offset[spawned_in[c]] + level[c];
      if (origin[slot] == none) {
        origin[slot] = a[c].spawn_segment;
      } else if (origin[slot] != a[c].spawn_segment) {
        fail_two_origins();
      } else if (a[c].step <= last[slot]) {
        return false;
      }
      last[slot] = a[c].step;
      step[c] = count[slot]++;
    }
  return true;
}

tree write_plan(const planning& p, bool keep_audit) {
  const tree& t = p.t;
  const spawn_forest& f = p.f;
  const std::vector<audit_record>& a = t.audit;
  const auto n = static_cast<std::uint32_t>(a.size());
  const auto k = static_cast<std::uint32_t>(p.segs.size());

  // Names: level relative to the spawning planned segment's root; step = rank
  // among that segment's spawns at that level, by recorded step.
  std::vector<std::uint32_t> level(n, 0), step(n, 0), spawned_in(n, none);
  for (std::uint32_t x = 0; x < n; ++x) {
    if (a[x].parent == none) continue;
    spawned_in[x] = p.seg_of[a[x].parent];
    level[x] = f.depth[x] - f.depth[p.segs[spawned_in[x]].root];
  }
  if (!name_in_spawn_order(p, level, spawned_in, step)) name_by_sorting(p, level, spawned_in, step);

  // Planned segment tree and its pre-order (children by (level, step)).
  std::vector<std::uint32_t> parent(k, none), first(k + 1, 0), kids;
  for (std::uint32_t s = 0; s < k; ++s)
    if (p.segs[s].root != f.root) {
      parent[s] = spawned_in[p.segs[s].root];
      ++first[parent[s] + 1];
    }
  std::partial_sum(first.begin(), first.end(), first.begin());
  kids.resize(first[k]);
  {
    std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
    for (std::uint32_t s = 0; s < k; ++s)
      if (parent[s] != none) kids[fill[parent[s]]++] = s;
  }
  auto key = [&](std::uint32_t s) { return std::pair(level[p.segs[s].root], step[p.segs[s].root]); };
  for (std::uint32_t s = 0; s < k; ++s)
    std::sort(kids.begin() + first[s], kids.begin() + first[s + 1], [&](auto u, auto v) { return key(u) < key(v); });
  std::vector<std::uint32_t> preorder, index_of(k, none), stack{p.seg_of[f.root]};
  while (!stack.empty()) {
    const std::uint32_t s = stack.back();
    stack.pop_back();
    index_of[s] = static_cast<std::uint32_t>(preorder.size());
    preorder.push_back(s);
    for (std::uint32_t i = first[s + 1]; i-- > first[s];) stack.push_back(kids[i]);
  }

  // Time estimates: the recorded segment's span split by task positions.
  std::vector<std::uint32_t> last(k, 0);
  for (std::uint32_t x = 0; x < n; ++x) last[p.seg_of[x]] = std::max(last[p.seg_of[x]], f.local[x]);
  auto estimate = [&](std::uint32_t origin, std::uint64_t position) {
    const segment& o = t.segments[origin];
    const double share = static_cast<double>(position) / static_cast<double>(f.seg_count[origin]);
    const std::uint64_t span = o.end_ns > o.start_ns ? o.end_ns - o.start_ns : 0;
    return o.start_ns + static_cast<std::uint64_t>(static_cast<double>(span) * share);
  };

  tree out;
  out.workers = p.workers;
  out.segments.resize(k);
  for (std::uint32_t s = 0; s < k; ++s) {
    const planned_segment& from = p.segs[s];
    segment& g = out.segments[index_of[s]];
    g.worker = from.worker;
    g.parent = parent[s] == none ? no_parent : index_of[parent[s]];
    g.level = parent[s] == none ? 0 : level[from.root];
    g.step = parent[s] == none ? 0 : step[from.root];
    g.start_ns = estimate(from.origin, f.local[from.root]);
    g.end_ns = std::max(g.start_ns, estimate(from.origin, std::uint64_t{last[s]} + 1));
    g.tasks = from.tasks;
  }
  std::vector<std::uint32_t> ranks;
  for (const std::uint32_t s : preorder) {
    segment& g = out.segments[index_of[s]];
    for (std::uint32_t i = first[s]; i < first[s + 1]; ++i) {
      const std::uint32_t c = kids[i];
      const std::uint32_t r = p.segs[c].root;
      ranks.clear();
      for (std::uint32_t x = r, d = 0; d < level[r]; ++d, x = a[x].parent) ranks.push_back(f.rank[x]);
      const auto path = static_cast<std::uint32_t>(out.paths.size());
      out.paths.insert(out.paths.end(), ranks.rbegin(), ranks.rend());
      g.steals.push_back({level[r], step[r], p.segs[c].worker, index_of[c], path});
    }
  }

  // Per worker, by estimated start; ties in the order the recorded segment ran them.
  std::vector<std::uint32_t> by_start(k);
  std::iota(by_start.begin(), by_start.end(), 0u);
  std::sort(by_start.begin(), by_start.end(), [&](auto u, auto v) {
    const segment& x = out.segments[index_of[u]];
    const segment& y = out.segments[index_of[v]];
    return std::tuple(x.start_ns, f.local[p.segs[u].root], index_of[u]) <
           std::tuple(y.start_ns, f.local[p.segs[v].root], index_of[v]);
  });
  out.worker_segments.assign(p.workers, {});
  std::vector<std::uint32_t> turn(k, 0);  // position in its worker's list
  for (const std::uint32_t s : by_start) {
    turn[s] = static_cast<std::uint32_t>(out.worker_segments[p.segs[s].worker].size());
    out.worker_segments[p.segs[s].worker].push_back(index_of[s]);
  }

  // The estimates ordered the workers' lists; they are no record of how the
  // segments nested in time, and a strict replay reads nesting off the
  // stamps (a worker waiting in a sync starts there only what the template
  // ran there). A planned tree claims nothing: its stamps are zero.
  for (segment& g : out.segments) g.start_ns = g.end_ns = 0;

  if (keep_audit) {  // grouped by worker, then by segment start, then local order
    std::vector<std::uint32_t> order(n), new_index(n);
    std::iota(order.begin(), order.end(), 0u);
    auto where = [&](std::uint32_t x) { return std::tuple(p.segs[p.seg_of[x]].worker, turn[p.seg_of[x]], f.local[x]); };
    std::sort(order.begin(), order.end(), [&](auto u, auto v) { return where(u) < where(v); });
    for (std::uint32_t i = 0; i < n; ++i) new_index[order[i]] = i;
    out.audit.resize(n);
    for (const std::uint32_t x : order) {
      audit_record& r = out.audit[new_index[x]];
      r.segment = index_of[p.seg_of[x]];
      r.worker = p.segs[p.seg_of[x]].worker;
      r.spawn_segment = spawned_in[x] == none ? no_parent : index_of[spawned_in[x]];
      r.level = level[x];
      r.step = step[x];
      r.parent = a[x].parent == none ? no_parent : new_index[a[x].parent];
    }
  }
  return out;
}

std::vector<std::uint32_t> checked_order(const plan_options& o, std::uint32_t workers) {
  if (o.worker_order.empty()) {
    std::vector<std::uint32_t> order(workers);
    std::iota(order.begin(), order.end(), 0u);
    return order;
  }
  std::vector<std::uint8_t> seen(workers, 0);
  bool ok = o.worker_order.size() == workers;
  for (const std::uint32_t w : o.worker_order) ok = ok && w < workers && !seen[w]++;
  if (!ok)
    fail(fmt::format("worker_order must list each of the {} workers once (it has {} {})", workers,
                     o.worker_order.size(), o.worker_order.size() == 1 ? "entry" : "entries"));
  return o.worker_order;
}

}  // namespace

std::string_view to_string(plan_method m) noexcept { return m == plan_method::split_serial ? "split_serial" : "carve"; }

tree plan(const tree& recorded, const plan_options& options, plan_summary* summary) {
  const std::uint32_t workers = options.workers != 0 ? options.workers : recorded.workers;
  if (workers == 0) fail("the tree has 0 workers");
  if (!(options.tolerance >= 1.0))
    fail(fmt::format("tolerance {} is below 1 (1 is a perfect balance)", options.tolerance));
  const std::vector<std::uint32_t> order = checked_order(options, workers);
  const spawn_forest f = read_audit(recorded);
  const bool serial = recorded.segments.size() == 1;
  for (std::size_t s = 0; s < recorded.segments.size(); ++s)
    if (recorded.segments[s].worker >= workers)
      fail(fmt::format("segment {} ran on worker {}: a plan for {} workers needs a serial (one-segment) recording", s,
                       recorded.segments[s].worker, workers));

  planning p{recorded, f, workers, {}, {}};
  if (serial) {
    std::vector<std::uint32_t> chunk_owner{recorded.segments[0].worker};
    for (const std::uint32_t w : order)
      if (w != chunk_owner[0]) chunk_owner.push_back(w);
    split_serial(p, chunk_owner);
  } else {
    std::vector<std::uint32_t> position(workers);
    for (std::uint32_t i = 0; i < workers; ++i) position[order[i]] = i;
    carve(p, position, options.tolerance);
  }
  tree out = write_plan(p, options.keep_audit);
  if (summary != nullptr) {
    std::vector<std::uint64_t> before(workers, 0);
    for (const segment& s : recorded.segments) before[s.worker] += s.tasks;
    summary->method = serial ? plan_method::split_serial : plan_method::carve;
    summary->steals_before = recorded.segments.size() - 1;
    summary->steals_after = out.segments.size() - 1;
    summary->before = balance_of(std::move(before));
    summary->after = balance_of(out);
    summary->balanced = is_balanced(summary->after, options.tolerance);
  }
  return out;
}

}  // namespace cws::steal_tree
