// Corruption sweeps. Every damaged version of a small trace file is either
// read back identical or refused with a one-line cws::error naming the file:
// never a crash, a hang, an absurd allocation (the ASan build runs this too)
// or a silent misread.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cws/traces/trace_file.hpp"
#include "helpers.hpp"
#include "records.hpp"
#include "synthetic.hpp"

namespace {

namespace tr = cws::traces;

using cws::test::all_kinds;

struct outcome {
  std::size_t identical = 0;
  std::size_t refused = 0;
  std::size_t different = 0;  // loaded, valid, but not identical (only possible past the checksum)
};

// Decodes `bytes`; records the outcome; fails the test on anything but a
// clean refusal or a valid result.
void classify(const std::string& bytes, const tr::trace_file& original, outcome& o, const std::string& what) {
  try {
    const tr::trace_file back = tr::decode(bytes, "c.cwst");
    if (tr::identical(back, original)) {
      ++o.identical;
    } else {
      ++o.different;
      EXPECT_NO_THROW(tr::validate(back)) << what;
    }
  } catch (const cws::error& e) {
    ++o.refused;
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("c.cwst: ", 0), 0u) << what << ": " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << what << ": " << msg;
    EXPECT_GT(msg.size(), 8u) << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": escaped as " << typeid(e).name() << ": " << e.what();
  } catch (...) {
    ADD_FAILURE() << what << ": escaped as a non-standard exception";
  }
}

// Flip a byte at every offset, one at a time (all bits, and the lowest bit),
// and truncate at every length: the checksums catch all of it.
TEST(Corruption, EveryByteFlipAndEveryTruncationIsRefused) {
  const tr::trace_file original = cws::test::synthetic_trace();
  for (tr::archive_kind kind : all_kinds) {
    SCOPED_TRACE(std::string(tr::to_string(kind)));
    const std::string good = tr::encode(original, kind);
    outcome o;
    for (std::size_t at = 0; at < good.size(); ++at) {
      for (unsigned char mask : {0xFFu, 0x01u}) {
        std::string bad = good;
        bad[at] = static_cast<char>(bad[at] ^ mask);
        classify(bad, original, o, "flip at " + std::to_string(at));
      }
    }
    for (std::size_t len = 0; len < good.size(); ++len)
      classify(good.substr(0, len), original, o, "length " + std::to_string(len));
    // Appended garbage.
    classify(good + '\0', original, o, "appended byte");
    EXPECT_EQ(o.identical, 0u);
    EXPECT_EQ(o.different, 0u);
    EXPECT_EQ(o.refused, 3 * good.size() + 1);
    // And the intact file still reads.
    outcome ok;
    classify(good, original, ok, "intact");
    EXPECT_EQ(ok.identical, 1u);
  }
}

// Past the checksum: damage the payload and fix the checksums up, as a buggy
// writer or a deliberate forgery would. The deserializer and the validation
// are on their own now: each case must be refused cleanly or load as a valid
// trace (a changed digit of a time stamp cannot be told from a real one).
TEST(Corruption, DamagedPayloadWithValidChecksumNeverCrashes) {
  const tr::trace_file original = cws::test::synthetic_trace();
  for (tr::archive_kind kind : all_kinds) {
    SCOPED_TRACE(std::string(tr::to_string(kind)));
    const std::string payload = cws::test::whole_payload(original, kind);
    const auto k = static_cast<std::uint32_t>(kind);
    outcome o;
    for (std::size_t at = 0; at < payload.size(); ++at) {
      for (int m = 0; m < 4; ++m) {
        std::string p = payload;
        switch (m) {
          case 0:
            p[at] = static_cast<char>(p[at] ^ 0x01);
            break;
          case 1:
            p[at] = static_cast<char>(p[at] ^ 0x80);
            break;
          case 2:
            p[at] = '9';
            break;  // text: larger numbers
          case 3:
            p[at] = static_cast<char>(0xFF);
            break;  // binary: huge counts
        }
        if (p == payload) continue;
        classify(cws::test::wrap(p, k), original, o,
                 "payload byte " + std::to_string(at) + " mutation " + std::to_string(m));
      }
    }
    for (std::size_t len = 0; len < payload.size(); ++len) {
      const std::string p = payload.substr(0, len);
      classify(cws::test::wrap(p, k), original, o, "payload length " + std::to_string(len));
    }
    std::printf("[ %s ] payload %zu bytes: %zu refused, %zu loaded valid but different, %zu identical\n",
                std::string(tr::to_string(kind)).c_str(), payload.size(), o.refused, o.different, o.identical);
    EXPECT_GT(o.refused, 0u);
  }
}

// Format version 4 behind valid checksums: the payload of the middle record
// damaged and its frame fixed up, as a buggy writer could. That record is
// reported as damaged (or, where the damage cannot be told from real data,
// read as a valid run); the records around it always read, nothing crashes.
TEST(Corruption, DamagedRecordWithValidChecksumsCostsOnlyItself) {
  const tr::trace_file original = cws::test::synthetic_runs(3);
  for (tr::archive_kind kind : all_kinds) {
    SCOPED_TRACE(std::string(tr::to_string(kind)));
    const std::string bytes = tr::encode(original, kind);
    const std::vector<std::size_t> at = cws::test::record_offsets(bytes);
    ASSERT_EQ(at.size(), 4u);
    const std::string before = bytes.substr(0, at[1]), after = bytes.substr(at[2]);
    const std::string payload = bytes.substr(at[1] + tr::record_frame::size, at[2] - at[1] - tr::record_frame::size);
    std::size_t reported = 0, loaded = 0;
    auto check = [&](const std::string& p, const std::string& what) {
      try {
        const tr::read_report rep = tr::decode_with_report(before + cws::test::frame(1, p) + after, "c.cwst");
        EXPECT_TRUE(rep.closed) << what;
        EXPECT_FALSE(rep.unreadable.has_value()) << what;
        ASSERT_GE(rep.file.phases.size(), 2u) << what;
        EXPECT_TRUE(tr::identical(rep.file.phases.front(), original.phases[0])) << what;
        EXPECT_TRUE(tr::identical(rep.file.phases.back(), original.phases[2])) << what;
        if (rep.damaged.empty()) {
          ++loaded;
          EXPECT_EQ(rep.file.phases.size(), 3u) << what;
          EXPECT_NO_THROW(tr::validate(rep.file)) << what;
        } else {
          ++reported;
          ASSERT_EQ(rep.damaged.size(), 1u) << what;
          EXPECT_EQ(rep.damaged[0].record, 2u) << what;
          EXPECT_EQ(rep.damaged[0].problem.find('\n'), std::string::npos) << what;
          EXPECT_EQ(rep.file.phases.size(), 2u) << what;
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": the whole file was refused: " << e.what();
      }
    };
    const std::size_t step = kind == tr::archive_kind::xml ? 5 : 1;
    for (std::size_t i = 0; i < payload.size(); i += step) {
      for (int m = 0; m < 4; ++m) {
        std::string p = payload;
        switch (m) {
          case 0:
            p[i] = static_cast<char>(p[i] ^ 0x01);
            break;
          case 1:
            p[i] = static_cast<char>(p[i] ^ 0x80);
            break;
          case 2:
            p[i] = '9';
            break;
          case 3:
            p[i] = static_cast<char>(0xFF);
            break;
        }
        if (p != payload) check(p, "byte " + std::to_string(i) + " mutation " + std::to_string(m));
      }
    }
    for (std::size_t len = 0; len < payload.size(); len += step)
      check(payload.substr(0, len), "length " + std::to_string(len));
    std::printf("[ %s ] record payload %zu bytes: %zu reported damaged, %zu loaded valid\n",
                std::string(tr::to_string(kind)).c_str(), payload.size(), reported, loaded);
    EXPECT_GT(reported, 0u);
  }
}

// Counts no stored element bounds, forged behind valid checksums (a 9.2e18
// task segment, "of" counters larger than their whole, absurd times): the
// record is refused as damaged with one line, and validate() refuses them.
TEST(Corruption, ForgedCountsBehindValidChecksumsAreRefused) {
  namespace st = cws::steal_tree;
  struct forgery {
    const char* what;
    void (*forge)(st::phase_record&);
    const char* message;  // part of the one-line problem
  };
  const forgery forgeries[] = {
      {"segment tasks", [](st::phase_record& r) { r.steals.segments[2].tasks = 9'200'000'000'000'000'000u; },
       "segment 2: 9200000000000000000 tasks exceed the limit of 281474976710656"},
      {"tree tasks",
       [](st::phase_record& r) {
         for (st::segment& s : r.steals.segments) s.tasks = std::uint64_t{1} << 47;
       },
       "tasks exceed the limit of 281474976710656 per tree"},
      {"worker tasks", [](st::phase_record& r) { r.stats[1].tasks = ~std::uint64_t{0}; },
       "worker 1: tasks 18446744073709551615 exceeds the limit"},
      {"failed steals", [](st::phase_record& r) { r.stats[0].failed_steals = std::uint64_t{1} << 60; },
       "worker 0: failed steals 1152921504606846976 exceeds the limit"},
      {"elided", [](st::phase_record& r) { r.stats[2].elided = r.stats[2].tasks + 1; }, "elided spawns but only"},
      {"place steals", [](st::phase_record& r) { r.stats[3].place_steals = r.stats[3].steals + 1; },
       "place steals but only"},
      {"het inlined", [](st::phase_record& r) { r.stats[0].het_inlined = r.stats[0].hinted_leaf + 1; },
       "HET-inlined spawns but only"},
      {"nested segments", [](st::phase_record& r) { r.stats[0].nested_segments = r.stats[0].segments + 1; },
       "nested segments but only"},
      {"wall time", [](st::phase_record& r) { r.wall_s = 1e300; }, "wall time is 1e+300"},
      {"segment end", [](st::phase_record& r) { r.steals.segments[0].end_ns = ~std::uint64_t{0}; },
       "segment 0: ends at 18446744073709551615 ns, beyond the limit"},
  };
  const tr::trace_file good = cws::test::synthetic_trace();
  for (const forgery& g : forgeries) {
    SCOPED_TRACE(g.what);
    tr::trace_file f = good;
    for (st::phase_record& r : f.phases) {
      r.steals.audit.clear();  // audit records would pin segment task counts
      g.forge(r);
    }
    const std::string v = cws::test::error_of([&] { tr::validate(f); });
    EXPECT_NE(v.find(g.message), std::string::npos) << v;
    // A record stream with valid checksums around the forged record.
    tr::detail::record_encoder enc(tr::archive_kind::text);
    std::string bytes(enc.header(f.header));
    bytes += enc.phase(f.phases[0]);
    bytes += enc.end(1);
    const tr::read_report rep = tr::decode_with_report(bytes, "c.cwst");
    ASSERT_EQ(rep.damaged.size(), 1u);
    EXPECT_NE(rep.damaged[0].problem.find(g.message), std::string::npos) << rep.damaged[0].problem;
    EXPECT_EQ(rep.damaged[0].problem.find('\n'), std::string::npos);
    EXPECT_TRUE(rep.file.phases.empty());
  }
  // The limits leave real runs alone.
  EXPECT_NO_THROW(tr::validate(good));
}

}  // namespace
