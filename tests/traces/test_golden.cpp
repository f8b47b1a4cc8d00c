// Golden files: every released format version's files must stay readable
// with the same contents. Never regenerate the files of a released version;
// a new format version adds new files next to them (traces/golden/README.md).
//
// This file: the synthetic files (synthetic.hpp's content as each version
// holds it), what every version shares in a table and, per version, the
// fields it added. The recorded fib runs: test_golden_fib.cpp; rewriting
// older versions as the current one: test_golden_rewrite.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cws/steal_tree/analysis.hpp"
#include "cws/traces/trace_file.hpp"
#include "golden_checks.hpp"
#include "helpers.hpp"
#include "synthetic.hpp"

namespace {

namespace tr = cws::traces;
namespace st = cws::steal_tree;

using namespace cws::test::golden_checks;

// Per format version, its synthetic files: text, XML and (from version 2 on)
// binary archives of the same content, the XML naming the fields the version
// added. Binary archives are not portable (native type sizes and
// endianness): these were written on x86-64 Linux.
struct synthetic_version {
  std::uint32_t version;
  bool binary;
  std::vector<std::string> new_fields_in_xml;
};
const synthetic_version synthetic_versions[] = {
    {1, false, {}},
    {2, true, {"<designated>2</designated>", "<taken_back>3</taken_back>"}},
    {3,
     true,
     {"<has_locality>1</has_locality>", "<unknown_bytes>4096</unknown_bytes>",
      "<relocalization_count>2</relocalization_count>", "<backend>simulated</backend>"}},
    {4, true, {}},
    {5, true, {"<elided>2</elided>", "<path>5</path>", "<path_count>7</path_count>"}},
    {6,
     true,
     {"<source>topology</source>", "<hinted_leaf>6</hinted_leaf>", "<het_inlined>4</het_inlined>",
      "<place_steals>1</place_steals>"}},
};

// Version 4 changed the layout (header, then one record per run, then an end
// record): from then on a complete synthetic file has 3 records (two runs,
// their relocalizations inside, the end record).
void expect_complete(const tr::read_report& rep, std::uint32_t version) {
  EXPECT_TRUE(rep.complete()) << rep.summary();
  if (version >= 4) {
    EXPECT_EQ(rep.records, 3u);
  }
}

// The text file of `version`: of that version, exactly what the generator wrote.
tr::trace_file read_synthetic_text(std::uint32_t version) {
  const tr::read_report rep = tr::read_with_report(golden_of(version, "synthetic-4w-audit.cwst"));
  expect_complete(rep, version);
  const tr::trace_file& f = rep.file;
  EXPECT_EQ(f.header.format_version, version);
  EXPECT_EQ(f.header.archive, tr::archive_kind::text);
  EXPECT_EQ(f.header.host, "synthetic");
  EXPECT_TRUE(tr::identical(f, cws::test::synthetic_trace(version)));
  EXPECT_TRUE(same_pedigrees_and_elided(f, cws::test::synthetic_trace(version)));
  return f;
}

// The other archives of `version` read as its text file, and its XML names
// the fields the version added.
void expect_archives_read_the_same(const synthetic_version& v) {
  const tr::trace_file text = tr::read(golden_of(v.version, "synthetic-4w-audit.cwst"));
  std::vector<std::pair<std::string, tr::archive_kind>> files = {
      {"synthetic-4w-audit.xml.cwst", tr::archive_kind::xml}};
  if (v.binary) files.emplace_back("synthetic-4w-audit.bin.cwst", tr::archive_kind::binary);
  for (const auto& [name, kind] : files) {
    SCOPED_TRACE(name);
    const tr::read_report rep = tr::read_with_report(golden_of(v.version, name));
    expect_complete(rep, v.version);
    EXPECT_EQ(rep.file.header.format_version, v.version);
    EXPECT_EQ(rep.file.header.archive, kind);
    EXPECT_TRUE(tr::identical(rep.file, text));
    EXPECT_TRUE(same_pedigrees_and_elided(rep.file, text));
  }
  const std::string xml = cws::test::slurp(golden_of(v.version, "synthetic-4w-audit.xml.cwst"));
  for (const std::string& field : v.new_fields_in_xml) EXPECT_NE(xml.find(field), std::string::npos) << field;
}

// The torn stream of `version` (from version 4 on), its writer killed inside
// its last phase record: the complete record reads, the report says where the
// file ends.
void read_torn(std::uint32_t version, tr::read_report& rep) {
  rep = tr::read_with_report(golden_of(version, "synthetic-4w-audit.torn.cwst"));
  EXPECT_FALSE(rep.complete());
  EXPECT_EQ(rep.records, 1u);
  EXPECT_EQ(rep.summary(), "file ends inside record 2; 1 complete record");
  ASSERT_EQ(rep.file.phases.size(), 1u);
  EXPECT_TRUE(tr::identical(rep.file.phases[0], cws::test::synthetic_trace(version).phases[0]));
}

// ---------------------------------------------------------------- version 1

TEST(Golden, V1SyntheticTextHasTheKnownContents) {
  const tr::trace_file f = read_synthetic_text(1);
  // Field by field, independently of synthetic.hpp.
  EXPECT_EQ(f.header.cws_version, "0.1.0");
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
  // The schedule distance between the two runs: segment #2's 3 of 18 tasks
  // moved from worker 2 to worker 3, on the same node.
  const st::distance d = st::schedule_distance(r0.steals, f.phases[1].steals, f.header.node_of_worker());
  EXPECT_TRUE(d.exact);
  EXPECT_EQ(d.work, 18u);
  EXPECT_DOUBLE_EQ(d.moved_worker, 3.0 / 18.0);
  EXPECT_DOUBLE_EQ(d.moved_node, 0.0);
}

TEST(Golden, V1SyntheticXmlReadsTheSame) { expect_archives_read_the_same(synthetic_versions[0]); }

// ---------------------------------------------------------------- version 2

TEST(Golden, V2SyntheticTextHasTheKnownContents) {
  const tr::trace_file f = read_synthetic_text(2);
  EXPECT_EQ(f.header.cws_version, "0.1.0");
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
  // The trees are those of version 1: only the statistics grew.
  const tr::trace_file v1 = tr::read(golden("v1-synthetic-4w-audit.cwst"));
  for (std::size_t i = 0; i < 2; ++i) EXPECT_EQ(f.phases[i].steals, v1.phases[i].steals) << i;
}

TEST(Golden, V2SyntheticXmlAndBinaryReadTheSame) { expect_archives_read_the_same(synthetic_versions[1]); }

// ---------------------------------------------------------------- version 3

TEST(Golden, V3SyntheticTextHasTheKnownContents) {
  const tr::trace_file f = read_synthetic_text(3);
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
}

TEST(Golden, V3SyntheticXmlAndBinaryReadTheSame) { expect_archives_read_the_same(synthetic_versions[2]); }

// ---------------------------------------------------------------- version 4

// Version 4 changed the layout, not the contents: the synthetic files hold
// what version 3 held.
TEST(Golden, V4SyntheticFilesAreRecordStreamsOfTheV3Contents) {
  read_synthetic_text(4);
  expect_archives_read_the_same(synthetic_versions[3]);
  const tr::trace_file v3 = tr::read(golden("v3-synthetic-4w-audit.cwst"));
  for (const char* name : {"synthetic-4w-audit.cwst", "synthetic-4w-audit.xml.cwst", "synthetic-4w-audit.bin.cwst"})
    EXPECT_TRUE(tr::identical(tr::read(golden_of(4, name)), v3)) << name;  // identical() ignores version and kind
  const std::string bytes = cws::test::slurp(golden("v4-synthetic-4w-audit.cwst"));
  const std::vector<std::size_t> at = cws::test::record_offsets(bytes);
  ASSERT_EQ(at.size(), 3u);
  EXPECT_EQ(bytes.substr(at[0] + 24, 29), "22 serialization::archive 18 ");  // a whole Boost archive per record
}

// The report (and read()'s refusal) say where a torn stream ends.
TEST(Golden, V4TornStreamReadsItsCompleteRecords) {
  tr::read_report rep;
  ASSERT_NO_FATAL_FAILURE(read_torn(4, rep));
  ASSERT_TRUE(rep.torn_record.has_value());
  EXPECT_EQ(*rep.torn_record, 2u);
  const std::string path = golden("v4-synthetic-4w-audit.torn.cwst");
  EXPECT_EQ(cws::test::error_of([&] { tr::read(path); }), path + ": file ends inside record 2; 1 complete record");
}

// ---------------------------------------------------------------- version 5

// Version 5 added the steal points' pedigrees and worker_stats::elided; the
// rest is the content of version 4.
TEST(Golden, V5SyntheticTextHasTheKnownContents) {
  const tr::trace_file f = read_synthetic_text(5);
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
  // Without the fields version 5 added, it is the version-4 file.
  const tr::trace_file stripped = without_fields_added_in(5, f);
  EXPECT_TRUE(tr::identical(stripped, v4));
  EXPECT_TRUE(same_pedigrees_and_elided(stripped, v4));
}

TEST(Golden, V5SyntheticXmlAndBinaryReadTheSame) { expect_archives_read_the_same(synthetic_versions[4]); }

TEST(Golden, V5TornStreamReadsItsCompleteRecordWithPedigrees) {
  tr::read_report rep;
  ASSERT_NO_FATAL_FAILURE(read_torn(5, rep));
  const st::phase_record& r = rep.file.phases[0];
  EXPECT_EQ(r.steals.paths, cws::test::synthetic_pedigrees());
  EXPECT_EQ(pedigree(r.steals, r.steals.segments[3].steals.at(0)), (std::vector<std::uint32_t>{0, 1}));
}

// ---------------------------------------------------------------- version 6

// Version 6 added the header's place tree and the hinted counters; the rest
// is the content of version 5.
TEST(Golden, V6SyntheticTextHasTheKnownContents) {
  const tr::trace_file f = read_synthetic_text(6);
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
  // Without the fields version 6 added, it is the version-5 file.
  const tr::trace_file v5 = tr::read(golden("v5-synthetic-4w-audit.cwst"));
  EXPECT_TRUE(has_no_v6_fields(v5));
  EXPECT_FALSE(tr::identical(f, v5));
  EXPECT_TRUE(tr::identical(without_fields_added_in(6, f), v5));
  EXPECT_TRUE(same_pedigrees_and_elided(f, v5));
}

TEST(Golden, V6SyntheticXmlAndBinaryReadTheSame) { expect_archives_read_the_same(synthetic_versions[5]); }

TEST(Golden, V6TornStreamKeepsItsHeadersPlaceTree) {
  tr::read_report rep;
  ASSERT_NO_FATAL_FAILURE(read_torn(6, rep));
  EXPECT_EQ(rep.file.header.places, cws::test::synthetic_places());
}

}  // namespace
