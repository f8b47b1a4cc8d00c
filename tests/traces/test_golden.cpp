// Golden files: every released format version's files must stay readable
// with the same contents. Never regenerate the files of a released version;
// a new format version adds new files next to them (traces/golden/README.md).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "cws/steal_tree/analysis.hpp"
#include "cws/traces/trace_file.hpp"
#include "helpers.hpp"
#include "synthetic.hpp"

namespace {

namespace tr = cws::traces;
namespace st = cws::steal_tree;

using cws::test::golden;

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
  // Version 1 has no designated / taken-back counts: they read as 0.
  for (const st::phase_record& r : f.phases)
    for (const cws::worker_stats& w : r.stats) EXPECT_EQ(w.designated + w.taken_back, 0u);
  // ... and as a whole: exactly what the generator wrote.
  EXPECT_TRUE(tr::identical(f, cws::test::synthetic_trace(1)));
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

// ---------------------------------------------------------------- version 2

TEST(Golden, V2SyntheticTextHasTheKnownContents) {
  const tr::trace_file f = tr::read(golden("v2-synthetic-4w-audit.cwst"));
  EXPECT_EQ(f.header.format_version, 2u);
  EXPECT_EQ(f.header.archive, tr::archive_kind::text);
  EXPECT_EQ(f.header.cws_version, "0.1.0");
  EXPECT_EQ(f.header.host, "synthetic");
  EXPECT_EQ(f.header.options.workers, 4u);
  EXPECT_TRUE(f.header.options.audit);
  EXPECT_EQ(f.header.node_of_worker(), (std::vector<std::uint32_t>{0, 0, 1, 1}));
  ASSERT_EQ(f.phases.size(), 2u);
  const st::phase_record& r0 = f.phases[0];
  EXPECT_EQ(r0.policy, "relws");
  EXPECT_EQ(r0.wall_s, 1.03125e-5);
  EXPECT_EQ(st::summarize(r0.steals), (st::totals{18, 5, 6, 3}));
  EXPECT_EQ(r0.steals.segments[0].steals[2], (st::steal_point{2, 0, 3, 4}));
  // The fields version 2 added, field by field.
  ASSERT_EQ(r0.stats.size(), 4u);
  EXPECT_EQ(r0.stats[0], (cws::worker_stats{5, 1, 0, 3, 0, 0.0, 0, 1}));
  EXPECT_EQ(r0.stats[1], (cws::worker_stats{5, 2, 2, 7, 1, 1.25e-6, 1, 0}));
  EXPECT_EQ(r0.stats[2], (cws::worker_stats{6, 2, 2, 2, 0, 2.5e-6, 2, 3}));
  EXPECT_EQ(r0.stats[3], (cws::worker_stats{2, 1, 1, 11, 0, 3.0e-6, 0, 0}));
  const st::phase_record& r1 = f.phases[1];
  EXPECT_EQ(r1.policy, "stows");
  EXPECT_EQ(r1.stats[1].designated, 2u);
  EXPECT_EQ(r1.stats[2], (cws::worker_stats{3, 1, 1, 5, 0, 4.5e-6, 1, 0}));
  EXPECT_EQ(r1.stats[3], (cws::worker_stats{5, 2, 2, 11, 1, 1.0e-6, 2, 0}));
  EXPECT_TRUE(tr::identical(f, cws::test::synthetic_trace(2)));
  // The trees are those of version 1: only the statistics grew.
  const tr::trace_file v1 = tr::read(golden("v1-synthetic-4w-audit.cwst"));
  for (std::size_t i = 0; i < 2; ++i) EXPECT_EQ(f.phases[i].steals, v1.phases[i].steals) << i;
}

TEST(Golden, V2SyntheticXmlAndBinaryReadTheSame) {
  const tr::trace_file text = tr::read(golden("v2-synthetic-4w-audit.cwst"));
  const tr::trace_file x = tr::read(golden("v2-synthetic-4w-audit.xml.cwst"));
  EXPECT_EQ(x.header.format_version, 2u);
  EXPECT_EQ(x.header.archive, tr::archive_kind::xml);
  EXPECT_TRUE(tr::identical(x, text));
  // The XML shows the new fields by name.
  const std::string xml = cws::test::slurp(golden("v2-synthetic-4w-audit.xml.cwst"));
  EXPECT_NE(xml.find("<designated>2</designated>"), std::string::npos);
  EXPECT_NE(xml.find("<taken_back>3</taken_back>"), std::string::npos);
  // Binary archives are not portable (native type sizes and endianness): this
  // one was written on x86-64 Linux.
  const tr::trace_file b = tr::read(golden("v2-synthetic-4w-audit.bin.cwst"));
  EXPECT_EQ(b.header.format_version, 2u);
  EXPECT_EQ(b.header.archive, tr::archive_kind::binary);
  EXPECT_TRUE(tr::identical(b, text));
}

// A real run under a designating policy (make_golden's "golden-designate":
// designated spawns go to the designated worker's mailbox and may be taken
// back at the spawner's sync).
TEST(Golden, V2FibRunHasTheKnownContents) {
  const tr::trace_file f = tr::read(golden("v2-fib12-2w.cwst"));
  EXPECT_EQ(f.header.format_version, 2u);
  EXPECT_EQ(f.header.host, "golden");
  EXPECT_EQ(f.header.created, "2024-01-01T00:00:00Z");
  EXPECT_EQ(f.header.topology.source, "synthetic \"pack:2 numa:1 core:1 pu:1\" (CWS_TOPOLOGY)");
  EXPECT_EQ(f.header.options.workers, 2u);
  EXPECT_FALSE(f.header.options.audit);
  ASSERT_EQ(f.phases.size(), 3u);
  const st::totals expect[] = {{233, 2, 3, 3}, {233, 2, 3, 3}, {233, 3, 4, 4}};
  const double wall[] = {2.5398e-05, 1.7365999999999999e-05, 1.5753e-05};
  // Per run: designated, extra (= steals - designated), taken back.
  const std::uint64_t designated[] = {2, 1, 0}, extra[] = {0, 1, 3}, taken_back[] = {4, 5, 5};
  for (std::size_t i = 0; i < 3; ++i) {
    const st::phase_record& r = f.phases[i];
    EXPECT_EQ(r.schedule, "fib");
    EXPECT_EQ(r.iteration, i);
    EXPECT_EQ(r.policy, "golden-designate");
    EXPECT_EQ(r.wall_s, wall[i]);
    EXPECT_EQ(st::summarize(r.steals), expect[i]) << "run " << i;
    ASSERT_EQ(r.stats.size(), 2u);
    EXPECT_EQ(r.stats[0].tasks + r.stats[1].tasks, 233u);
    std::uint64_t d = 0, e = 0, t = 0;
    for (const cws::worker_stats& w : r.stats) d += w.designated, e += w.steals - w.designated, t += w.taken_back;
    EXPECT_EQ(d, designated[i]) << "run " << i;
    EXPECT_EQ(e, extra[i]) << "run " << i;
    EXPECT_EQ(t, taken_back[i]) << "run " << i;
  }
  // Run #1 in full: worker 1 took (2,11) of the root segment from its
  // mailbox; worker 0, blocked in a sync, stole (2,3) out of that segment.
  const st::phase_record& r1 = f.phases[1];
  EXPECT_EQ(r1.stats[0], (cws::worker_stats{212, 2, 1, 1, 1, 1.0510000000000002e-06, 0, 4}));
  EXPECT_EQ(r1.stats[1], (cws::worker_stats{21, 1, 1, 2, 0, 1.8730000000000001e-06, 1, 1}));
  const st::tree& t = r1.steals;
  ASSERT_EQ(t.segments.size(), 3u);
  EXPECT_EQ(t.segments[0].worker, 0u);
  EXPECT_EQ(t.segments[0].tasks, 199u);
  EXPECT_EQ(t.segments[0].start_ns, 7341u);
  EXPECT_EQ(t.segments[0].end_ns, 15884u);
  EXPECT_EQ(t.segments[0].steals, (std::vector<st::steal_point>{{2, 11, 1, 1}}));
  EXPECT_EQ(t.segments[1].worker, 1u);
  EXPECT_EQ(t.segments[1].parent, 0u);
  EXPECT_EQ(t.segments[1].tasks, 21u);
  EXPECT_EQ(t.segments[1].start_ns, 13054u);
  EXPECT_EQ(t.segments[1].end_ns, 15548u);
  EXPECT_EQ(t.segments[1].steals, (std::vector<st::steal_point>{{2, 3, 0, 2}}));
  EXPECT_EQ(t.segments[2].worker, 0u);
  EXPECT_EQ(t.segments[2].parent, 1u);
  EXPECT_EQ(t.segments[2].tasks, 13u);
  EXPECT_EQ(t.segments[2].start_ns, 14211u);
  EXPECT_EQ(t.segments[2].end_ns, 14782u);
  EXPECT_EQ(t.worker_segments, (std::vector<std::vector<std::uint32_t>>{{0, 2}, {1}}));
}

// ---------------------------------------------------------------- version 3

TEST(Golden, V3SyntheticTextHasTheKnownContents) {
  const tr::trace_file f = tr::read(golden("v3-synthetic-4w-audit.cwst"));
  EXPECT_EQ(f.header.format_version, 3u);
  EXPECT_EQ(f.header.archive, tr::archive_kind::text);
  EXPECT_EQ(f.header.host, "synthetic");
  EXPECT_EQ(f.header.topology.numa_nodes, 2u);
  ASSERT_EQ(f.phases.size(), 2u);
  // The trees and statistics are those of version 2.
  const tr::trace_file v2 = tr::read(golden("v2-synthetic-4w-audit.cwst"));
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(f.phases[i].steals, v2.phases[i].steals) << i;
    EXPECT_EQ(f.phases[i].stats, v2.phases[i].stats) << i;
  }
  // The fields version 3 added, field by field.
  const st::phase_record& r0 = f.phases[0];
  ASSERT_TRUE(r0.locality.has_value());
  EXPECT_EQ(r0.locality->pages, 48u);
  EXPECT_EQ(r0.locality->touched_bytes, 196608u);
  EXPECT_EQ(r0.locality->local_bytes, 184320u);
  EXPECT_EQ(r0.locality->unknown_bytes, 4096u);
  EXPECT_EQ(r0.locality->per_node, (std::vector<cws::node_locality>{{131072, 122880}, {65536, 61440}}));
  EXPECT_EQ(r0.locality->share(), 0.9375);
  ASSERT_EQ(r0.relocalizations.size(), 2u);
  const cws::relocalization_report& a = r0.relocalizations[0];
  EXPECT_EQ(a.schedule, "stencil");
  EXPECT_EQ(a.iteration, 0u);
  EXPECT_EQ(a.backend, "simulated");
  EXPECT_EQ(a.pages_examined, 48u);
  EXPECT_EQ(a.pages_moved, 2u);
  EXPECT_EQ(a.pages_failed, 1u);
  EXPECT_EQ(a.bytes_moved, 8192u);
  EXPECT_EQ(a.seconds, 1.220703125e-4);
  EXPECT_EQ(r0.relocalizations[1].pages_moved, 0u);
  EXPECT_EQ(r0.relocalizations[1].pages_failed, 1u);
  EXPECT_EQ(r0.relocalizations[1].seconds, 3.0517578125e-5);
  const st::phase_record& r1 = f.phases[1];
  ASSERT_TRUE(r1.locality.has_value());
  EXPECT_EQ(r1.locality->local_bytes, 196608u);
  EXPECT_EQ(r1.locality->unknown_bytes, 0u);
  EXPECT_TRUE(r1.relocalizations.empty());
  EXPECT_TRUE(tr::identical(f, cws::test::synthetic_trace(3)));
}

TEST(Golden, V3SyntheticXmlAndBinaryReadTheSame) {
  const tr::trace_file text = tr::read(golden("v3-synthetic-4w-audit.cwst"));
  const tr::trace_file x = tr::read(golden("v3-synthetic-4w-audit.xml.cwst"));
  EXPECT_EQ(x.header.format_version, 3u);
  EXPECT_EQ(x.header.archive, tr::archive_kind::xml);
  EXPECT_TRUE(tr::identical(x, text));
  const std::string xml = cws::test::slurp(golden("v3-synthetic-4w-audit.xml.cwst"));
  EXPECT_NE(xml.find("<has_locality>1</has_locality>"), std::string::npos);
  EXPECT_NE(xml.find("<unknown_bytes>4096</unknown_bytes>"), std::string::npos);
  EXPECT_NE(xml.find("<relocalization_count>2</relocalization_count>"), std::string::npos);
  EXPECT_NE(xml.find("<backend>simulated</backend>"), std::string::npos);
  const tr::trace_file b = tr::read(golden("v3-synthetic-4w-audit.bin.cwst"));
  EXPECT_EQ(b.header.archive, tr::archive_kind::binary);
  EXPECT_TRUE(tr::identical(b, text));
}

// A real run that declared touches: make_golden's fib(12) under
// "golden-designate", leaves touching an interleaved 16-page array, the
// schedule relocalized (simulated backend) after run #0.
TEST(Golden, V3FibRunHasTheKnownContents) {
  const tr::trace_file f = tr::read(golden("v3-fib12-2w.cwst"));
  EXPECT_EQ(f.header.format_version, 3u);
  EXPECT_EQ(f.header.host, "golden");
  EXPECT_EQ(f.header.topology.source, "synthetic \"pack:2 numa:1 core:1 pu:1\" (CWS_TOPOLOGY)");
  EXPECT_EQ(f.header.options.workers, 2u);
  ASSERT_EQ(f.phases.size(), 3u);
  const st::totals expect[] = {{233, 3, 4, 3}, {233, 0, 1, 1}, {233, 3, 4, 4}};
  const double wall[] = {5.2058000000000002e-05, 4.6789999999999998e-05, 2.7532e-05};
  const std::uint64_t designated[] = {3, 0, 0}, extra[] = {0, 0, 3}, taken_back[] = {4, 5, 5};
  // Locality per run: local bytes, and per node {touched, local}; 16 pages,
  // 64 KiB touched once each, none of unknown home.
  const std::uint64_t local[] = {36864, 53248, 51072};
  const std::vector<cws::node_locality> per_node[] = {
      {{53248, 28672}, {12288, 8192}}, {{65536, 53248}, {0, 0}}, {{63360, 51072}, {2176, 0}}};
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const st::phase_record& r = f.phases[i];
    EXPECT_EQ(r.schedule, "fib");
    EXPECT_EQ(r.iteration, i);
    EXPECT_EQ(r.policy, "golden-designate");
    EXPECT_EQ(r.wall_s, wall[i]);
    EXPECT_EQ(st::summarize(r.steals), expect[i]);
    std::uint64_t d = 0, e = 0, t = 0;
    for (const cws::worker_stats& w : r.stats) d += w.designated, e += w.steals - w.designated, t += w.taken_back;
    EXPECT_EQ(d, designated[i]);
    EXPECT_EQ(e, extra[i]);
    EXPECT_EQ(t, taken_back[i]);
    ASSERT_TRUE(r.locality.has_value());
    EXPECT_EQ(r.locality->pages, 16u);
    EXPECT_EQ(r.locality->touched_bytes, 65536u);
    EXPECT_EQ(r.locality->local_bytes, local[i]);
    EXPECT_EQ(r.locality->unknown_bytes, 0u);
    EXPECT_EQ(r.locality->per_node, per_node[i]);
    EXPECT_EQ(r.relocalizations.size(), i == 0 ? 1u : 0u);
  }
  // The relocalization after run #0 moved the 7 pages node 1 had and node
  // 0's worker used most.
  const cws::relocalization_report& x = f.phases[0].relocalizations.at(0);
  EXPECT_EQ(x.schedule, "fib");
  EXPECT_EQ(x.iteration, 0u);
  EXPECT_EQ(x.backend, "simulated");
  EXPECT_EQ(x.pages_examined, 16u);
  EXPECT_EQ(x.pages_moved, 7u);
  EXPECT_EQ(x.pages_failed, 0u);
  EXPECT_EQ(x.bytes_moved, 7u * 4096u);
  EXPECT_EQ(x.seconds, 1.5719999999999999e-06);
  EXPECT_EQ(f.phases[1].stats[0], (cws::worker_stats{233, 1, 0, 0, 0, 0.0, 0, 5}));
}

// ---------------------------------------------------------------- version 4

// Version 4 changed the layout (header, then one record per run, then an end
// record), not the contents: the synthetic files hold what version 3 held.
TEST(Golden, V4SyntheticFilesAreRecordStreamsOfTheV3Contents) {
  const tr::trace_file v3 = tr::read(golden("v3-synthetic-4w-audit.cwst"));
  const std::pair<const char*, tr::archive_kind> files[] = {{"v4-synthetic-4w-audit.cwst", tr::archive_kind::text},
                                                           {"v4-synthetic-4w-audit.xml.cwst", tr::archive_kind::xml},
                                                           {"v4-synthetic-4w-audit.bin.cwst", tr::archive_kind::binary}};
  for (const auto& [name, kind] : files) {
    SCOPED_TRACE(name);
    const tr::read_report rep = tr::read_with_report(golden(name));
    EXPECT_TRUE(rep.complete()) << rep.summary();
    EXPECT_EQ(rep.records, 3u);  // two runs (their relocalizations inside), the end record
    EXPECT_EQ(rep.file.header.format_version, 4u);
    EXPECT_EQ(rep.file.header.archive, kind);
    EXPECT_TRUE(tr::identical(rep.file, cws::test::synthetic_trace(4)));
    EXPECT_TRUE(tr::identical(rep.file, v3));  // identical() ignores the envelope's version and kind
  }
  const std::string bytes = cws::test::slurp(golden("v4-synthetic-4w-audit.cwst"));
  const std::vector<std::size_t> at = cws::test::record_offsets(bytes);
  ASSERT_EQ(at.size(), 3u);
  EXPECT_EQ(bytes.substr(at[0] + 24, 29), "22 serialization::archive 18 ");  // a whole Boost archive per record
}

// A record stream whose writer was killed inside its last phase record: the
// complete record reads, the report (and read()'s refusal) say where it ends.
TEST(Golden, V4TornStreamReadsItsCompleteRecords) {
  const std::string path = golden("v4-synthetic-4w-audit.torn.cwst");
  const tr::read_report rep = tr::read_with_report(path);
  EXPECT_FALSE(rep.complete());
  ASSERT_TRUE(rep.torn_record.has_value());
  EXPECT_EQ(*rep.torn_record, 2u);
  EXPECT_EQ(rep.records, 1u);
  EXPECT_EQ(rep.summary(), "file ends inside record 2; 1 complete record");
  ASSERT_EQ(rep.file.phases.size(), 1u);
  EXPECT_TRUE(tr::identical(rep.file.phases[0], cws::test::synthetic_trace(4).phases[0]));
  EXPECT_EQ(cws::test::error_of([&] { tr::read(path); }), path + ": file ends inside record 2; 1 complete record");
}

// make_golden's fib(12) run of version 3 again (golden-designate, touches,
// relocalized after run #0), saved and, the same run, streamed while it ran.
TEST(Golden, V4FibRunSavedAndStreamedHaveTheKnownContents) {
  const tr::trace_file f = tr::read(golden("v4-fib12-2w.cwst"));
  EXPECT_EQ(f.header.format_version, 4u);
  EXPECT_EQ(f.header.host, "golden");
  EXPECT_EQ(f.header.created, "2024-01-01T00:00:00Z");
  EXPECT_EQ(f.header.topology.source, "synthetic \"pack:2 numa:1 core:1 pu:1\" (CWS_TOPOLOGY)");
  EXPECT_EQ(f.header.options.workers, 2u);
  ASSERT_EQ(f.phases.size(), 3u);
  const st::totals expect[] = {{233, 2, 3, 3}, {233, 0, 1, 1}, {233, 3, 4, 3}};
  const double wall[] = {3.9990000000000002e-05, 0.003210184, 1.2148e-05};
  const std::uint64_t local[] = {36864, 61440, 49152};
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const st::phase_record& r = f.phases[i];
    EXPECT_EQ(r.schedule, "fib");
    EXPECT_EQ(r.iteration, i);
    EXPECT_EQ(r.policy, "golden-designate");
    EXPECT_EQ(r.wall_s, wall[i]);
    EXPECT_EQ(st::summarize(r.steals), expect[i]);
    ASSERT_TRUE(r.locality.has_value());
    EXPECT_EQ(r.locality->touched_bytes, 65536u);
    EXPECT_EQ(r.locality->local_bytes, local[i]);
    EXPECT_EQ(r.relocalizations.size(), i == 0 ? 1u : 0u);
  }
  EXPECT_EQ(f.phases[0].stats[0], (cws::worker_stats{212, 2, 1, 12, 1, 1.0105000000000001e-05, 1, 4}));
  EXPECT_EQ(f.phases[2].stats[1], (cws::worker_stats{76, 2, 2, 4, 0, 4.6360000000000002e-06, 1, 2}));
  const cws::relocalization_report& x = f.phases[0].relocalizations.at(0);
  EXPECT_EQ(x.backend, "simulated");
  EXPECT_EQ(x.pages_examined, 16u);
  EXPECT_EQ(x.pages_moved, 7u);
  EXPECT_EQ(x.bytes_moved, 7u * 4096u);
  EXPECT_EQ(x.seconds, 1.2219999999999999e-06);
  // Streamed: the relocalization came after run #0 as a record of its own.
  const tr::read_report s = tr::read_with_report(golden("v4-fib12-2w.stream.cwst"));
  EXPECT_TRUE(s.complete()) << s.summary();
  EXPECT_EQ(s.records, 5u);  // three runs, one relocalization, the end record
  EXPECT_EQ(tr::read_with_report(golden("v4-fib12-2w.cwst")).records, 4u);
  EXPECT_TRUE(tr::identical(s.file, f));
}

// ---------------------------------------------------------------- rewriting

const char* const v1_files[] = {"v1-synthetic-4w-audit.cwst", "v1-synthetic-4w-audit.xml.cwst", "v1-fib12-2w.cwst"};
const char* const v2_files[] = {"v2-synthetic-4w-audit.cwst", "v2-synthetic-4w-audit.xml.cwst",
                                "v2-synthetic-4w-audit.bin.cwst", "v2-fib12-2w.cwst"};
const char* const v3_files[] = {"v3-synthetic-4w-audit.cwst", "v3-synthetic-4w-audit.xml.cwst",
                                "v3-synthetic-4w-audit.bin.cwst", "v3-fib12-2w.cwst"};

const char* const v4_files[] = {"v4-synthetic-4w-audit.cwst", "v4-synthetic-4w-audit.xml.cwst",
                                "v4-synthetic-4w-audit.bin.cwst", "v4-fib12-2w.cwst"};

// Reading a golden file of the current version and writing it again gives the
// same bytes: the writer still produces that version exactly. (The streamed
// fib file rewrites as the saved one: relocalizations go inside their run's
// record.)
TEST(Golden, RewritingCurrentVersionFilesIsByteIdentical) {
  if (tr::format_version != 4) GTEST_SKIP() << "format version moved on; v4 files are only read";
  for (const char* name : v4_files) {
    const std::string bytes = cws::test::slurp(golden(name));
    const tr::trace_file f = tr::decode(bytes, name);
    EXPECT_EQ(tr::encode(f, f.header.archive), bytes) << name;
  }
  EXPECT_EQ(tr::encode(tr::read(golden("v4-fib12-2w.stream.cwst"))), cws::test::slurp(golden("v4-fib12-2w.cwst")));
}

// Older files are read, and written again as the current version with the
// same contents (the fields they lack stay 0 or empty).
TEST(Golden, OlderVersionsRewriteAsTheCurrentOne) {
  std::vector<std::pair<const char*, std::uint32_t>> older;
  for (const char* name : v1_files) older.emplace_back(name, 1);
  for (const char* name : v2_files) older.emplace_back(name, 2);
  for (const auto& [name, version] : older) {
    const tr::trace_file f = tr::read(golden(name));
    EXPECT_EQ(f.header.format_version, version) << name;
    for (const st::phase_record& r : f.phases) {
      EXPECT_FALSE(r.locality.has_value()) << name;
      EXPECT_TRUE(r.relocalizations.empty()) << name;
    }
    const std::string bytes = tr::encode(f, f.header.archive);
    EXPECT_EQ(cws::test::get_le(bytes, 8, 4), tr::format_version) << name;
    const tr::trace_file back = tr::decode(bytes, name);
    EXPECT_EQ(back.header.format_version, tr::format_version) << name;
    EXPECT_TRUE(tr::identical(back, f)) << name;
  }
  // Version 3 files keep their reports through the rewrite.
  for (const char* name : v3_files) {
    const tr::trace_file f = tr::read(golden(name));
    EXPECT_EQ(f.header.format_version, 3u) << name;
    const tr::trace_file back = tr::decode(tr::encode(f, f.header.archive), name);
    EXPECT_EQ(back.header.format_version, tr::format_version) << name;
    EXPECT_TRUE(tr::identical(back, f)) << name;
  }
  // The v1 synthetic file rewritten is the v1 content, not the v2 one.
  EXPECT_FALSE(tr::identical(tr::read(golden("v1-synthetic-4w-audit.cwst")), tr::read(golden("v2-synthetic-4w-audit.cwst"))));
  EXPECT_FALSE(
      tr::identical(tr::read(golden("v2-synthetic-4w-audit.cwst")), tr::read(golden("v3-synthetic-4w-audit.cwst"))));
}

}  // namespace
