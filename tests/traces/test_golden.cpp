// Golden files: every released format version's files must stay readable
// with the same contents. Never regenerate the files of a released version;
// a new format version adds new files next to them (traces/golden/README.md).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <span>
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

// What identical() leaves out of version 5: steal_point's == ignores `path`
// (an offset into its own tree's table) and worker_stats' `elided`. Compares
// both, and the tables: offsets and table together fix every pedigree.
::testing::AssertionResult same_pedigrees_and_elided(const tr::trace_file& a, const tr::trace_file& b) {
  if (a.phases.size() != b.phases.size()) return ::testing::AssertionFailure() << "run counts differ";
  for (std::size_t i = 0; i < a.phases.size(); ++i) {
    const st::phase_record &x = a.phases[i], &y = b.phases[i];
    if (x.steals.paths != y.steals.paths) return ::testing::AssertionFailure() << "run " << i << ": pedigree tables";
    if (x.stats.size() != y.stats.size()) return ::testing::AssertionFailure() << "run " << i << ": worker counts";
    for (std::size_t w = 0; w < x.stats.size(); ++w)
      if (x.stats[w].elided != y.stats[w].elided)
        return ::testing::AssertionFailure()
               << "run " << i << ", worker " << w << ": elided " << x.stats[w].elided << " vs " << y.stats[w].elided;
    if (x.steals.segments.size() != y.steals.segments.size())
      return ::testing::AssertionFailure() << "run " << i << ": segment counts";
    for (std::size_t g = 0; g < x.steals.segments.size(); ++g) {
      const auto &p = x.steals.segments[g].steals, &q = y.steals.segments[g].steals;
      if (p.size() != q.size()) return ::testing::AssertionFailure() << "run " << i << ", segment " << g << ": steals";
      for (std::size_t k = 0; k < p.size(); ++k)
        if (p[k].path != q[k].path)
          return ::testing::AssertionFailure() << "run " << i << ", segment " << g << ", steal " << k << ": path "
                                               << p[k].path << " vs " << q[k].path;
    }
  }
  return ::testing::AssertionSuccess();
}

// The pedigree of a steal point as a vector (path_of gives a span).
std::vector<std::uint32_t> pedigree(const st::tree& t, const st::steal_point& p) {
  const auto ranks = st::path_of(t, p);
  return {ranks.begin(), ranks.end()};
}

// A file of a version before 5: no pedigree anywhere, no elided spawn.
::testing::AssertionResult has_no_v5_fields(const tr::trace_file& f) {
  for (const st::phase_record& r : f.phases) {
    if (!r.steals.paths.empty()) return ::testing::AssertionFailure() << "run " << r.iteration << ": pedigree table";
    for (const st::segment& g : r.steals.segments)
      for (const st::steal_point& p : g.steals)
        if (p.path != st::no_path || !st::path_of(r.steals, p).empty())
          return ::testing::AssertionFailure() << "run " << r.iteration << ": a steal with path " << p.path;
    for (const cws::worker_stats& w : r.stats)
      if (w.elided != 0) return ::testing::AssertionFailure() << "run " << r.iteration << ": elided " << w.elided;
  }
  return ::testing::AssertionSuccess();
}

// A file of a version before 6: no place tree, no hinted counter.
::testing::AssertionResult has_no_v6_fields(const tr::trace_file& f) {
  if (!f.header.places.empty() || !(f.header.places == tr::places_info{}))
    return ::testing::AssertionFailure() << "place tree '" << f.header.places.summary << "'";
  for (const st::phase_record& r : f.phases)
    for (const cws::worker_stats& w : r.stats)
      if (w.hinted_leaf || w.hinted_node || w.hinted_root || w.het_inlined || w.place_steals || w.reclaimed)
        return ::testing::AssertionFailure() << "run " << r.iteration << ": hinted counters";
  return ::testing::AssertionSuccess();
}

// `f` without what version 6 added.
tr::trace_file without_v6_fields(tr::trace_file f) {
  f.header.places = {};
  for (st::phase_record& r : f.phases)
    for (cws::worker_stats& w : r.stats)
      w.hinted_leaf = w.hinted_node = w.hinted_root = w.het_inlined = w.place_steals = w.reclaimed = 0;
  return f;
}

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
  const std::pair<const char*, tr::archive_kind> files[] = {
      {"v4-synthetic-4w-audit.cwst", tr::archive_kind::text},
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

// ---------------------------------------------------------------- version 5

// Version 5 added the steal points' pedigrees and worker_stats::elided; the
// rest is the content of version 4.
TEST(Golden, V5SyntheticTextHasTheKnownContents) {
  const tr::read_report rep = tr::read_with_report(golden("v5-synthetic-4w-audit.cwst"));
  EXPECT_TRUE(rep.complete()) << rep.summary();
  EXPECT_EQ(rep.records, 3u);
  const tr::trace_file& f = rep.file;
  EXPECT_EQ(f.header.format_version, 5u);
  EXPECT_EQ(f.header.archive, tr::archive_kind::text);
  EXPECT_EQ(f.header.host, "synthetic");
  ASSERT_EQ(f.phases.size(), 2u);
  const tr::trace_file v4 = tr::read(golden("v4-synthetic-4w-audit.cwst"));
  for (std::size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    const st::phase_record& r = f.phases[i];
    // The pedigrees, field by field: both runs have the same tree shape.
    EXPECT_EQ(r.steals.paths, (std::vector<std::uint32_t>{0, 1, 2, 0, 0, 0, 1}));
    const std::vector<st::segment>& g = r.steals.segments;
    ASSERT_EQ(g.size(), 6u);
    ASSERT_EQ(g[0].steals.size(), 3u);
    EXPECT_EQ(g[0].steals[0].path, 0u);
    EXPECT_EQ(g[0].steals[1].path, 1u);
    EXPECT_EQ(g[0].steals[2].path, 2u);
    EXPECT_EQ(pedigree(r.steals, g[0].steals[0]), (std::vector<std::uint32_t>{0}));
    EXPECT_EQ(pedigree(r.steals, g[0].steals[1]), (std::vector<std::uint32_t>{1}));
    EXPECT_EQ(pedigree(r.steals, g[0].steals[2]), (std::vector<std::uint32_t>{2, 0}));
    ASSERT_EQ(g[1].steals.size(), 1u);
    EXPECT_EQ(g[1].steals[0].path, 4u);
    EXPECT_EQ(pedigree(r.steals, g[1].steals[0]), (std::vector<std::uint32_t>{0}));
    ASSERT_EQ(g[3].steals.size(), 1u);
    EXPECT_EQ(g[3].steals[0].path, 5u);
    EXPECT_EQ(pedigree(r.steals, g[3].steals[0]), (std::vector<std::uint32_t>{0, 1}));
    // Everything else is version 4's: the same segments (steal_point's ==
    // ignores `path`), worker lists, audit records, reports.
    const st::phase_record& old = v4.phases[i];
    EXPECT_EQ(g, old.steals.segments);
    EXPECT_EQ(r.steals.worker_segments, old.steals.worker_segments);
    EXPECT_EQ(r.steals.audit, old.steals.audit);
    EXPECT_EQ(r.locality, old.locality);
    EXPECT_EQ(r.relocalizations.size(), old.relocalizations.size());
    ASSERT_EQ(r.stats.size(), 4u);
    for (std::size_t w = 0; w < 4; ++w) {
      cws::worker_stats expect = old.stats[w];
      expect.elided = i == 1 && w == 0 ? 2 : i == 1 && w == 3 ? 1 : 0;  // stows ran (run #1) elided on workers 0 and 3
      EXPECT_EQ(r.stats[w], expect) << "worker " << w;
    }
  }
  EXPECT_TRUE(tr::identical(f, cws::test::synthetic_trace(5)));
  EXPECT_TRUE(same_pedigrees_and_elided(f, cws::test::synthetic_trace(5)));
  // Without the fields version 5 added, it is the version-4 file.
  tr::trace_file stripped = f;
  for (st::phase_record& r : stripped.phases) {
    r.steals.paths.clear();
    for (st::segment& g : r.steals.segments)
      for (st::steal_point& p : g.steals) p.path = st::no_path;
    for (cws::worker_stats& w : r.stats) w.elided = 0;
  }
  EXPECT_TRUE(tr::identical(stripped, v4));
  EXPECT_TRUE(same_pedigrees_and_elided(stripped, v4));
}

TEST(Golden, V5SyntheticXmlAndBinaryReadTheSame) {
  const tr::trace_file text = tr::read(golden("v5-synthetic-4w-audit.cwst"));
  const std::pair<const char*, tr::archive_kind> files[] = {
      {"v5-synthetic-4w-audit.xml.cwst", tr::archive_kind::xml},
      {"v5-synthetic-4w-audit.bin.cwst", tr::archive_kind::binary}};
  for (const auto& [name, kind] : files) {
    SCOPED_TRACE(name);
    const tr::trace_file f = tr::read(golden(name));
    EXPECT_EQ(f.header.format_version, 5u);
    EXPECT_EQ(f.header.archive, kind);
    EXPECT_TRUE(tr::identical(f, text));
    EXPECT_TRUE(same_pedigrees_and_elided(f, text));
  }
  // The XML shows the new fields by name.
  const std::string xml = cws::test::slurp(golden("v5-synthetic-4w-audit.xml.cwst"));
  EXPECT_NE(xml.find("<elided>2</elided>"), std::string::npos);
  EXPECT_NE(xml.find("<path>5</path>"), std::string::npos);
  EXPECT_NE(xml.find("<path_count>7</path_count>"), std::string::npos);
}

TEST(Golden, V5TornStreamReadsItsCompleteRecordWithPedigrees) {
  const tr::read_report rep = tr::read_with_report(golden("v5-synthetic-4w-audit.torn.cwst"));
  EXPECT_EQ(rep.summary(), "file ends inside record 2; 1 complete record");
  ASSERT_EQ(rep.file.phases.size(), 1u);
  const st::phase_record& r = rep.file.phases[0];
  EXPECT_TRUE(tr::identical(r, cws::test::synthetic_trace(5).phases[0]));
  EXPECT_EQ(r.steals.paths, cws::test::synthetic_pedigrees());
  EXPECT_EQ(pedigree(r.steals, r.steals.segments[3].steals.at(0)), (std::vector<std::uint32_t>{0, 1}));
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

// make_golden's fib(12) run again (golden-designate, touches, relocalized
// after run #0), saved and streamed; the runtime recorded every steal's
// pedigree itself. golden-designate does not elide: every `elided` is 0.
TEST(Golden, V5FibRunSavedAndStreamedHaveTheKnownContents) {
  const tr::trace_file f = tr::read(golden("v5-fib12-2w.cwst"));
  EXPECT_EQ(f.header.format_version, 5u);
  EXPECT_EQ(f.header.host, "golden");
  EXPECT_EQ(f.header.created, "2024-01-01T00:00:00Z");
  EXPECT_EQ(f.header.options.workers, 2u);
  ASSERT_EQ(f.phases.size(), 3u);
  const st::totals expect[] = {{233, 3, 4, 3}, {233, 2, 3, 3}, {233, 7, 8, 8}};
  const double wall[] = {5.4341e-05, 2.4505999999999999e-05, 2.1953000000000001e-05};
  const std::uint64_t local[] = {36800, 65536, 46112};
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const st::phase_record& r = f.phases[i];
    EXPECT_EQ(r.policy, "golden-designate");
    EXPECT_EQ(r.wall_s, wall[i]);
    EXPECT_EQ(st::summarize(r.steals), expect[i]);
    ASSERT_TRUE(r.locality.has_value());
    EXPECT_EQ(r.locality->local_bytes, local[i]);
    EXPECT_EQ(r.relocalizations.size(), i == 0 ? 1u : 0u);
    for (const cws::worker_stats& w : r.stats) EXPECT_EQ(w.elided, 0u);
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
  EXPECT_EQ(f.phases[0].stats[0], (cws::worker_stats{213, 3, 2, 26, 2, 1.6473999999999998e-05, 1, 4, 0}));
  EXPECT_EQ(f.phases[2].stats[1], (cws::worker_stats{101, 4, 4, 25, 3, 8.4440000000000008e-06, 2, 3, 0}));
  const cws::relocalization_report& x = f.phases[0].relocalizations.at(0);
  EXPECT_EQ(x.pages_moved, 7u);
  EXPECT_EQ(x.bytes_moved, 7u * 4096u);
  EXPECT_EQ(x.seconds, 1.6020000000000001e-06);
  // Streamed: the same runs, pedigrees included, the relocalization a record of its own.
  const tr::read_report s = tr::read_with_report(golden("v5-fib12-2w.stream.cwst"));
  EXPECT_TRUE(s.complete()) << s.summary();
  EXPECT_EQ(s.records, 5u);
  EXPECT_TRUE(tr::identical(s.file, f));
  EXPECT_TRUE(same_pedigrees_and_elided(s.file, f));
}

// ---------------------------------------------------------------- version 6

// Version 6 added the header's place tree and the hinted counters; the rest
// is the content of version 5.
TEST(Golden, V6SyntheticTextHasTheKnownContents) {
  const tr::read_report rep = tr::read_with_report(golden("v6-synthetic-4w-audit.cwst"));
  EXPECT_TRUE(rep.complete()) << rep.summary();
  EXPECT_EQ(rep.records, 3u);
  const tr::trace_file& f = rep.file;
  EXPECT_EQ(f.header.format_version, 6u);
  EXPECT_EQ(f.header.archive, tr::archive_kind::text);
  // The place tree, field by field.
  const tr::places_info& p = f.header.places;
  EXPECT_EQ(p.summary, "root -> 2 nodes -> 0 L3 groups -> 4 workers (topology)");
  EXPECT_EQ(p.source, "topology");
  EXPECT_EQ(p.numa_of_node, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(p.node_of_worker, (std::vector<std::uint32_t>{0, 0, 1, 1}));
  EXPECT_EQ(p.leaf_of_worker, (std::vector<std::uint32_t>{0, 0, 1, 1}));
  // The counters: run #0 only.
  ASSERT_EQ(f.phases.size(), 2u);
  const auto counters = [](const cws::worker_stats& w) {
    return std::vector<std::uint64_t>{w.hinted_leaf, w.hinted_node,  w.hinted_root,
                                      w.het_inlined, w.place_steals, w.reclaimed};
  };
  using C = std::vector<std::uint64_t>;
  EXPECT_EQ(counters(f.phases[0].stats[0]), (C{6, 2, 1, 4, 0, 1}));
  EXPECT_EQ(counters(f.phases[0].stats[1]), (C{0, 0, 0, 0, 1, 0}));
  EXPECT_EQ(counters(f.phases[0].stats[2]), (C{0, 3, 0, 0, 1, 0}));
  EXPECT_EQ(counters(f.phases[0].stats[3]), (C{0, 0, 0, 0, 1, 0}));
  for (const cws::worker_stats& w : f.phases[1].stats) EXPECT_EQ(counters(w), C(6, 0));
  EXPECT_TRUE(tr::identical(f, cws::test::synthetic_trace(6)));
  EXPECT_TRUE(same_pedigrees_and_elided(f, cws::test::synthetic_trace(6)));
  // Without the fields version 6 added, it is the version-5 file.
  const tr::trace_file v5 = tr::read(golden("v5-synthetic-4w-audit.cwst"));
  EXPECT_TRUE(has_no_v6_fields(v5));
  EXPECT_FALSE(tr::identical(f, v5));
  EXPECT_TRUE(tr::identical(without_v6_fields(f), v5));
  EXPECT_TRUE(same_pedigrees_and_elided(f, v5));
}

TEST(Golden, V6SyntheticXmlAndBinaryReadTheSame) {
  const tr::trace_file text = tr::read(golden("v6-synthetic-4w-audit.cwst"));
  const std::pair<const char*, tr::archive_kind> files[] = {
      {"v6-synthetic-4w-audit.xml.cwst", tr::archive_kind::xml},
      {"v6-synthetic-4w-audit.bin.cwst", tr::archive_kind::binary}};
  for (const auto& [name, kind] : files) {
    SCOPED_TRACE(name);
    const tr::trace_file f = tr::read(golden(name));
    EXPECT_EQ(f.header.format_version, 6u);
    EXPECT_EQ(f.header.archive, kind);
    EXPECT_TRUE(tr::identical(f, text));
    EXPECT_TRUE(same_pedigrees_and_elided(f, text));
  }
  // The XML shows the new fields by name.
  const std::string xml = cws::test::slurp(golden("v6-synthetic-4w-audit.xml.cwst"));
  EXPECT_NE(xml.find("<source>topology</source>"), std::string::npos);
  EXPECT_NE(xml.find("<hinted_leaf>6</hinted_leaf>"), std::string::npos);
  EXPECT_NE(xml.find("<het_inlined>4</het_inlined>"), std::string::npos);
  EXPECT_NE(xml.find("<place_steals>1</place_steals>"), std::string::npos);
}

TEST(Golden, V6TornStreamKeepsItsHeadersPlaceTree) {
  const tr::read_report rep = tr::read_with_report(golden("v6-synthetic-4w-audit.torn.cwst"));
  EXPECT_EQ(rep.summary(), "file ends inside record 2; 1 complete record");
  EXPECT_EQ(rep.file.header.places, cws::test::synthetic_places());
  ASSERT_EQ(rep.file.phases.size(), 1u);
  EXPECT_TRUE(tr::identical(rep.file.phases[0], cws::test::synthetic_trace(6).phases[0]));
}

// make_golden's fib(12) run of version 5 again, now with the runtime's place
// tree in the header: 2 workers on "pack:2 numa:1 core:1 pu:1", each node its
// own leaf. golden-designate routes no hinted spawn: every counter is 0.
TEST(Golden, V6FibRunSavedAndStreamedHaveTheKnownContents) {
  const tr::trace_file f = tr::read(golden("v6-fib12-2w.cwst"));
  EXPECT_EQ(f.header.format_version, 6u);
  EXPECT_EQ(f.header.host, "golden");
  EXPECT_EQ(f.header.options.workers, 2u);
  const tr::places_info& p = f.header.places;
  EXPECT_EQ(p.summary, "root -> 2 nodes -> 0 L3 groups -> 2 workers (topology)");
  EXPECT_EQ(p.source, "topology");
  EXPECT_EQ(p.numa_of_node, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(p.node_of_worker, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(p.leaf_of_worker, (std::vector<std::uint32_t>{0, 1}));
  ASSERT_EQ(f.phases.size(), 3u);
  const st::totals expect[] = {{233, 2, 3, 3}, {233, 3, 4, 4}, {233, 7, 8, 5}};
  const double wall[] = {7.1186000000000006e-05, 3.1216000000000001e-05, 2.7640999999999998e-05};
  const std::uint64_t local[] = {32768, 44544, 52736};
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const st::phase_record& r = f.phases[i];
    EXPECT_EQ(r.policy, "golden-designate");
    EXPECT_EQ(r.wall_s, wall[i]);
    EXPECT_EQ(st::summarize(r.steals), expect[i]);
    ASSERT_TRUE(r.locality.has_value());
    EXPECT_EQ(r.locality->local_bytes, local[i]);
    EXPECT_EQ(r.relocalizations.size(), i == 0 ? 1u : 0u);
    for (const cws::worker_stats& w : r.stats) EXPECT_EQ(w.elided, 0u);
  }
  for (const st::phase_record& r : f.phases)
    for (const cws::worker_stats& w : r.stats)
      EXPECT_EQ(w.hinted_leaf + w.hinted_node + w.hinted_root + w.het_inlined + w.place_steals + w.reclaimed, 0u);
  EXPECT_EQ(f.phases[0].stats[0], (cws::worker_stats{178, 2, 1, 15, 1, 8.8730000000000013e-06, 1, 3, 0}));
  EXPECT_EQ(f.phases[2].stats[1], (cws::worker_stats{118, 3, 3, 32, 2, 1.218e-05, 1, 4, 0}));
  EXPECT_EQ(f.phases[1].steals.paths, (std::vector<std::uint32_t>{0, 0, 0, 0, 0, 0, 0}));
  const cws::relocalization_report& x = f.phases[0].relocalizations.at(0);
  EXPECT_EQ(x.pages_moved, 8u);
  EXPECT_EQ(x.bytes_moved, 8u * 4096u);
  // Streamed: the same header (place tree included) and runs.
  const tr::read_report s = tr::read_with_report(golden("v6-fib12-2w.stream.cwst"));
  EXPECT_TRUE(s.complete()) << s.summary();
  EXPECT_EQ(s.records, 5u);
  EXPECT_EQ(s.file.header.places, p);
  EXPECT_TRUE(tr::identical(s.file, f));
  EXPECT_TRUE(same_pedigrees_and_elided(s.file, f));
}

// ---------------------------------------------------------------- rewriting

// The saved golden files of format version `v` (traces/golden/README.md):
// synthetic text, XML and (from version 2 on) binary, and the fib run.
std::vector<std::string> saved_files_of(std::uint32_t v) {
  const std::string p = "v" + std::to_string(v) + "-";
  std::vector<std::string> names{p + "synthetic-4w-audit.cwst", p + "synthetic-4w-audit.xml.cwst"};
  if (v >= 2) names.push_back(p + "synthetic-4w-audit.bin.cwst");
  names.push_back(p + "fib12-2w.cwst");
  return names;
}

// Reading a golden file of the current version and writing it again gives the
// same bytes: the writer still produces that version exactly. (The streamed
// fib file rewrites as the saved one: relocalizations go inside their run's
// record.) A new format version without golden files fails here.
TEST(Golden, RewritingCurrentVersionFilesIsByteIdentical) {
  for (const std::string& name : saved_files_of(tr::format_version)) {
    const std::string bytes = cws::test::slurp(golden(name));
    ASSERT_FALSE(bytes.empty()) << name << " is missing: write the current version's files with "
                                << "cws_traces_make_golden (traces/golden/README.md)";
    const tr::trace_file f = tr::decode(bytes, name);
    EXPECT_EQ(f.header.format_version, tr::format_version) << name;
    EXPECT_EQ(tr::encode(f, f.header.archive), bytes) << name;
  }
  const std::string fib = "v" + std::to_string(tr::format_version) + "-fib12-2w";
  EXPECT_EQ(tr::encode(tr::read(golden(fib + ".stream.cwst"))), cws::test::slurp(golden(fib + ".cwst")));
}

// Older files are read, and written again as the current version with the
// same contents: the fields they lack stay 0, empty or unknown (before version
// 3 no locality report or relocalization; before version 5 no pedigree, an
// empty pedigree table and 0 elided spawns; before version 6 no place tree and
// 0 hinted counters), and stay so through the rewrite.
TEST(Golden, OlderVersionsRewriteAsTheCurrentOne) {
  for (std::uint32_t version = 1; version < tr::format_version; ++version) {
    std::vector<std::string> names = saved_files_of(version);
    if (version >= 4) names.push_back("v" + std::to_string(version) + "-fib12-2w.stream.cwst");
    for (const std::string& name : names) {
      SCOPED_TRACE(name);
      const tr::trace_file f = tr::read(golden(name));
      EXPECT_EQ(f.header.format_version, version);
      if (version < 3)
        for (const st::phase_record& r : f.phases) {
          EXPECT_FALSE(r.locality.has_value());
          EXPECT_TRUE(r.relocalizations.empty());
        }
      if (version < 5) {
        EXPECT_TRUE(has_no_v5_fields(f));
      }
      if (version < 6) {
        EXPECT_TRUE(has_no_v6_fields(f));
      }
      const std::string bytes = tr::encode(f, f.header.archive);
      EXPECT_EQ(cws::test::get_le(bytes, 8, 4), tr::format_version);
      const tr::trace_file back = tr::decode(bytes, name);
      EXPECT_EQ(back.header.format_version, tr::format_version);
      EXPECT_TRUE(tr::identical(back, f));
      EXPECT_TRUE(same_pedigrees_and_elided(back, f));
    }
  }
  // Each version's synthetic content differs from the next one's: the v1
  // file rewritten is the v1 content, not the v2 one; the v4 one has no
  // pedigrees (identical() compares the tables).
  for (std::uint32_t version = 1; version < tr::format_version; ++version) {
    const std::string a = "v" + std::to_string(version) + "-synthetic-4w-audit.cwst";
    const std::string b = "v" + std::to_string(version + 1) + "-synthetic-4w-audit.cwst";
    const bool same_content = version == 3;  // version 4 changed the layout, not the contents
    EXPECT_EQ(tr::identical(tr::read(golden(a)), tr::read(golden(b))), same_content) << a << " vs " << b;
  }
}

}  // namespace
