// The trace file format: round trips through every archive kind, the
// envelope's refusals (foreign, truncated, too new, damaged), the limits on
// counts, and the validation of loaded data.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "cws/traces/trace_file.hpp"
#include "helpers.hpp"
#include "synthetic.hpp"

namespace {

namespace tr = cws::traces;
namespace st = cws::steal_tree;
using namespace cws::test;  // the suite's helpers (helpers.hpp, synthetic.hpp)

// A trace whose values stress the encodings: extreme integers, doubles that
// need all 17 digits, subnormals, strings with spaces, quotes, XML markup,
// newlines and non-ASCII bytes.
tr::trace_file awkward_trace() {
  tr::trace_file f = synthetic_trace();
  f.header.host = "host with spaces <&> \"quotes\"\nand a newline \xC3\xA9";
  f.header.cws_version = "";
  f.header.options.seed = std::numeric_limits<std::uint64_t>::max();
  f.header.options.pin = false;
  f.header.options.idle = "sleep";
  st::phase_record& r = f.phases[0];
  r.schedule = "phase </schedule> & \"x\"";
  r.iteration = std::numeric_limits<std::uint64_t>::max() - 1;
  r.wall_s = 0.1 + 0.2;  // 0.30000000000000004
  r.stats[1].idle_s = std::numeric_limits<double>::denorm_min();
  // The largest values validate() accepts (tr::limits: a larger count or
  // time is a damaged or forged file).
  r.stats[2].idle_s = std::nextafter(tr::limits::seconds, 0.0);
  r.stats[3].failed_steals = tr::limits::counter;
  r.steals.segments[0].end_ns = static_cast<std::uint64_t>(tr::limits::seconds * 1e9);
  // Locality counts whose sums reach 2^64 - 1 exactly; a relocalization time
  // that is subnormal, a backend name with markup.
  constexpr std::uint64_t top = std::uint64_t{1} << 63;
  r.locality->per_node = {{top, top - 5}, {top - 1, 0}};
  r.locality->touched_bytes = std::numeric_limits<std::uint64_t>::max();
  r.locality->local_bytes = top - 5;
  r.locality->unknown_bytes = top;
  r.locality->pages = std::numeric_limits<std::uint64_t>::max();
  for (cws::relocalization_report& x : r.relocalizations) {
    x.schedule = r.schedule;
    x.iteration = r.iteration;
    x.backend = "kernel <move_pages> & \"auto\"";
  }
  r.relocalizations[0].seconds = std::numeric_limits<double>::denorm_min();
  return f;
}

TEST(TraceFile, RoundTripEveryArchiveKindIsBitIdentical) {
  for (const tr::trace_file& original : {synthetic_trace(), awkward_trace()}) {
    for (tr::archive_kind kind : all_kinds) {
      SCOPED_TRACE(std::string(tr::to_string(kind)));
      const std::string bytes = tr::encode(original, kind);
      const tr::trace_file back = tr::decode(bytes, "mem.cwst");
      EXPECT_TRUE(tr::identical(original, back));
      ASSERT_EQ(back.phases.size(), original.phases.size());
      for (std::size_t i = 0; i < back.phases.size(); ++i) {
        EXPECT_TRUE(tr::identical(original.phases[i], back.phases[i])) << "phase " << i;
        EXPECT_EQ(original.phases[i].steals, back.phases[i].steals);
        EXPECT_EQ(original.phases[i].locality, back.phases[i].locality);
        EXPECT_EQ(original.phases[i].relocalizations, back.phases[i].relocalizations);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(original.phases[i].wall_s),
                  std::bit_cast<std::uint64_t>(back.phases[i].wall_s));
      }
      EXPECT_EQ(back.header.format_version, tr::format_version);
      EXPECT_EQ(back.header.archive, kind);
      EXPECT_EQ(back.header.host, original.header.host);
      EXPECT_EQ(back.header.options, original.header.options);
      EXPECT_EQ(back.header.topology, original.header.topology);
      // Encoding is deterministic: the same data gives the same bytes.
      EXPECT_EQ(tr::encode(back, kind), bytes);
    }
  }
}

TEST(TraceFile, IdenticalSeesEveryDifference) {
  const tr::trace_file a = synthetic_trace();
  tr::trace_file b = a;
  EXPECT_TRUE(tr::identical(a, b));
  b.phases[1].stats[2].idle_s = std::nextafter(b.phases[1].stats[2].idle_s, 1.0);
  EXPECT_FALSE(tr::identical(a, b));
  b = a;
  b.phases[0].steals.audit[3].step ^= 1;
  EXPECT_FALSE(tr::identical(a, b));
  b = a;
  b.header.placement[3].pin_pu = 9;
  EXPECT_FALSE(tr::identical(a, b));
  b = a;
  b.phases[0].stats[1].designated = 0;
  EXPECT_FALSE(tr::identical(a, b));
  b = a;
  b.phases[1].stats[0].taken_back = 5;
  EXPECT_FALSE(tr::identical(a, b));
  b = a;
  b.phases[0].stats[2].place_steals = 0;  // version 6: the hinted counters and the place tree
  EXPECT_FALSE(tr::identical(a, b));
  b = a;
  b.phases[1].stats[3].reclaimed = 1;
  EXPECT_FALSE(tr::identical(a, b));
  b = a;
  b.header.places.leaf_of_worker = {0, 1, 2, 3};
  EXPECT_FALSE(tr::identical(a, b));
  b = a;
  b.header.places.source = "hpt.xml";
  EXPECT_FALSE(tr::identical(a, b));
  // -0.0 and 0.0 compare equal as doubles but not bit for bit.
  b = a;
  b.phases[0].stats[0].idle_s = -0.0;
  EXPECT_FALSE(tr::identical(a, b));
}

TEST(TraceFile, WriteAndReadFilesOfEveryKind) {
  cws::test::scratch_dir dir;
  const tr::trace_file f = synthetic_trace();
  for (tr::archive_kind kind : all_kinds) {
    const std::string path = dir.file(std::string("t.") + std::string(tr::to_string(kind)) + ".cwst");
    tr::write(path, f, kind);
    EXPECT_TRUE(cws::test::leftover_temporaries(path).empty());
    const tr::trace_file back = tr::read(path);
    EXPECT_TRUE(tr::identical(f, back));
    EXPECT_EQ(back.header.archive, kind);
  }
  // The default is the portable text archive.
  tr::write(dir.file("d.cwst"), f);
  EXPECT_EQ(tr::read(dir.file("d.cwst")).header.archive, tr::archive_kind::text);
}

TEST(TraceFile, EnvelopeLayoutIsAsDocumented) {
  const std::string b = tr::encode(synthetic_trace(), tr::archive_kind::xml);
  ASSERT_GT(b.size(), tr::envelope::size);
  EXPECT_EQ(b.substr(0, 8), std::string("\x89"
                                        "CWST\r\n\x1a",
                                        8));
  EXPECT_EQ(cws::test::get_le(b, 8, 4), tr::format_version);
  EXPECT_EQ(cws::test::get_le(b, 12, 4), 2u);  // xml
  // Version 4: the envelope's payload is the header; the records follow it.
  const std::size_t header = cws::test::get_le(b, 16, 8);
  const std::string_view head = std::string_view(b).substr(32, header);
  EXPECT_EQ(cws::test::get_le(b, 24, 4), tr::crc32(head));
  EXPECT_EQ(cws::test::get_le(b, 28, 4), tr::crc32(std::string_view(b).substr(0, 28)));
  // The header is a Boost XML archive, and so is each phase record.
  EXPECT_NE(head.find("<boost_serialization"), std::string::npos);
  EXPECT_NE(head.find("<cws_version>0.1.0</cws_version>"), std::string::npos);
  const std::vector<std::size_t> at = cws::test::record_offsets(b);
  ASSERT_EQ(at.size(), 3u);  // two runs, the end record
  EXPECT_EQ(at[0], 32 + header);
  EXPECT_EQ(b.substr(at[0], 4), std::string("\x89"
                                            "REC",
                                            4));
  EXPECT_EQ(cws::test::get_le(b, at[0] + 4, 4), 1u);  // a phase run
  const std::size_t length = cws::test::get_le(b, at[0] + 8, 8);
  const std::string_view record = std::string_view(b).substr(at[0] + 24, length);
  EXPECT_EQ(cws::test::get_le(b, at[0] + 16, 4), tr::crc32(record));
  EXPECT_EQ(cws::test::get_le(b, at[0] + 20, 4), tr::crc32(std::string_view(b).substr(at[0], 20)));
  EXPECT_NE(record.find("<schedule>stencil</schedule>"), std::string::npos);
  EXPECT_EQ(cws::test::get_le(b, at[2] + 4, 4), 3u);   // the end record
  EXPECT_EQ(cws::test::get_le(b, at[2] + 24, 8), 2u);  // counts the two records before it
  EXPECT_EQ(at[2] + 32, b.size());
  // CRC-32 check value (zlib's crc32 of "123456789").
  EXPECT_EQ(tr::crc32("123456789"), 0xCBF43926u);
}

// crc32(bytes, crc) resumes an earlier result, as zlib's crc32 does.
TEST(TraceFile, Crc32ResumesFromAnEarlierResult) {
  EXPECT_EQ(tr::crc32("56789", tr::crc32("1234")), 0xCBF43926u);
  EXPECT_EQ(tr::crc32("", 0xCBF43926u), 0xCBF43926u);
  EXPECT_EQ(tr::crc32("", 0u), 0u);
}

TEST(TraceFile, TooNewFormatVersionIsRefused) {
  const std::string good = tr::encode(synthetic_trace());
  const std::string newer = wrap(payload_of(good), 1, 7);
  const std::string v = std::to_string(tr::format_version);
  EXPECT_EQ(error_of([&] { tr::decode(newer, "y.cwst"); }),
            "y.cwst: format version 7 is newer than this cws (reads up to " + v + ")");
  const std::string next = wrap(payload_of(good), 1, tr::format_version + 1);
  EXPECT_EQ(error_of([&] { tr::decode(next, "y.cwst"); }), "y.cwst: format version " +
                                                               std::to_string(tr::format_version + 1) +
                                                               " is newer than this cws (reads up to " + v + ")");
  const std::string zero = wrap(payload_of(good), 1, 0);
  EXPECT_EQ(error_of([&] { tr::decode(zero, "z.cwst"); }),
            "z.cwst: format version 0 is not readable (this cws reads 1 to " + v + ")");
}

// The envelope's version decides which fields are read: the statistics of a
// version-1 payload have no designated / taken_back, a version-2 payload has
// them. A payload under the wrong version number does not load.
TEST(TraceFile, VersionDecidesWhichStatsFieldsAreRead) {
  static_assert(tr::format_version >= 2);
  const tr::trace_file v2 = synthetic_trace(2);
  ASSERT_EQ(v2.phases[0].stats[1].designated, 1u);
  ASSERT_EQ(v2.phases[0].stats[2].taken_back, 3u);
  for (tr::archive_kind kind : all_kinds) {
    SCOPED_TRACE(std::string(tr::to_string(kind)));
    const std::string bytes = tr::encode(v2, kind);
    EXPECT_EQ(cws::test::get_le(bytes, 8, 4), tr::format_version);
    const tr::trace_file back = tr::decode(bytes, "v2.cwst");
    EXPECT_TRUE(tr::identical(back, v2));
    EXPECT_EQ(back.phases[1].stats[3].designated, 2u);
    // The same payload labelled version 1: the extra fields are read as
    // what follows the statistics in version 1 (or, in XML, are not the tags
    // version 1 expects): refused in one line, not misread.
    const std::string as_v1 = wrap(whole_payload(v2, kind), static_cast<std::uint32_t>(kind), 1);
    const std::string msg = error_of([&] { tr::decode(as_v1, "v1.cwst"); });
    EXPECT_EQ(msg.rfind("v1.cwst: ", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  // A version-1 payload (statistics without the new fields) reads as 0s.
  const std::string v1_bytes = cws::test::slurp(cws::test::golden("v1-synthetic-4w-audit.cwst"));
  const tr::trace_file v1 = tr::decode(v1_bytes, "v1.cwst");
  EXPECT_EQ(v1.header.format_version, 1u);
  EXPECT_TRUE(tr::identical(v1, synthetic_trace(1)));
  for (const auto& r : v1.phases)
    for (const cws::worker_stats& w : r.stats) {
      EXPECT_EQ(w.designated, 0u);
      EXPECT_EQ(w.taken_back, 0u);
    }
  // ... and labelled version 2 it is refused.
  const std::string msg = error_of([&] { tr::decode(wrap(payload_of(v1_bytes), 1, 2), "x.cwst"); });
  EXPECT_EQ(msg.rfind("x.cwst: ", 0), 0u) << msg;
  // Rewriting a version-1 file writes the current version, with the 0s.
  const tr::trace_file again = tr::decode(tr::encode(v1), "again.cwst");
  EXPECT_EQ(again.header.format_version, tr::format_version);
  EXPECT_TRUE(tr::identical(again, v1));
}

// Version 6: the header's place tree and the six hinted counters survive
// every archive kind field by field; a version-5 payload has neither.
TEST(TraceFile, PlaceTreeAndHintedCountersRoundTrip) {
  static_assert(tr::format_version >= 6);
  tr::trace_file f = synthetic_trace();
  // An HPT file's tree: 2 nodes of 2 L3 leaves, the last worker alone in its leaf.
  f.header.places.summary = "root -> 2 nodes -> 3 L3 groups -> 4 workers (/etc/cws/hippo.xml)";
  f.header.places.source = "/etc/cws/hippo.xml";
  f.header.places.numa_of_node = {1, 0};
  f.header.places.node_of_worker = {0, 0, 1, 1};
  f.header.places.leaf_of_worker = {0, 0, 1, 2};
  cws::worker_stats& s = f.phases[1].stats[2];
  s.hinted_leaf = 11;
  s.hinted_node = 12;
  s.hinted_root = 13;
  s.het_inlined = 9;
  s.place_steals = 1;
  s.reclaimed = tr::limits::counter;  // the largest accepted
  for (tr::archive_kind kind : all_kinds) {
    SCOPED_TRACE(std::string(tr::to_string(kind)));
    const tr::trace_file back = tr::decode(tr::encode(f, kind), "v6.cwst");
    EXPECT_TRUE(tr::identical(back, f));
    EXPECT_EQ(back.header.places, f.header.places);
    for (std::size_t i = 0; i < 2; ++i) EXPECT_EQ(back.phases[i].stats, f.phases[i].stats) << "run " << i;
  }
  // The same content written as version 5 (the payload a cws of that version
  // wrote) reads with an empty place tree and 0 counters.
  const std::string as_v5 = cws::test::slurp(cws::test::golden("v5-synthetic-4w-audit.cwst"));
  const tr::trace_file v5 = tr::decode(as_v5, "v5.cwst");
  EXPECT_TRUE(v5.header.places.empty());
  EXPECT_EQ(v5.header.places, tr::places_info{});
  for (const auto& r : v5.phases)
    for (const cws::worker_stats& w : r.stats)
      EXPECT_EQ(w.hinted_leaf + w.hinted_node + w.hinted_root + w.het_inlined + w.place_steals + w.reclaimed, 0u);
}

// A place tree that does not fit the header is refused on writing, in one line.
TEST(TraceFile, InconsistentPlaceTreesAreRefused) {
  const auto refused = [](void (*damage)(tr::places_info&)) {
    tr::trace_file f = synthetic_trace();
    damage(f.header.places);
    return error_of([&] { tr::encode(f); });
  };
  EXPECT_EQ(refused([](tr::places_info& p) { p.node_of_worker.pop_back(); }),
            "refusing to write an inconsistent trace: header: place tree of 3 / 4 workers (node / leaf), the trace "
            "has 4");
  EXPECT_EQ(refused([](tr::places_info& p) { p.node_of_worker[3] = 2; }),
            "refusing to write an inconsistent trace: header: place tree puts worker 3 on node 2 of 2");
  EXPECT_EQ(refused([](tr::places_info& p) {
              p.leaf_of_worker = {0, 0, 0, 1};
            }),
            "refusing to write an inconsistent trace: header: place tree leaf 0 spans nodes 0 and 1");
  EXPECT_EQ(refused([](tr::places_info& p) {
              p.leaf_of_worker = {0, 0, 2, 2};
            }),
            "refusing to write an inconsistent trace: header: place tree leaf 1 has no worker");
  EXPECT_EQ(refused([](tr::places_info& p) {
              p.numa_of_node = {0, 2};
            }),
            "refusing to write an inconsistent trace: header: place tree node on NUMA node 2 of 2");
  EXPECT_EQ(refused([](tr::places_info& p) {
              p.numa_of_node = {1, 1};
            }),
            "refusing to write an inconsistent trace: header: two place tree nodes on NUMA node 1");
  EXPECT_EQ(refused([](tr::places_info& p) { p.summary.clear(); }),
            "refusing to write an inconsistent trace: header: place tree without a summary");
  // No place tree at all is fine (a trace_file built by hand).
  tr::trace_file f = synthetic_trace();
  f.header.places = {};
  EXPECT_TRUE(tr::identical(tr::decode(tr::encode(f), "none.cwst"), f));
}

TEST(TraceFile, ForeignAndTruncatedFilesAreRefused) {
  EXPECT_EQ(error_of([] { tr::decode("", "e.cwst"); }), "e.cwst: empty file (not a cws trace file)");
  EXPECT_EQ(error_of([] { tr::decode("hello world, this is not a trace file at all", "x.cwst"); }),
            "x.cwst: not a cws trace file");
  EXPECT_EQ(error_of([] { tr::decode("\x89PNG\r\n\x1a\n0000000000000000000000000000000", "p.cwst"); }),
            "p.cwst: not a cws trace file");
  // A Boost archive without our envelope is foreign too. (A whole-payload
  // file of version 3: the truncation and trailing-data messages of a record
  // stream are StreamRecords' business.)
  const std::string good = wrap(whole_payload(synthetic_trace()));
  EXPECT_EQ(error_of([&] { tr::decode(payload_of(good), "raw.txt"); }), "raw.txt: not a cws trace file");
  EXPECT_EQ(error_of([&] { tr::decode(good.substr(0, 5), "t.cwst"); }),
            "t.cwst: truncated (5 bytes; a trace file has at least 32)");
  EXPECT_EQ(error_of([&] { tr::decode(good.substr(0, 100), "t.cwst"); }),
            "t.cwst: truncated (100 of " + std::to_string(good.size()) + " bytes)");
  EXPECT_EQ(error_of([&] { tr::decode(good + "x", "t.cwst"); }),
            "t.cwst: 1 bytes of unexpected data after the payload");
}

TEST(TraceFile, DamageIsReportedInOneLine) {
  const std::string good = wrap(whole_payload(synthetic_trace()));  // version 3
  std::string bad = good;
  bad[good.size() / 2] ^= 0x10;
  EXPECT_EQ(error_of([&] { tr::decode(bad, "trace.cwst"); }), "trace.cwst: checksum mismatch (file damaged)");
  bad = good;
  bad[13] ^= 0x01;  // archive kind
  EXPECT_EQ(error_of([&] { tr::decode(bad, "trace.cwst"); }),
            "trace.cwst: envelope damaged (header checksum mismatch)");
  EXPECT_EQ(error_of([&] { tr::decode(wrap(payload_of(good), 9), "k.cwst"); }), "k.cwst: unknown archive kind 9");
  // A payload declared as another kind than it is.
  const std::string as_binary = wrap(payload_of(good), 3);
  const std::string msg = error_of([&] { tr::decode(as_binary, "b.cwst"); });
  EXPECT_EQ(msg.rfind("b.cwst: ", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST(TraceFile, MissingAndUnreadableFiles) {
  cws::test::scratch_dir dir;
  const std::string missing = dir.file("nope.cwst");
  EXPECT_EQ(error_of([&] { tr::read(missing); }), missing + ": cannot open (No such file or directory)");
  const std::string d = dir.file("sub");
  std::filesystem::create_directory(d);
  EXPECT_EQ(error_of([&] { tr::read(d); }).rfind(d + ": ", 0), 0u);
  // A device that never ends is refused up front, not read into memory.
  EXPECT_EQ(error_of([] { tr::read("/dev/zero"); }), "/dev/zero: not a regular file (a character device)");
  const std::string out = dir.file("no/such/dir/t.cwst");
  EXPECT_EQ(error_of([&] { tr::write(out, synthetic_trace()); }).rfind(out + ": cannot write", 0), 0u);
}

// Limits: a payload with correct checksums but absurd counts is refused
// before anything is allocated for them.
TEST(TraceFile, ArchivesOfAnotherBoostOrMachineAreNamedAsSuch) {
  // Boost's archive header: library version 18 (Boost 1.74) -> 99.
  std::string text = whole_payload(synthetic_trace());
  ASSERT_EQ(text.rfind("22 serialization::archive 18 ", 0), 0u);
  text.replace(26, 2, "99");
  EXPECT_EQ(error_of([&] { tr::decode(wrap(text), "n.cwst"); }),
            "n.cwst: payload written by a newer Boost.Serialization than this cws was built with");
  // Binary archive header: sizeof(int), sizeof(long), ... as written; change sizeof(long).
  std::string bin = whole_payload(synthetic_trace(), tr::archive_kind::binary);
  const std::string sig = "serialization::archive";
  const std::size_t sizes = bin.find(sig) + sig.size() + 2;  // after the library version (2 bytes)
  ASSERT_EQ(static_cast<int>(bin[sizes + 1]), static_cast<int>(sizeof(long)));
  bin[sizes + 1] = 4;
  const std::string msg = error_of([&] { tr::decode(wrap(bin, 3), "b.cwst"); });
  EXPECT_EQ(msg.rfind("b.cwst: binary archive written on an incompatible machine (", 0), 0u) << msg;
}

TEST(TraceFile, AbsurdCountsAreRefusedBeforeAllocating) {
  const std::string text = whole_payload(synthetic_trace());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string p = text;
    const auto at = p.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    p.replace(at, from.size(), to);
    return wrap(p);
  };
  // Boost's archive signature length.
  EXPECT_EQ(error_of([&] { tr::decode(with("22 serialization", "18446744073709551615 serialization"), "s.cwst"); }),
            "s.cwst: string of 18446744073709551615 bytes exceeds the limit of 4096");
  // The host name's length: within the limit but more than the payload holds.
  EXPECT_EQ(error_of([&] { tr::decode(with("9 synthetic", "4000 synthetic"), "h.cwst"); }),
            "h.cwst: string of 4000 bytes cannot fit in a payload of " + std::to_string(text.size() + 3) + " bytes");
  // The number of phase runs (after the topology request string).
  EXPECT_EQ(
      error_of([&] { tr::decode(with("core:2 pu:1 2 7 stencil", "core:2 pu:1 99999999999 7 stencil"), "p.cwst"); }),
      "p.cwst: phase runs 99999999999 exceeds the limit of 1048576");
  EXPECT_EQ(error_of([&] { tr::decode(with("core:2 pu:1 2 7 stencil", "core:2 pu:1 1000000 7 stencil"), "p.cwst"); }),
            "p.cwst: phase runs 1000000 cannot fit in a payload of " + std::to_string(text.size() + 6) + " bytes");
  // Binary archive: a huge length in Boost's header.
  std::string bin = whole_payload(synthetic_trace(), tr::archive_kind::binary);
  cws::test::put_le(bin, 0, 0x7f00000000000000ull, 8);
  EXPECT_EQ(error_of([&] { tr::decode(wrap(bin, 3), "b.cwst"); }),
            "b.cwst: string of 9151314442816847872 bytes exceeds the limit of 4096");
}

TEST(TraceFile, InconsistentTreesAreRefusedOnReadAndWrite) {
  struct breakage {
    const char* expect;
    void (*apply)(tr::trace_file&);
  };
  const breakage cases[] = {
      {"phase 'stencil' #0: segment 2: parent 9 out of range (6 segments)",
       [](tr::trace_file& f) { f.phases[0].steals.segments[2].parent = 9; }},
      {"phase 'stencil' #0: segment 0: steal 1 names segment 17 (6 segments)",
       [](tr::trace_file& f) { f.phases[0].steals.segments[0].steals[1].child = 17; }},
      {"phase 'stencil' #0: segment 0: steal 0 by worker 2 but segment 1 runs on worker 1",
       [](tr::trace_file& f) { f.phases[0].steals.segments[0].steals[0].thief = 2; }},
      {"phase 'stencil' #1: worker 3: lists segment 3, which runs on worker 2",
       [](tr::trace_file& f) { f.phases[1].steals.worker_segments[3][1] = 3; }},
      {"phase 'stencil' #0: segment 1: 4 tasks but 5 audit records",
       [](tr::trace_file& f) { f.phases[0].steals.audit[8].segment = 1; }},
      {"phase 'stencil' #0: audit record 8: spawned in segment 3 by record 6, which ran in segment 1",
       [](tr::trace_file& f) { f.phases[0].steals.audit[8].parent = 6; }},
      {"phase 'stencil' #0: audit record 4: level 3 but its parent (record 1) is at level 1",
       [](tr::trace_file& f) { f.phases[0].steals.audit[4].parent = 1; }},
      {"phase 'stencil' #1: audit record 7: parent 18 out of range (18 records)",
       [](tr::trace_file& f) { f.phases[1].steals.audit[7].parent = 18; }},
      {"phase 'stencil' #0: two audit records name the task (2, 1) of segment 0",
       [](tr::trace_file& f) { f.phases[0].steals.audit[3].step = 1; }},
      {"phase 'stencil' #0: statistics for 3 workers, the trace has 4",
       [](tr::trace_file& f) { f.phases[0].stats.pop_back(); }},
      {"phase 'stencil' #0: wall time is nan (must be a finite, non-negative number of seconds)",
       [](tr::trace_file& f) { f.phases[0].wall_s = std::nan(""); }},
      {"phase 'stencil' #1: worker 2: 2 designated steals but only 1 steals",
       [](tr::trace_file& f) { f.phases[1].stats[2].designated = 2; }},
      {"header: 3 placement entries for 4 workers", [](tr::trace_file& f) { f.header.placement.pop_back(); }},
      {"phase 'stencil' #0: segment 0: steals not sorted by (level, step) at entry 1",
       [](tr::trace_file& f) {
         auto& s = f.phases[0].steals.segments[0].steals;
         std::swap(s[0], s[1]);
       }},
  };
  const tr::trace_file good = synthetic_trace();
  const std::string good_text = whole_payload(good);
  for (const breakage& b : cases) {
    tr::trace_file f = good;
    b.apply(f);
    const std::string w = error_of([&] { tr::encode(f); });
    EXPECT_EQ(w, std::string("refusing to write an inconsistent trace: ") + b.expect);
  }
  // The same checks run on reading: splice a broken tree past the writer's check.
  {
    std::string p = good_text;
    const std::string from = "1 0 1 0 500 9000 4";  // segment 1: worker 1, parent 0, (1,0), ...
    const auto at = p.find(from);
    ASSERT_NE(at, std::string::npos);
    p.replace(at, from.size(), "1 7 1 0 500 9000 4");
    EXPECT_EQ(error_of([&] { tr::decode(wrap(p), "i.cwst"); }),
              "i.cwst: inconsistent data: phase 'stencil' #0: segment 1: parent 7 out of range (6 segments)");
  }
  {
    std::string p = good_text;
    const std::string from = "4 6 0 4294967295";  // tree: 4 workers, 6 segments, root's worker 0 and no parent
    const auto at = p.find(from);
    ASSERT_NE(at, std::string::npos);
    p.replace(at, from.size(), "4 6 0 4294967294");
    EXPECT_EQ(error_of([&] { tr::decode(wrap(p), "i.cwst"); }),
              "i.cwst: inconsistent data: phase 'stencil' #0: segment 0 (the root) has parent 4294967294");
  }
  {
    std::string p = good_text;
    const std::string from = "16 24301 1 1 25";  // nesting, seed, record, audit (flags are 0/1)
    const auto at = p.find(from);
    ASSERT_NE(at, std::string::npos);
    p.replace(at, from.size(), "16 24301 2 1 25");
    EXPECT_EQ(error_of([&] { tr::decode(wrap(p), "f.cwst"); }), "f.cwst: invalid value 2 for flag 'record'");
  }
}

TEST(TraceFile, CycleAndDisconnectedSegmentsAreRefused) {
  // Segments 1 and 2 name each other as parent and list each other as steals:
  // every local check passes, only the walk from the root sees it.
  st::tree t;
  t.workers = 2;
  st::segment root;
  root.worker = 0;
  st::segment a;
  a.worker = 1, a.parent = 2, a.level = 1, a.step = 0;
  st::segment b;
  b.worker = 1, b.parent = 1, b.level = 1, b.step = 1;
  a.steals = {{1, 1, 1, 2}};
  b.steals = {{1, 0, 1, 1}};
  t.segments = {root, a, b};
  t.worker_segments = {{0}, {1, 2}};
  EXPECT_EQ(error_of([&] { tr::validate(t); }), "2 of 3 segments are not connected to the root (cycle)");
  t.workers = 0;
  EXPECT_EQ(error_of([&] { tr::validate(t); }), "tree has 0 workers");
}

TEST(TraceFile, ArchiveKindNames) {
  for (tr::archive_kind k : all_kinds) EXPECT_EQ(tr::parse_archive_kind(tr::to_string(k)), k);
  EXPECT_EQ(error_of([] { tr::parse_archive_kind("json"); }), "unknown archive kind 'json' (valid: text, xml, binary)");
}

TEST(TraceFile, NodeOfWorker) {
  EXPECT_EQ(synthetic_trace().header.node_of_worker(), (std::vector<std::uint32_t>{0, 0, 1, 1}));
}

}  // namespace
