// Golden files: every released format version's files must stay readable
// with the same contents. Never regenerate the files of a released version;
// a new format version adds new files next to them (traces/golden/README.md).
#include <gtest/gtest.h>

#include <string>

#include "cws/steal_tree/analysis.hpp"
#include "cws/traces/trace_file.hpp"
#include "helpers.hpp"
#include "synthetic.hpp"

namespace {

namespace tr = cws::traces;
namespace st = cws::steal_tree;

std::string golden(const std::string& name) { return std::string(CWS_TRACES_GOLDEN_DIR) + "/" + name; }

TEST(Golden, V1SyntheticTextHasTheKnownContents) {
  const tr::trace_file f = tr::read(golden("v1-synthetic-4w-audit.cwst"));
  EXPECT_EQ(f.header.format_version, 1u);
  EXPECT_EQ(f.header.archive, tr::archive_kind::text);
  // Field by field, independently of synthetic.hpp ...
  EXPECT_EQ(f.header.cws_version, "0.1.0");
  EXPECT_EQ(f.header.host, "synthetic");
  EXPECT_EQ(f.header.created, "2024-01-01T00:00:00Z");
  EXPECT_EQ(f.header.topology.summary, "2 packages, 2 NUMA nodes, 2 L3 groups, 4 cores, 4 PUs");
  EXPECT_TRUE(f.header.topology.synthetic);
  EXPECT_EQ(f.header.topology.numa_nodes, 2u);
  EXPECT_EQ(f.header.options.workers, 4u);
  EXPECT_TRUE(f.header.options.audit);
  EXPECT_EQ(f.header.options.seed, 0x5eedu);
  EXPECT_EQ(f.header.options.idle, "adaptive");
  EXPECT_EQ(f.header.options.topology_request, "pack:2 numa:1 core:2 pu:1");
  EXPECT_EQ(f.header.node_of_worker(), (std::vector<std::uint32_t>{0, 0, 1, 1}));
  ASSERT_EQ(f.phases.size(), 2u);
  const st::phase_record& r0 = f.phases[0];
  EXPECT_EQ(r0.schedule, "stencil");
  EXPECT_EQ(r0.iteration, 0u);
  EXPECT_EQ(r0.policy, "relws");
  EXPECT_EQ(r0.wall_s, 1.03125e-5);
  EXPECT_EQ(r0.stats[3].failed_steals, 11u);
  EXPECT_EQ(r0.stats[1].idle_s, 1.25e-6);
  EXPECT_EQ(st::summarize(r0.steals), (st::totals{18, 5, 6, 3}));
  EXPECT_EQ(r0.steals.audit.size(), 18u);
  EXPECT_EQ(r0.steals.segments[5].worker, 1u);
  EXPECT_EQ(r0.steals.segments[5].parent, 3u);
  EXPECT_EQ(r0.steals.segments[5].start_ns, 6000u);
  EXPECT_EQ(r0.steals.segments[0].steals[2], (st::steal_point{2, 0, 3, 4}));
  EXPECT_EQ(r0.steals.worker_segments[1], (std::vector<std::uint32_t>{1, 5}));
  EXPECT_EQ(f.phases[1].policy, "stows");
  EXPECT_EQ(f.phases[1].steals.segments[2].worker, 3u);
  // ... and as a whole: exactly what the generator wrote.
  EXPECT_TRUE(tr::identical(f, cws::test::synthetic_trace()));
  // The schedule distance between the two runs: segment #2's 3 of 18 tasks
  // moved from worker 2 to worker 3, on the same node.
  const st::distance d = st::schedule_distance(r0.steals, f.phases[1].steals, f.header.node_of_worker());
  EXPECT_TRUE(d.exact);
  EXPECT_EQ(d.work, 18u);
  EXPECT_DOUBLE_EQ(d.moved_worker, 3.0 / 18.0);
  EXPECT_DOUBLE_EQ(d.moved_node, 0.0);
}

TEST(Golden, V1SyntheticXmlReadsTheSame) {
  const tr::trace_file x = tr::read(golden("v1-synthetic-4w-audit.xml.cwst"));
  EXPECT_EQ(x.header.archive, tr::archive_kind::xml);
  EXPECT_TRUE(tr::identical(x, tr::read(golden("v1-synthetic-4w-audit.cwst"))));
}

TEST(Golden, V1FibRunHasTheKnownContents) {
  const tr::trace_file f = tr::read(golden("v1-fib12-2w.cwst"));
  EXPECT_EQ(f.header.format_version, 1u);
  EXPECT_EQ(f.header.host, "golden");
  EXPECT_EQ(f.header.cws_version, "0.1.0");
  EXPECT_EQ(f.header.topology.summary, "2 packages, 2 NUMA nodes, 2 L3 groups, 2 cores, 2 PUs");
  EXPECT_EQ(f.header.topology.source, "synthetic \"pack:2 numa:1 core:1 pu:1\" (CWS_TOPOLOGY)");
  EXPECT_EQ(f.header.options.workers, 2u);
  EXPECT_FALSE(f.header.options.audit);
  EXPECT_EQ(f.header.node_of_worker(), (std::vector<std::uint32_t>{0, 1}));
  ASSERT_EQ(f.phases.size(), 3u);
  const st::totals expect[] = {{233, 0, 1, 1}, {233, 2, 3, 3}, {233, 5, 6, 6}};
  const double wall[] = {1.9358999999999999e-05, 2.031e-05, 1.4181e-05};
  for (std::size_t i = 0; i < 3; ++i) {
    const st::phase_record& r = f.phases[i];
    EXPECT_EQ(r.schedule, "fib");
    EXPECT_EQ(r.iteration, i);
    EXPECT_EQ(r.policy, "random");
    EXPECT_EQ(r.wall_s, wall[i]);
    EXPECT_EQ(st::summarize(r.steals), expect[i]) << "run " << i;
    EXPECT_TRUE(r.steals.audit.empty());
    ASSERT_EQ(r.stats.size(), 2u);
    EXPECT_EQ(r.stats[0].tasks + r.stats[1].tasks, 233u);
  }
  // Run #0 never stole: one segment on worker 0.
  EXPECT_EQ(f.phases[0].steals.worker_segments, (std::vector<std::vector<std::uint32_t>>{{0}, {}}));
  // Run #1 in full: worker 1 stole the root's first child (1,0); worker 0,
  // blocked in a sync, stole (1,0) back out of that segment (nested segment).
  const st::phase_record& r1 = f.phases[1];
  EXPECT_EQ(r1.stats[0], (cws::worker_stats{178, 2, 1, 12, 1, 1.1157e-05}));
  EXPECT_EQ(r1.stats[1], (cws::worker_stats{55, 1, 1, 1, 0, 2.573e-06}));
  const st::tree& t = r1.steals;
  ASSERT_EQ(t.segments.size(), 3u);
  EXPECT_EQ(t.segments[0].worker, 0u);
  EXPECT_EQ(t.segments[0].tasks, 89u);
  EXPECT_EQ(t.segments[0].start_ns, 621u);
  EXPECT_EQ(t.segments[0].end_ns, 18909u);
  EXPECT_EQ(t.segments[0].steals, (std::vector<st::steal_point>{{1, 0, 1, 1}}));
  EXPECT_EQ(t.segments[1].worker, 1u);
  EXPECT_EQ(t.segments[1].parent, 0u);
  EXPECT_EQ(t.segments[1].tasks, 55u);
  EXPECT_EQ(t.segments[1].start_ns, 2584u);
  EXPECT_EQ(t.segments[1].end_ns, 18077u);
  EXPECT_EQ(t.segments[1].steals, (std::vector<st::steal_point>{{1, 0, 0, 2}}));
  EXPECT_EQ(t.segments[2].worker, 0u);
  EXPECT_EQ(t.segments[2].parent, 1u);
  EXPECT_EQ(t.segments[2].tasks, 89u);
  EXPECT_EQ(t.segments[2].start_ns, 12830u);
  EXPECT_EQ(t.segments[2].end_ns, 16014u);
  EXPECT_EQ(t.worker_segments, (std::vector<std::vector<std::uint32_t>>{{0, 2}, {1}}));
}

// Reading a golden file and writing it again gives the same bytes: the writer
// of this version still produces version 1 exactly.
TEST(Golden, RewritingV1FilesIsByteIdentical) {
  for (const char* name : {"v1-synthetic-4w-audit.cwst", "v1-synthetic-4w-audit.xml.cwst", "v1-fib12-2w.cwst"}) {
    if (tr::format_version != 1) GTEST_SKIP() << "format version moved on; v1 files are only read";
    const std::string bytes = cws::test::slurp(golden(name));
    const tr::trace_file f = tr::decode(bytes, name);
    EXPECT_EQ(tr::encode(f, f.header.archive), bytes) << name;
  }
}

}  // namespace
