#pragma once
// A model of how the runtime names tasks and follows a template, for the
// planner's tests: a program is a spawn tree whose tasks spawn their children
// batch by batch, each batch followed by a sync (the deque pops the batch
// newest first). simulate() runs it as the runtime would replay `templ`
// (strictly: every designated (level, step) goes to its thief, nothing else
// moves) and records the tree as the recorder does, audit records included:
//   * per segment, one step counter per level; a spawn at level L takes the
//     next step of counter L of the segment that runs its parent;
//   * a spawn that the template names (in the spawning segment's template
//     segment) starts a new segment on the thief, replaying that steal's
//     child; anything else runs locally, after its batch was spawned;
//   * segments in pre-order (children by (level, step)), the audit grouped
//     by worker, pedigrees from each task's rank among its parent's spawns.
// The same rules as DESIGN §3, written independently of the planner, so a
// plan that simulates back to itself names its steals right.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "cws/steal_tree/tree.hpp"
#include "support/steal_tree_builders.hpp"

namespace cws::test {

namespace st = cws::steal_tree;

struct program {
  // node -> its batches -> children (node ids); node 0 is the phase root.
  std::vector<std::vector<std::vector<std::uint32_t>>> batches{{}};
  std::vector<std::uint32_t> parent{st::no_parent};
  std::vector<std::uint32_t> rank{0};  // index among the parent's spawns

  // A new child of `p` in its last batch (a new batch when `new_batch`).
  std::uint32_t spawn(std::uint32_t p, bool new_batch = false) {
    const auto id = static_cast<std::uint32_t>(batches.size());
    if (batches[p].empty() || new_batch) batches[p].emplace_back();
    std::uint32_t r = 0;
    for (const auto& b : batches[p]) r += static_cast<std::uint32_t>(b.size());
    batches[p].back().push_back(id);
    batches.emplace_back();
    parent.push_back(p);
    rank.push_back(r);
    return id;
  }
  std::uint32_t size() const { return static_cast<std::uint32_t>(batches.size()); }
};

// fib(n) as cws::test::fib writes it: spawn fib(n-1), call fib(n-2) (whose
// spawns are the same task's), one sync at the innermost call.
inline void fib_into(program& p, std::uint32_t node, unsigned n) {
  for (; n >= 2; n -= 2) fib_into(p, p.spawn(node), n - 1);
}
inline program fib_program(unsigned n) {
  program p;
  fib_into(p, 0, n);
  return p;
}

// cws::parallel_for_range(lo, hi, body, 1): a task spawns the left halves
// and runs the last index itself. leaf[node] = the index its body runs.
inline void bisect_into(program& p, std::vector<std::uint32_t>& leaf, std::uint32_t node, std::uint32_t lo,
                        std::uint32_t hi) {
  while (hi - lo > 1) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    const std::uint32_t child = p.spawn(node);
    leaf.resize(p.size());
    bisect_into(p, leaf, child, lo, mid);
    lo = mid;
  }
  leaf.resize(p.size());
  leaf[node] = lo;
}

// An irregular tree: random fan-out and batches, depth up to `depth`.
inline program random_program(unsigned seed, unsigned depth, unsigned max_kids) {
  program p;
  std::mt19937 rng(seed);
  std::vector<std::pair<std::uint32_t, unsigned>> todo{{0, 0}};
  while (!todo.empty()) {
    const auto [node, d] = todo.back();
    todo.pop_back();
    if (d == depth) continue;
    const unsigned kids = d == 0 ? max_kids : rng() % (max_kids + 1);  // the root always spawns
    for (unsigned k = 0; k < kids; ++k) todo.push_back({p.spawn(node, rng() % 3 == 0), d + 1});
  }
  return p;
}

struct simulation {
  st::tree tree;                            // as recorded (recorder layout, audit on)
  std::vector<std::uint32_t> worker;        // per program node: who ran it
  std::vector<std::uint32_t> segment_root;  // per segment of `tree`: its root node
};

inline simulation simulate(const program& prog, const st::tree& templ) {
  struct seg {
    std::uint32_t templ, worker, parent, level, step, root;
    std::uint32_t spawner = st::no_parent;  // record of the task that spawned its root
    std::uint64_t tasks = 0;
    std::vector<std::uint32_t> path;  // ranks below the parent segment's root
  };
  struct record {
    std::uint32_t node, seg, spawn_seg, level, step, parent;
  };
  std::vector<seg> segs{{0, templ.segments.at(0).worker, st::no_parent, 0, 0, 0, st::no_parent, 0, {}}};
  std::vector<record> recs;
  std::vector<std::uint32_t> pending{0};
  std::vector<std::uint32_t> depth(prog.size(), 0);
  for (std::uint32_t v = 1; v < prog.size(); ++v) depth[v] = depth[prog.parent[v]] + 1;
  simulation out;
  out.worker.assign(prog.size(), st::no_parent);

  for (std::size_t next = 0; next < pending.size(); ++next) {
    const std::uint32_t si = pending[next];
    std::map<std::pair<std::uint32_t, std::uint32_t>, const st::steal_point*> designated;
    for (const st::steal_point& p : templ.segments.at(segs[si].templ).steals) designated[{p.level, p.step}] = &p;
    std::map<std::uint32_t, std::uint32_t> counter;
    const std::uint32_t base = depth[segs[si].root];
    auto exec = [&](auto&& self, std::uint32_t node, std::uint32_t spawn_seg, std::uint32_t level, std::uint32_t step,
                    std::uint32_t parent_rec) -> void {
      const auto rec = static_cast<std::uint32_t>(recs.size());
      recs.push_back({node, si, spawn_seg, level, step, parent_rec});
      out.worker[node] = segs[si].worker;
      ++segs[si].tasks;
      const std::uint32_t l = depth[node] - base + 1;
      for (const auto& batch : prog.batches[node]) {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> local;
        for (const std::uint32_t c : batch) {
          const std::uint32_t s = counter[l]++;
          auto it = designated.find({l, s});
          if (it == designated.end()) {
            local.push_back({c, s});
            continue;
          }
          std::vector<std::uint32_t> path;
          for (std::uint32_t v = c; depth[v] > base; v = prog.parent[v]) path.insert(path.begin(), prog.rank[v]);
          segs.push_back({it->second->child, templ.segments.at(it->second->child).worker, si, l, s, c, rec, 0, path});
          designated.erase(it);
          pending.push_back(static_cast<std::uint32_t>(segs.size() - 1));
        }
        for (auto it = local.rbegin(); it != local.rend(); ++it) self(self, it->first, si, l, it->second, rec);
      }
    };
    if (si == 0) {
      exec(exec, 0, st::no_parent, 0, 0, st::no_parent);
    } else {
      exec(exec, segs[si].root, segs[si].parent, segs[si].level, segs[si].step, segs[si].spawner);
    }
    for (const auto& [at, p] : designated)
      ADD_FAILURE() << "template segment " << segs[si].templ << " never spawned (" << at.first << ", " << at.second
                    << ")";
  }

  // Recorder layout: pre-order, children by (level, step).
  const auto n = static_cast<std::uint32_t>(segs.size());
  std::vector<std::vector<std::uint32_t>> kids(n);
  for (std::uint32_t i = 1; i < n; ++i) kids[segs[i].parent].push_back(i);
  std::vector<std::uint32_t> order, index(n);
  std::vector<std::uint32_t> stack{0};
  while (!stack.empty()) {
    const std::uint32_t i = stack.back();
    stack.pop_back();
    index[i] = static_cast<std::uint32_t>(order.size());
    order.push_back(i);
    auto& k = kids[i];
    std::sort(k.begin(), k.end(), [&](auto a, auto b) {
      return std::pair(segs[a].level, segs[a].step) < std::pair(segs[b].level, segs[b].step);
    });
    for (auto it = k.rbegin(); it != k.rend(); ++it) stack.push_back(*it);
  }
  st::tree& t = out.tree;
  t.workers = templ.workers;
  t.segments.resize(n);
  t.worker_segments.assign(templ.workers, {});
  out.segment_root.resize(n);
  for (const std::uint32_t i : order) {
    st::segment& g = t.segments[index[i]];
    g.worker = segs[i].worker;
    g.parent = i == 0 ? st::no_parent : index[segs[i].parent];
    g.level = segs[i].level;
    g.step = segs[i].step;
    g.tasks = segs[i].tasks;
    g.start_ns = g.end_ns = i;  // creation order
    out.segment_root[index[i]] = segs[i].root;
    for (const std::uint32_t c : kids[i]) {
      g.steals.push_back(
          {segs[c].level, segs[c].step, segs[c].worker, index[c], static_cast<std::uint32_t>(t.paths.size())});
      t.paths.insert(t.paths.end(), segs[c].path.begin(), segs[c].path.end());
    }
  }
  for (std::uint32_t i = 0; i < n; ++i) t.worker_segments[segs[i].worker].push_back(index[i]);
  // Audit grouped by worker, in the order each worker ran its tasks.
  std::vector<std::uint32_t> by_worker(recs.size()), at(recs.size());
  std::iota(by_worker.begin(), by_worker.end(), 0u);
  std::stable_sort(by_worker.begin(), by_worker.end(),
                   [&](auto a, auto b) { return segs[recs[a].seg].worker < segs[recs[b].seg].worker; });
  for (std::uint32_t i = 0; i < by_worker.size(); ++i) at[by_worker[i]] = i;
  for (const std::uint32_t r : by_worker) {
    const record& x = recs[r];
    t.audit.push_back({index[x.seg], x.spawn_seg == st::no_parent ? st::no_parent : index[x.spawn_seg], x.level, x.step,
                       segs[x.seg].worker, x.parent == st::no_parent ? st::no_parent : at[x.parent]});
  }
  return out;
}

}  // namespace cws::test
