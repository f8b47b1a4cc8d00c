// Format version 4 on bytes: a record stream cut or damaged anywhere is read
// up to what is intact, and the report says exactly what is missing: a torn
// tail at every byte offset of the last record, a damaged record in the
// middle (skipped by its length, the others read), a damaged frame (reading
// stops there), an unfinished stream, a relocalization record filed under its
// run, and records that do not belong.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "cws/traces/trace_file.hpp"
#include "helpers.hpp"
#include "records.hpp"  // traces/src: the encoder a stream writes with
#include "synthetic.hpp"

namespace {

namespace tr = cws::traces;
namespace st = cws::steal_tree;
using cws::test::all_kinds;
using cws::test::record_offsets;

tr::trace_file many_runs(std::size_t n) { return cws::test::synthetic_runs(n); }

std::vector<st::phase_record> first(const tr::trace_file& f, std::size_t n) {
  return {f.phases.begin(), f.phases.begin() + static_cast<std::ptrdiff_t>(n)};
}

bool same_runs(const std::vector<st::phase_record>& a, const std::vector<st::phase_record>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!tr::identical(a[i], b[i])) return false;
  return true;
}

TEST(StreamRecords, CompleteFileHasHeaderRecordsAndEnd) {
  const tr::trace_file f = many_runs(3);
  for (tr::archive_kind kind : all_kinds) {
    SCOPED_TRACE(std::string(tr::to_string(kind)));
    const std::string bytes = tr::encode(f, kind);
    EXPECT_EQ(cws::test::get_le(bytes, 8, 4), tr::format_version);
    const std::vector<std::size_t> at = record_offsets(bytes);
    ASSERT_EQ(at.size(), 4u);                               // three runs (relocalizations inside), the end record
    EXPECT_EQ(cws::test::get_le(bytes, at[3] + 4, 4), 3u);  // kind end
    EXPECT_EQ(at[3] + tr::record_frame::size + 8, bytes.size());
    const tr::read_report rep = tr::decode_with_report(bytes, "s.cwst");
    EXPECT_TRUE(rep.complete()) << rep.summary();
    EXPECT_EQ(rep.summary(), "");
    EXPECT_EQ(rep.records, 4u);
    EXPECT_EQ(rep.intact, 4u);
    EXPECT_TRUE(tr::identical(rep.file, f));
    EXPECT_EQ(rep.file.header.format_version, tr::format_version);
    EXPECT_EQ(rep.file.header.archive, kind);
  }
}

// Truncating at every byte offset inside the last phase record: the records
// before it read, the report says the file ends inside it (or, cut exactly
// at its start, that the stream did not finish); read() refuses each.
TEST(StreamRecords, TornTailAtEveryOffsetOfTheLastRecord) {
  const tr::trace_file f = many_runs(4);
  for (tr::archive_kind kind : all_kinds) {
    SCOPED_TRACE(std::string(tr::to_string(kind)));
    const std::string bytes = tr::encode(f, kind);
    const std::vector<std::size_t> at = record_offsets(bytes);
    ASSERT_EQ(at.size(), 5u);
    const std::size_t last = at[3], end = at[4];
    // Every offset for text and binary; XML records are large, every 7th.
    const std::size_t step = kind == tr::archive_kind::xml ? 7 : 1;
    for (std::size_t len = last; len < end; len += step) {
      SCOPED_TRACE(len);
      const std::string cut = bytes.substr(0, len);
      const tr::read_report rep = tr::decode_with_report(cut, "t.cwst");
      EXPECT_FALSE(rep.complete());
      EXPECT_FALSE(rep.closed);
      EXPECT_TRUE(rep.damaged.empty());
      EXPECT_FALSE(rep.unreadable.has_value());
      EXPECT_EQ(rep.records, 3u);
      EXPECT_EQ(rep.intact, 3u);
      EXPECT_TRUE(same_runs(rep.file.phases, first(f, 3)));
      const std::string expect = len == last ? "file ends after record 3 without the end record (the writer did not "
                                               "finish: killed, or still running); 3 complete records"
                                             : "file ends inside record 4; 3 complete records";
      EXPECT_EQ(rep.summary(), expect);
      EXPECT_EQ(rep.torn_record.has_value(), len != last);
      try {
        (void)tr::decode(cut, "t.cwst");
        ADD_FAILURE() << "read() accepted a torn stream";
      } catch (const cws::error& e) {
        EXPECT_EQ(std::string(e.what()), "t.cwst: " + expect);
      }
    }
    // Inside the end record: every phase run is there, the stream did not finish.
    for (std::size_t len = end + 1; len < bytes.size(); ++len) {
      const tr::read_report rep = tr::decode_with_report(bytes.substr(0, len), "t.cwst");
      EXPECT_EQ(rep.summary(), "file ends inside record 5; 4 complete records");
      EXPECT_TRUE(same_runs(rep.file.phases, f.phases));
    }
  }
}

// One byte of a record's payload damaged: that record is reported, the
// records around it still read (its relocalizations go with it).
TEST(StreamRecords, DamagedRecordInTheMiddleIsReportedTheOthersRead) {
  const tr::trace_file f = many_runs(5);
  for (tr::archive_kind kind : all_kinds) {
    SCOPED_TRACE(std::string(tr::to_string(kind)));
    const std::string bytes = tr::encode(f, kind);
    const std::vector<std::size_t> at = record_offsets(bytes);
    ASSERT_EQ(at.size(), 6u);
    for (std::size_t off = at[2] + tr::record_frame::size; off < at[3]; off += 7) {
      std::string bad = bytes;
      bad[off] = static_cast<char>(bad[off] ^ 0x10);
      const tr::read_report rep = tr::decode_with_report(bad, "d.cwst");
      ASSERT_EQ(rep.damaged.size(), 1u) << off;
      EXPECT_EQ(rep.damaged[0].record, 3u);
      EXPECT_EQ(rep.damaged[0].offset, at[2]);
      EXPECT_EQ(rep.damaged[0].problem, "payload checksum mismatch");
      EXPECT_TRUE(rep.closed);
      EXPECT_EQ(rep.records, 6u);
      EXPECT_EQ(rep.intact, 5u);
      ASSERT_EQ(rep.file.phases.size(), 4u);
      std::vector<st::phase_record> expect = f.phases;
      expect.erase(expect.begin() + 2);
      EXPECT_TRUE(same_runs(rep.file.phases, expect));
      EXPECT_EQ(rep.summary(), "record 3 damaged (payload checksum mismatch); 5 of 6 records read");
    }
    // Two damaged records are both named.
    std::string bad = bytes;
    bad[at[1] + tr::record_frame::size + 3] ^= 0x01;
    bad[at[3] + tr::record_frame::size + 3] ^= 0x01;
    const tr::read_report two = tr::decode_with_report(bad, "d.cwst");
    EXPECT_EQ(two.summary(), "records 2, 4 damaged (record 2: payload checksum mismatch); 4 of 6 records read");
    EXPECT_EQ(two.file.phases.size(), 3u);
  }
}

// A damaged frame: its length cannot be trusted, so nothing after it is read;
// the records before it are.
TEST(StreamRecords, DamagedFrameStopsReadingThere) {
  const tr::trace_file f = many_runs(4);
  const std::string bytes = tr::encode(f, tr::archive_kind::text);
  const std::vector<std::size_t> at = record_offsets(bytes);
  for (std::size_t k = 0; k < tr::record_frame::size; ++k) {
    std::string bad = bytes;
    bad[at[2] + k] = static_cast<char>(bad[at[2] + k] ^ 0x04);
    const tr::read_report rep = tr::decode_with_report(bad, "f.cwst");
    ASSERT_TRUE(rep.unreadable.has_value()) << k;
    EXPECT_EQ(rep.unreadable->record, 3u);
    EXPECT_EQ(rep.unreadable->offset, at[2]);
    const std::string problem = k < 4 ? "not a record frame" : "frame damaged (checksum mismatch)";
    EXPECT_EQ(rep.unreadable->problem,
              fmt::format("{} (the {} bytes from offset {} on cannot be read)", problem, bytes.size() - at[2], at[2]));
    EXPECT_EQ(rep.summary(), "record 3: " + rep.unreadable->problem + "; 2 complete records");
    EXPECT_TRUE(same_runs(rep.file.phases, first(f, 2)));
  }
}

// The envelope or the header damaged or torn: nothing can be read.
TEST(StreamRecords, DamagedHeaderRefusesTheFile) {
  const std::string bytes = tr::encode(many_runs(2), tr::archive_kind::text);
  const std::size_t header_end = tr::envelope::size + cws::test::get_le(bytes, 16, 8);
  std::string bad = bytes;
  bad[header_end - 3] ^= 0x01;
  EXPECT_EQ(cws::test::error_of([&] { (void)tr::decode_with_report(bad, "h.cwst"); }),
            "h.cwst: header damaged (checksum mismatch)");
  EXPECT_EQ(cws::test::error_of([&] { (void)tr::decode_with_report(bytes.substr(0, header_end - 1), "h.cwst"); }),
            fmt::format("h.cwst: truncated inside the header ({} of its {} bytes)", header_end - 1, header_end));
}

// Relocalization records (as a stream writes them) go to the latest earlier
// record of their run; one of a run the file does not hold, an unknown record
// kind, an end record with the wrong count and bytes after the end are
// reported, never silently dropped.
TEST(StreamRecords, RelocalizationRecordsAndRecordsThatDoNotBelong) {
  const tr::trace_file f = many_runs(2);
  const std::string bytes = tr::encode(f, tr::archive_kind::text);
  // As a stream writes it: run #0 without its relocalizations, each of them
  // as its own record after it.
  tr::detail::record_encoder enc(tr::archive_kind::text);
  const std::string head(enc.header(f.header));
  st::phase_record bare0 = f.phases[0];
  bare0.relocalizations.clear();
  const std::string run0(enc.phase(bare0)), run1(enc.phase(f.phases[1]));
  const std::string reloc0(enc.relocalization(f.phases[0].relocalizations.at(0)));
  const std::string reloc1(enc.relocalization(f.phases[0].relocalizations.at(1)));
  auto end_record = [&enc](std::uint64_t n) { return std::string(enc.end(n)); };
  const std::string streamed = head + run0 + reloc0 + run1 + reloc1 + end_record(4);
  const tr::read_report rep = tr::decode_with_report(streamed, "r.cwst");
  EXPECT_TRUE(rep.complete()) << rep.summary();
  EXPECT_TRUE(tr::identical(rep.file, f));
  EXPECT_EQ(rep.records, 5u);

  // Before its run: no earlier record holds it.
  const tr::read_report orphan = tr::decode_with_report(head + reloc0 + run0 + end_record(2), "r.cwst");
  ASSERT_EQ(orphan.damaged.size(), 1u);
  EXPECT_EQ(orphan.damaged[0].problem, "relocalization of the run 'stencil' #0, which no earlier record holds");
  EXPECT_EQ(orphan.file.phases.size(), 1u);
  // An unknown kind, a wrong end count, trailing bytes.
  const tr::read_report unknown =
      tr::decode_with_report(head + run0 + cws::test::frame(9, "x") + end_record(2), "r.cwst");
  ASSERT_EQ(unknown.damaged.size(), 1u);
  EXPECT_EQ(unknown.damaged[0].problem, "unknown record kind 9");
  const tr::read_report count = tr::decode_with_report(head + run0 + run1 + end_record(5), "r.cwst");
  ASSERT_EQ(count.damaged.size(), 1u);
  EXPECT_EQ(count.damaged[0].problem, "end record counts 5 records before it, the file has 2");
  EXPECT_FALSE(count.closed);
  const tr::read_report trailing = tr::decode_with_report(bytes + "xy", "r.cwst");
  EXPECT_EQ(trailing.summary(), "2 bytes of unexpected data after the end record");
  EXPECT_TRUE(same_runs(trailing.file.phases, f.phases));
  EXPECT_EQ(cws::test::error_of([&] { (void)tr::decode(bytes + "xy", "r.cwst"); }),
            "r.cwst: 2 bytes of unexpected data after the end record");
}

// Inconsistent content behind valid checksums (a buggy writer): that record
// is reported as damaged, with the validation's reason.
TEST(StreamRecords, InconsistentRecordIsReported) {
  tr::trace_file f = many_runs(3);
  const std::string good = tr::encode(f, tr::archive_kind::text);
  tr::trace_file other = f;
  other.header.options.workers = 2;  // records of 4 workers under a header of 2
  other.header.placement.resize(2);
  other.header.places = {};  // the place tree is of 4 workers too
  other.phases.clear();
  const std::string head2 = tr::encode(other, tr::archive_kind::text);
  const std::vector<std::size_t> at2 = record_offsets(head2), at = record_offsets(good);
  const std::string mixed = head2.substr(0, at2[0]) + good.substr(at[0], at[3] - at[0]);
  const tr::read_report rep = tr::decode_with_report(mixed, "i.cwst");
  ASSERT_EQ(rep.damaged.size(), 3u);
  EXPECT_EQ(rep.damaged[0].problem, "inconsistent data: phase 'stencil' #0: statistics for 4 workers, the trace has 2");
  EXPECT_TRUE(rep.file.phases.empty());
}

}  // namespace
