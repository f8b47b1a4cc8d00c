#pragma once
// Consistency checks of a recorded phase against the core's phase statistics
// and (in audit mode) against the per-task audit, shared by the steal-tree
// suites. Each check reports through gtest with `what` in the message.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "cws/cws.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "cws/steal_tree/recorder.hpp"
#include "support/runtime_fixture.hpp"

namespace cws::test {

namespace st = cws::steal_tree;

// The structure of the tree and its agreement with the core's counters.
inline void check_tree(const st::phase_record& r, const cws::phase_stats& s, const std::string& what) {
  SCOPED_TRACE(what);
  const st::tree& t = r.steals;
  const std::size_t n = t.segments.size();
  ASSERT_EQ(t.workers, s.per_worker.size());
  ASSERT_EQ(r.stats, s.per_worker);
  EXPECT_EQ(r.schedule, s.phase.schedule);
  EXPECT_EQ(r.iteration, s.phase.iteration);
  EXPECT_EQ(r.policy, s.phase.policy);
  EXPECT_EQ(r.wall_s, s.wall_s);
  ASSERT_EQ(n, s.segments());
  ASSERT_GE(n, 1u);

  // The root segment, the pre-order and the parent/child links.
  const st::segment& root = t.segments[0];
  EXPECT_EQ(root.parent, st::no_parent);
  EXPECT_EQ(root.worker, 0u);
  EXPECT_EQ(root.level, 0u);
  EXPECT_EQ(root.step, 0u);
  std::uint64_t listed = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const st::segment& g = t.segments[i];
    ASSERT_LT(g.worker, t.workers);
    EXPECT_LE(g.start_ns, g.end_ns);
    EXPECT_GE(g.tasks, 1u) << "a segment runs at least its root task";
    if (i > 0) {
      ASSERT_LT(g.parent, i) << "segments are in pre-order";
      const st::segment& p = t.segments[g.parent];
      EXPECT_NE(p.worker, g.worker) << "a segment's root task comes from another worker";
      EXPECT_GE(g.level, 1u);
      const st::steal_point sp{g.level, g.step, g.worker, i};
      EXPECT_EQ(std::count(p.steals.begin(), p.steals.end(), sp), 1)
          << "segment " << i << " missing in its parent's steals";
    }
    for (std::size_t k = 0; k < g.steals.size(); ++k) {
      const st::steal_point& sp = g.steals[k];
      ASSERT_LT(sp.child, n);
      EXPECT_EQ(t.segments[sp.child].parent, i);
      EXPECT_EQ(t.segments[sp.child].worker, sp.thief);
      if (k > 0) {
        const st::steal_point& prev = g.steals[k - 1];
        EXPECT_LT(std::tie(prev.level, prev.step), std::tie(sp.level, sp.step)) << "steals sorted, each point once";
      }
    }
    listed += g.steals.size();
  }
  EXPECT_EQ(listed, n - 1);
  EXPECT_EQ(listed, s.steals()) << "every steal (or hand-over) starts one segment";

  // Per worker: its segments in start order, covering each segment once.
  ASSERT_EQ(t.worker_segments.size(), t.workers);
  std::vector<int> seen(n, 0);
  for (std::uint32_t w = 0; w < t.workers; ++w) {
    const auto& ws = t.worker_segments[w];
    EXPECT_EQ(ws.size(), s.per_worker[w].segments);
    for (std::size_t k = 0; k < ws.size(); ++k) {
      ASSERT_LT(ws[k], n);
      ++seen[ws[k]];
      EXPECT_EQ(t.segments[ws[k]].worker, w);
      if (k > 0) {
        EXPECT_LE(t.segments[ws[k - 1]].start_ns, t.segments[ws[k]].start_ns);
      }
    }
    // A worker's segments are disjoint or nested (nested segments run while blocked in sync).
    for (std::size_t k = 1; k < ws.size(); ++k) {
      const st::segment& a = t.segments[ws[k - 1]];
      const st::segment& b = t.segments[ws[k]];
      EXPECT_TRUE(b.start_ns >= a.end_ns || b.end_ns <= a.end_ns) << "segments of worker " << w << " overlap";
    }
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));

  // Task counts: per segment sum = tasks run, per worker = the core's counters.
  const st::totals tot = st::summarize(t);
  EXPECT_EQ(tot.tasks, s.tasks());
  EXPECT_EQ(tot.segments, n);
  EXPECT_EQ(tot.steals, s.steals());
  const std::vector<std::uint64_t> per = st::tasks_per_worker(t);
  ASSERT_EQ(per.size(), t.workers);
  for (std::uint32_t w = 0; w < t.workers; ++w) EXPECT_EQ(per[w], s.per_worker[w].tasks) << "worker " << w;
}

// Audit mode: the per-task records against the tree.
inline void check_audit(const st::phase_record& r, const cws::phase_stats& s, const std::string& what) {
  SCOPED_TRACE(what);
  const st::tree& t = r.steals;
  const std::size_t n = t.segments.size();
  ASSERT_EQ(t.audit.size(), s.tasks()) << "one audit record per executed task";

  using name = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;  // (spawn segment, level, step)
  std::map<name, std::size_t> by_name;
  std::vector<std::uint64_t> per_segment(n, 0), spawned_in(n, 0);
  std::vector<std::size_t> first_of_segment(n, SIZE_MAX);
  for (std::size_t i = 0; i < t.audit.size(); ++i) {
    const st::audit_record& a = t.audit[i];
    ASSERT_LT(a.segment, n);
    // Every audited task ran on the worker of the segment that contains it.
    EXPECT_EQ(a.worker, t.segments[a.segment].worker) << "audit record " << i;
    ++per_segment[a.segment];
    if (first_of_segment[a.segment] == SIZE_MAX) first_of_segment[a.segment] = i;
    if (a.spawn_segment == st::no_parent) {
      EXPECT_EQ(a.segment, 0u) << "only the phase root has no spawning segment";
      EXPECT_EQ(a.level, 0u);
      EXPECT_EQ(a.step, 0u);
    } else {
      ASSERT_LT(a.spawn_segment, n);
      ++spawned_in[a.spawn_segment];
      // A task runs in the segment that spawned it, unless that segment
      // recorded a steal at its (level, step): then it is the thief segment's root.
      if (a.segment != a.spawn_segment) {
        const st::segment& sp = t.segments[a.spawn_segment];
        const st::steal_point want{a.level, a.step, t.segments[a.segment].worker, a.segment};
        EXPECT_EQ(std::count(sp.steals.begin(), sp.steals.end(), want), 1)
            << "task (" << a.spawn_segment << ", " << a.level << ", " << a.step << ") ran in segment " << a.segment
            << " without a recorded steal";
      }
    }
    EXPECT_TRUE(by_name.emplace(name{a.spawn_segment, a.level, a.step}, i).second)
        << "task name (" << a.spawn_segment << ", " << a.level << ", " << a.step << ") twice";
  }

  // Each recorded steal appears in the audit as the root (first task) of the thief's segment.
  for (std::uint32_t p = 0; p < n; ++p)
    for (const st::steal_point& sp : t.segments[p].steals) {
      auto it = by_name.find(name{p, sp.level, sp.step});
      ASSERT_NE(it, by_name.end()) << "steal (" << p << ", " << sp.level << ", " << sp.step << ") not audited";
      const st::audit_record& a = t.audit[it->second];
      EXPECT_EQ(a.segment, sp.child);
      EXPECT_EQ(a.worker, sp.thief);
      EXPECT_EQ(first_of_segment[sp.child], it->second) << "the stolen task is the first of the thief's segment";
    }
  EXPECT_EQ(first_of_segment[0], 0u);
  EXPECT_EQ(t.audit[0].spawn_segment, st::no_parent) << "worker 0 starts with the phase root";

  // Parent links: the spawning task ran in the spawning segment, one level up.
  for (std::size_t i = 0; i < t.audit.size(); ++i) {
    const st::audit_record& a = t.audit[i];
    if (a.spawn_segment == st::no_parent) {
      EXPECT_EQ(a.parent, st::no_parent);
      continue;
    }
    ASSERT_LT(a.parent, t.audit.size()) << "audit record " << i << " has no parent";
    const st::audit_record& p = t.audit[a.parent];
    EXPECT_EQ(p.segment, a.spawn_segment) << "audit record " << i;
    EXPECT_EQ(p.worker, t.segments[a.spawn_segment].worker);
    const bool p_is_segment_root = p.spawn_segment == st::no_parent || p.segment != p.spawn_segment;
    EXPECT_EQ((p_is_segment_root ? 0u : p.level) + 1, a.level) << "audit record " << i;
  }

  // Per segment: audited tasks = recorded count = its root + local spawns - stolen spawns.
  for (std::uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(per_segment[i], t.segments[i].tasks) << "segment " << i;
    EXPECT_EQ(t.segments[i].tasks, 1 + spawned_in[i] - t.segments[i].steals.size()) << "segment " << i;
  }

  // The task -> worker mapping of the analysis agrees with the audit.
  const st::tree_index index(t);
  std::size_t mismatches = 0;
  for (const st::audit_record& a : t.audit) {
    const st::task_path p = index.path_of_task(a);
    if (index.worker_of(p) != a.worker) ++mismatches;
    if (a.segment != a.spawn_segment && a.spawn_segment != st::no_parent) {
      // The root of a stolen segment also has the name {its own path, (0, 0)}.
      EXPECT_EQ(index.worker_of(st::task_path{index.path(a.segment), {0, 0}}), a.worker);
      EXPECT_EQ(index.find(index.path(a.segment)), a.segment);
    }
  }
  EXPECT_EQ(mismatches, 0u);

  // A tree is at distance 0 from itself, exactly and by segments.
  std::vector<std::uint32_t> nodes(t.workers);
  for (std::uint32_t w = 0; w < t.workers; ++w) nodes[w] = w / 2;
  const st::distance d = st::schedule_distance(t, t, nodes);
  EXPECT_TRUE(d.exact);
  EXPECT_EQ(d.moved_worker, 0.0);
  EXPECT_EQ(d.moved_node, 0.0);
  EXPECT_EQ(d.work, s.tasks());
  st::tree bare = t;
  bare.audit.clear();
  const st::distance e = st::schedule_distance(bare, t, nodes);
  EXPECT_FALSE(e.exact);
  EXPECT_EQ(e.moved_worker, 0.0);
  EXPECT_EQ(e.work, s.tasks());
}

// ------------------------------------------------------------ workloads

// A memcopy-like parallel_for: copies src into dst in leaves of `grain`
// elements; returns the number of leaves (= tasks of the phase: the root
// plus one per spawn).
struct memcopy {
  std::vector<double> src, dst;
  explicit memcopy(std::size_t n) : src(n), dst(n, -1.0) {
    for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<double>(i) * 0.5;
  }
  std::uint64_t run(std::size_t grain) {
    std::atomic<std::uint64_t> leaves{0};
    cws::parallel_for_range(
        0, src.size(),
        [&](std::size_t lo, std::size_t hi) {
          std::copy(src.begin() + static_cast<std::ptrdiff_t>(lo), src.begin() + static_cast<std::ptrdiff_t>(hi),
                    dst.begin() + static_cast<std::ptrdiff_t>(lo));
          leaves.fetch_add(1, std::memory_order_relaxed);
        },
        grain);
    return leaves.load();
  }
  bool copied() const { return src == dst; }
};

struct topo_case {
  const char* name;
  unsigned workers;       // 0: one per core of the topology
  const char* synthetic;  // empty: this machine
};
inline void PrintTo(const topo_case& c, std::ostream* os) { *os << c.name; }
inline const topo_case topo_cases[] = {
    {"2w", 2, ""},
    {"4w_synthetic", 0, "pack:2 numa:1 core:2 pu:1"},
    {"8w_synthetic", 0, "pack:4 numa:1 core:2 pu:1"},
};

inline cws::runtime_config audit_config(const topo_case& tc, std::uint64_t seed, bool audit) {
  cws::runtime_config c = config(tc.workers, tc.synthetic);
  c.seed = seed;
  c.record = true;
  c.audit = audit;
  return c;
}

struct run_counts {
  std::uint64_t steals = 0;
  std::uint64_t nested = 0;  // nested segments (started while blocked in sync)
  run_counts& operator+=(const run_counts& o) {
    steals += o.steals;
    nested += o.nested;
    return *this;
  }
};
inline run_counts counts_of(const cws::phase_stats& s) {
  run_counts c{s.steals(), 0};
  for (const auto& w : s.per_worker) c.nested += w.nested_segments;
  return c;
}

// A phase with exactly one steal whatever the machine load: the root waits
// until its child has started, which only another worker can do (it gets a
// CPU eventually). Checked like the others, so that the checks never run on
// trivial trees only.
inline const cws::phase_stats& run_forced_steal(cws::runtime& rt, cws::schedule& s) {
  std::atomic<bool> started{false};
  const cws::phase_stats& st = rt.run(s, [&] {
    cws::spawn([&] { started = true; });
    while (!started.load()) std::this_thread::yield();
    cws::sync();
  });
  EXPECT_EQ(st.steals(), 1u) << "the waited-for child was stolen";
  return st;
}

// Runs fib and memcopy phases under `seed`, and one forced steal, checking
// every recorded phase. Adds to `counts` how many steals and nested segments
// the checked phases had (at least the forced steal).
inline void run_and_check(const topo_case& tc, std::uint64_t seed, unsigned fib_n, std::size_t copy_n,
                          std::size_t grain, int phases, run_counts& counts) {
  cws::runtime rt(audit_config(tc, seed, true));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  ASSERT_TRUE(rec->audit());
  if (tc.synthetic[0] != '\0') {
    EXPECT_EQ(rt.workers(), tc.name[0] == '4' ? 4u : 8u);
  }
  auto& fs = rt.schedule("fib");
  auto& ms = rt.schedule("memcopy");
  memcopy mc(copy_n);
  for (int it = 0; it < phases; ++it) {
    const std::string tag = std::string(tc.name) + " seed " + std::to_string(seed) + " iteration " + std::to_string(it);
    std::uint64_t result = 0;
    const cws::phase_stats& fst = rt.run(fs, [&] { result = cws::test::fib(fib_n); });
    ASSERT_EQ(result, serial_fib(fib_n));
    ASSERT_EQ(fst.tasks(), fib_spawns(fib_n) + 1);
    const st::phase_record* fr = rec->latest("fib");
    ASSERT_NE(fr, nullptr);
    ASSERT_EQ(fr->iteration, static_cast<std::uint64_t>(it));
    check_tree(*fr, fst, "fib " + tag);
    check_audit(*fr, fst, "fib " + tag);
    counts += counts_of(fst);

    std::uint64_t leaves = 0;
    const cws::phase_stats& mst = rt.run(ms, [&] { leaves = mc.run(grain); });
    ASSERT_TRUE(mc.copied());
    ASSERT_EQ(mst.tasks(), leaves);
    const st::phase_record* mr = rec->latest("memcopy");
    ASSERT_NE(mr, nullptr);
    check_tree(*mr, mst, "memcopy " + tag);
    check_audit(*mr, mst, "memcopy " + tag);
    counts += counts_of(mst);
  }
  auto& forced = rt.schedule("forced");
  const cws::phase_stats& xst = run_forced_steal(rt, forced);
  const st::phase_record* xr = rec->latest("forced");
  ASSERT_NE(xr, nullptr);
  check_tree(*xr, xst, std::string(tc.name) + " seed " + std::to_string(seed) + " forced steal");
  check_audit(*xr, xst, std::string(tc.name) + " seed " + std::to_string(seed) + " forced steal");
  counts += counts_of(xst);
  EXPECT_EQ(rec->phases().size(), static_cast<std::size_t>(2 * phases + 1));
}

}  // namespace cws::test
