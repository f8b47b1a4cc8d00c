// Golden files of recorded runs: make_golden's fib(12) on 2 workers of the
// synthetic machine "pack:2 numa:1 core:1 pu:1", three runs, once per format
// version. What every version's file shares is checked by one function from a
// per-version table; what a version added, by its own test.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cws/steal_tree/analysis.hpp"
#include "cws/traces/trace_file.hpp"
#include "golden_checks.hpp"
#include "helpers.hpp"

namespace {

namespace tr = cws::traces;
namespace st = cws::steal_tree;

using namespace cws::test::golden_checks;

using per_run = std::array<std::uint64_t, 3>;

// The statistics of one worker in one run.
struct worker_in_run {
  std::size_t run, worker;
  cws::worker_stats stats;
};

// One version's fib file. From version 2 on the policy is "golden-designate"
// (designated spawns go to the designated worker's mailbox and may be taken
// back at the spawner's sync); from version 3 on the leaves touch an
// interleaved 16-page array (64 KiB, each page once) and the schedule is
// relocalized (simulated backend) after run #0; from version 4 on the run is
// also streamed while it ran (<name>.stream.cwst).
struct fib_version {
  std::uint32_t version;
  const char* policy;
  std::array<st::totals, 3> totals;
  std::array<double, 3> wall;
  // Per run: designated spawns, extra steals (steals - designated), taken back.
  std::optional<std::array<per_run, 3>> designations;
  std::optional<per_run> local_bytes;
  std::vector<worker_in_run> workers;
  // The relocalization after run #0: pages moved, and its time when checked.
  std::optional<std::uint64_t> pages_moved;
  std::optional<double> relocalization_seconds;
};

const fib_version fib_versions[] = {
    {1,
     "random",
     {{{233, 0, 1, 1}, {233, 2, 3, 3}, {233, 5, 6, 6}}},
     {1.9358999999999999e-05, 2.031e-05, 1.4181e-05},
     std::nullopt,
     std::nullopt,
     {{1, 0, {178, 2, 1, 12, 1, 1.1157e-05}}, {1, 1, {55, 1, 1, 1, 0, 2.573e-06}}},
     std::nullopt,
     std::nullopt},
    {2,
     "golden-designate",
     {{{233, 2, 3, 3}, {233, 2, 3, 3}, {233, 3, 4, 4}}},
     {2.5398e-05, 1.7365999999999999e-05, 1.5753e-05},
     std::array<per_run, 3>{{{2, 1, 0}, {0, 1, 3}, {4, 5, 5}}},
     std::nullopt,
     {{1, 0, {212, 2, 1, 1, 1, 1.0510000000000002e-06, 0, 4}}, {1, 1, {21, 1, 1, 2, 0, 1.8730000000000001e-06, 1, 1}}},
     std::nullopt,
     std::nullopt},
    {3,
     "golden-designate",
     {{{233, 3, 4, 3}, {233, 0, 1, 1}, {233, 3, 4, 4}}},
     {5.2058000000000002e-05, 4.6789999999999998e-05, 2.7532e-05},
     std::array<per_run, 3>{{{3, 0, 0}, {0, 0, 3}, {4, 5, 5}}},
     per_run{36864, 53248, 51072},
     {{1, 0, {233, 1, 0, 0, 0, 0.0, 0, 5}}},
     7,
     1.5719999999999999e-06},
    {4,
     "golden-designate",
     {{{233, 2, 3, 3}, {233, 0, 1, 1}, {233, 3, 4, 3}}},
     {3.9990000000000002e-05, 0.003210184, 1.2148e-05},
     std::nullopt,
     per_run{36864, 61440, 49152},
     {{0, 0, {212, 2, 1, 12, 1, 1.0105000000000001e-05, 1, 4}}, {2, 1, {76, 2, 2, 4, 0, 4.6360000000000002e-06, 1, 2}}},
     7,
     1.2219999999999999e-06},
    {5,
     "golden-designate",
     {{{233, 3, 4, 3}, {233, 2, 3, 3}, {233, 7, 8, 8}}},
     {5.4341e-05, 2.4505999999999999e-05, 2.1953000000000001e-05},
     std::nullopt,
     per_run{36800, 65536, 46112},
     {{0, 0, {213, 3, 2, 26, 2, 1.6473999999999998e-05, 1, 4, 0}},
      {2, 1, {101, 4, 4, 25, 3, 8.4440000000000008e-06, 2, 3, 0}}},
     7,
     1.6020000000000001e-06},
    {6,
     "golden-designate",
     {{{233, 2, 3, 3}, {233, 3, 4, 4}, {233, 7, 8, 5}}},
     {7.1186000000000006e-05, 3.1216000000000001e-05, 2.7640999999999998e-05},
     std::nullopt,
     per_run{32768, 44544, 52736},
     {{0, 0, {178, 2, 1, 15, 1, 8.8730000000000013e-06, 1, 3, 0}}, {2, 1, {118, 3, 3, 32, 2, 1.218e-05, 1, 4, 0}}},
     8,
     std::nullopt},
};

// What every version's fib file holds, from its row of fib_versions; returns the file.
tr::trace_file read_fib(const fib_version& v) {
  const tr::trace_file f = tr::read(golden_of(v.version, "fib12-2w.cwst"));
  EXPECT_EQ(f.header.format_version, v.version);
  EXPECT_EQ(f.header.host, "golden");
  EXPECT_EQ(f.header.cws_version, "0.1.0");
  EXPECT_EQ(f.header.created, "2024-01-01T00:00:00Z");
  EXPECT_EQ(f.header.topology.source, "synthetic \"pack:2 numa:1 core:1 pu:1\" (CWS_TOPOLOGY)");
  EXPECT_EQ(f.header.options.workers, 2u);
  EXPECT_FALSE(f.header.options.audit);
  EXPECT_EQ(f.header.node_of_worker(), (std::vector<std::uint32_t>{0, 1}));
  if (f.phases.size() != 3u) {
    ADD_FAILURE() << f.phases.size() << " runs";
    return f;
  }
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(testing::Message() << "run " << i);
    const st::phase_record& r = f.phases[i];
    EXPECT_EQ(r.schedule, "fib");
    EXPECT_EQ(r.iteration, i);
    EXPECT_EQ(r.policy, v.policy);
    EXPECT_EQ(r.wall_s, v.wall[i]);
    EXPECT_EQ(st::summarize(r.steals), v.totals[i]);
    EXPECT_TRUE(r.steals.audit.empty());
    EXPECT_EQ(r.stats.size(), 2u);
    std::uint64_t tasks = 0, designated = 0, extra = 0, taken_back = 0;
    for (const cws::worker_stats& w : r.stats) {
      tasks += w.tasks, designated += w.designated, extra += w.steals - w.designated, taken_back += w.taken_back;
      if (v.version >= 5) {
        EXPECT_EQ(w.elided, 0u);  // golden-designate does not elide
      }
    }
    EXPECT_EQ(tasks, 233u);
    if (v.designations) {
      EXPECT_EQ(designated, (*v.designations)[0][i]);
      EXPECT_EQ(extra, (*v.designations)[1][i]);
      EXPECT_EQ(taken_back, (*v.designations)[2][i]);
    }
    EXPECT_EQ(r.locality.has_value(), v.local_bytes.has_value());
    if (v.local_bytes && r.locality) {
      EXPECT_EQ(r.locality->pages, 16u);
      EXPECT_EQ(r.locality->touched_bytes, 65536u);
      EXPECT_EQ(r.locality->unknown_bytes, 0u);
      EXPECT_EQ(r.locality->local_bytes, (*v.local_bytes)[i]);
    }
    EXPECT_EQ(r.relocalizations.size(), v.pages_moved && i == 0 ? 1u : 0u);
  }
  for (const worker_in_run& w : v.workers)
    EXPECT_EQ(f.phases[w.run].stats.at(w.worker), w.stats) << "run " << w.run << ", worker " << w.worker;
  if (v.pages_moved && !f.phases[0].relocalizations.empty()) {
    // It moved the pages node 1 had and node 0's worker used most.
    const cws::relocalization_report& x = f.phases[0].relocalizations[0];
    EXPECT_EQ(x.schedule, "fib");
    EXPECT_EQ(x.iteration, 0u);
    EXPECT_EQ(x.backend, "simulated");
    EXPECT_EQ(x.pages_examined, 16u);
    EXPECT_EQ(x.pages_moved, *v.pages_moved);
    EXPECT_EQ(x.pages_failed, 0u);
    EXPECT_EQ(x.bytes_moved, *v.pages_moved * 4096u);
    if (v.relocalization_seconds) {
      EXPECT_EQ(x.seconds, *v.relocalization_seconds);
    }
  }
  return f;
}

// From version 4 on, the same run streamed: the saved file has the
// relocalization inside run #0's record (4 records with the end record), the
// stream has it as a record of its own after run #0 (5).
void expect_stream_of_the_same_run(const fib_version& v, const tr::trace_file& saved) {
  EXPECT_EQ(tr::read_with_report(golden_of(v.version, "fib12-2w.cwst")).records, 4u);
  const tr::read_report s = tr::read_with_report(golden_of(v.version, "fib12-2w.stream.cwst"));
  EXPECT_TRUE(s.complete()) << s.summary();
  EXPECT_EQ(s.records, 5u);
  EXPECT_EQ(s.file.header.places, saved.header.places);
  EXPECT_TRUE(tr::identical(s.file, saved));
  EXPECT_TRUE(same_pedigrees_and_elided(s.file, saved));
}

// A segment of a steal tree, field by field.
struct segment_fields {
  std::uint32_t worker, parent, tasks;
  std::uint64_t start_ns, end_ns;
  std::vector<st::steal_point> steals;
};
void expect_segments(const st::tree& t, const std::vector<segment_fields>& expected) {
  ASSERT_EQ(t.segments.size(), expected.size());
  for (std::size_t g = 0; g < expected.size(); ++g) {
    SCOPED_TRACE(testing::Message() << "segment " << g);
    const segment_fields& e = expected[g];
    EXPECT_EQ(t.segments[g].worker, e.worker);
    if (g > 0) {
      EXPECT_EQ(t.segments[g].parent, e.parent);  // the root segment has none
    }
    EXPECT_EQ(t.segments[g].tasks, e.tasks);
    EXPECT_EQ(t.segments[g].start_ns, e.start_ns);
    EXPECT_EQ(t.segments[g].end_ns, e.end_ns);
    EXPECT_EQ(t.segments[g].steals, e.steals);
  }
}

TEST(Golden, V1FibRunHasTheKnownContents) {
  const tr::trace_file f = read_fib(fib_versions[0]);
  ASSERT_EQ(f.phases.size(), 3u);
  EXPECT_EQ(f.header.topology.summary, "2 packages, 2 NUMA nodes, 2 L3 groups, 2 cores, 2 PUs");
  // Run #0 never stole: one segment on worker 0.
  EXPECT_EQ(f.phases[0].steals.worker_segments, (std::vector<std::vector<std::uint32_t>>{{0}, {}}));
  // Run #1 in full: worker 1 stole the root's first child (1,0); worker 0,
  // blocked in a sync, stole (1,0) back out of that segment (nested segment).
  const st::tree& t = f.phases[1].steals;
  expect_segments(
      t,
      {{0, 0, 89, 621, 18909, {{1, 0, 1, 1}}}, {1, 0, 55, 2584, 18077, {{1, 0, 0, 2}}}, {0, 1, 89, 12830, 16014, {}}});
  EXPECT_EQ(t.worker_segments, (std::vector<std::vector<std::uint32_t>>{{0, 2}, {1}}));
}

TEST(Golden, V2FibRunHasTheKnownContents) {
  const tr::trace_file f = read_fib(fib_versions[1]);
  ASSERT_EQ(f.phases.size(), 3u);
  // Run #1 in full: worker 1 took (2,11) of the root segment from its
  // mailbox; worker 0, blocked in a sync, stole (2,3) out of that segment.
  const st::tree& t = f.phases[1].steals;
  expect_segments(t, {{0, 0, 199, 7341, 15884, {{2, 11, 1, 1}}},
                      {1, 0, 21, 13054, 15548, {{2, 3, 0, 2}}},
                      {0, 1, 13, 14211, 14782, {}}});
  EXPECT_EQ(t.worker_segments, (std::vector<std::vector<std::uint32_t>>{{0, 2}, {1}}));
}

// The first version with touches: locality per run, per node {touched, local}.
TEST(Golden, V3FibRunHasTheKnownContents) {
  const tr::trace_file f = read_fib(fib_versions[2]);
  ASSERT_EQ(f.phases.size(), 3u);
  const std::vector<cws::node_locality> per_node[] = {
      {{53248, 28672}, {12288, 8192}}, {{65536, 53248}, {0, 0}}, {{63360, 51072}, {2176, 0}}};
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(f.phases[i].locality.has_value());
    EXPECT_EQ(f.phases[i].locality->per_node, per_node[i]) << "run " << i;
  }
}

TEST(Golden, V4FibRunSavedAndStreamedHaveTheKnownContents) {
  const tr::trace_file f = read_fib(fib_versions[3]);
  expect_stream_of_the_same_run(fib_versions[3], f);
}

// fib(n) as designated_fib runs it: a task for fib(m) spawns fib(m-1), then
// calls fib(m-2) in place, whose spawn (fib(m-3)) is the task's second, and
// so on: its spawn of rank r is fib(m-1-2r). The tasks of fib(m)'s subtree:
// T(0) = T(1) = 1, T(m) = T(m-1) + T(m-2) (T(12) = 233).
std::uint64_t fib_tasks(std::uint32_t m) { return m < 2 ? 1 : fib_tasks(m - 1) + fib_tasks(m - 2); }

// The argument of the task a pedigree names below a task for fib(m), or
// nothing when fib's spawn tree has no such task.
std::optional<std::uint32_t> fib_below(std::uint32_t m, std::span<const std::uint32_t> ranks) {
  for (std::uint32_t r : ranks) {
    if (m < 2 + 2 * r) return std::nullopt;
    m -= 1 + 2 * r;
  }
  return m;
}

// The runtime recorded every steal's pedigree itself.
TEST(Golden, V5FibRunSavedAndStreamedHaveTheKnownContents) {
  const tr::trace_file f = read_fib(fib_versions[4]);
  ASSERT_EQ(f.phases.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const st::phase_record& r = f.phases[i];
    // Every steal has a pedigree of `level` ranks, the recorder's table holds
    // them one after the other, and they name the stolen tasks: a segment
    // rooted at fib(m) ran T(m) tasks minus those of the subtrees stolen
    // from it (its task count was recorded independently of the pedigrees).
    std::vector<std::uint32_t> root_of(r.steals.segments.size(), 12);
    std::size_t table = 0;
    for (std::size_t g = 0; g < r.steals.segments.size(); ++g) {  // parents come before their children
      const st::segment& s = r.steals.segments[g];
      std::uint64_t ran = fib_tasks(root_of[g]);
      for (const st::steal_point& p : s.steals) {
        SCOPED_TRACE(testing::Message() << "segment " << g << ", steal (" << p.level << "," << p.step << ")");
        ASSERT_EQ(p.path, table);
        const std::span<const std::uint32_t> ranks = st::path_of(r.steals, p);
        ASSERT_EQ(ranks.size(), p.level);
        table += ranks.size();
        EXPECT_LE(ranks.back(), p.step);  // the step counts all spawns at that depth, the rank its siblings
        // The segment's root is the only task at depth 0: at level 1, ranks are steps.
        if (p.level == 1) {
          EXPECT_EQ(ranks[0], p.step);
        }
        const std::optional<std::uint32_t> m = fib_below(root_of[g], ranks);
        ASSERT_TRUE(m.has_value());
        root_of[p.child] = *m;
        ran -= fib_tasks(*m);
      }
      EXPECT_EQ(s.tasks, ran) << "segment " << g << " rooted at fib(" << root_of[g] << ")";
    }
    EXPECT_EQ(r.steals.paths.size(), table);
  }
  // Run #0's pedigrees in full: worker 1 took fib(9) out of the root segment
  // (its 31st spawn at depth 3, the first-born's first-born's first-born);
  // worker 0, blocked in a sync, stole fib(8) out of that segment and, six
  // levels down, fib(1).
  const st::tree& t = f.phases[0].steals;
  EXPECT_EQ(t.paths, (std::vector<std::uint32_t>{0, 0, 0, 0, 1, 0, 0, 0, 0, 0}));
  ASSERT_EQ(t.segments[0].steals.size(), 1u);
  ASSERT_EQ(t.segments[1].steals.size(), 2u);
  EXPECT_EQ(t.segments[0].steals[0], (st::steal_point{3, 30, 1, 1}));
  EXPECT_EQ(pedigree(t, t.segments[0].steals[0]), (std::vector<std::uint32_t>{0, 0, 0}));
  EXPECT_EQ(t.segments[1].steals[0], (st::steal_point{1, 0, 0, 2}));
  EXPECT_EQ(pedigree(t, t.segments[1].steals[0]), (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(t.segments[1].steals[1], (st::steal_point{6, 0, 0, 3}));
  EXPECT_EQ(pedigree(t, t.segments[1].steals[1]), (std::vector<std::uint32_t>{1, 0, 0, 0, 0, 0}));
  expect_stream_of_the_same_run(fib_versions[4], f);
}

// Now with the runtime's place tree in the header: each node its own leaf.
// golden-designate routes no hinted spawn: every counter is 0.
TEST(Golden, V6FibRunSavedAndStreamedHaveTheKnownContents) {
  const tr::trace_file f = read_fib(fib_versions[5]);
  ASSERT_EQ(f.phases.size(), 3u);
  const tr::places_info& p = f.header.places;
  EXPECT_EQ(p.summary, "root -> 2 nodes -> 0 L3 groups -> 2 workers (topology)");
  EXPECT_EQ(p.source, "topology");
  EXPECT_EQ(p.numa_of_node, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(p.node_of_worker, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(p.leaf_of_worker, (std::vector<std::uint32_t>{0, 1}));
  for (const st::phase_record& r : f.phases)
    for (const cws::worker_stats& w : r.stats)
      EXPECT_EQ(w.hinted_leaf + w.hinted_node + w.hinted_root + w.het_inlined + w.place_steals + w.reclaimed, 0u);
  EXPECT_EQ(f.phases[1].steals.paths, (std::vector<std::uint32_t>{0, 0, 0, 0, 0, 0, 0}));
  expect_stream_of_the_same_run(fib_versions[5], f);
}

}  // namespace
