// Format version 3: locality reports and relocalizations in trace files.
// Which versions hold them, what identical() compares, and the validation of
// their numbers on writing and on reading.
#include <gtest/gtest.h>

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

TEST(TraceLocality, SyntheticContentIsConsistent) {
  static_assert(tr::format_version >= 3);
  const tr::trace_file f = synthetic_trace();
  ASSERT_TRUE(f.phases[0].locality.has_value());
  EXPECT_EQ(f.phases[0].locality->share(), 0.9375);
  EXPECT_EQ(f.phases[1].locality->share(), 1.0);
  ASSERT_EQ(f.phases[0].relocalizations.size(), 2u);
  EXPECT_TRUE(f.phases[1].relocalizations.empty());
  EXPECT_NO_THROW(tr::validate(f));
  // Older versions' content has neither.
  for (std::uint32_t v : {1u, 2u})
    for (const st::phase_record& r : synthetic_trace(v).phases) {
      EXPECT_FALSE(r.locality.has_value());
      EXPECT_TRUE(r.relocalizations.empty());
    }
}

TEST(TraceLocality, RoundTripKeepsReportsAndTheirAbsence) {
  tr::trace_file f = synthetic_trace();
  // Relocalizations without a locality report (a run measured by someone
  // else), and a report with no node touched anything.
  f.phases[0].locality.reset();
  f.phases[1].locality = cws::locality_report{};
  f.phases[1].locality->per_node = {{0, 0}, {0, 0}};
  for (tr::archive_kind kind : all_kinds) {
    SCOPED_TRACE(std::string(tr::to_string(kind)));
    const tr::trace_file back = tr::decode(tr::encode(f, kind), "mem.cwst");
    EXPECT_TRUE(tr::identical(back, f));
    EXPECT_FALSE(back.phases[0].locality.has_value());
    EXPECT_EQ(back.phases[0].relocalizations, f.phases[0].relocalizations);
    EXPECT_EQ(back.phases[1].locality, f.phases[1].locality);
  }
}

TEST(TraceLocality, IdenticalComparesEveryNewField) {
  const tr::trace_file a = synthetic_trace();
  tr::trace_file b = a;
  EXPECT_TRUE(tr::identical(a, b));
  b.phases[0].locality.reset();
  EXPECT_FALSE(tr::identical(a, b));
  b = a;
  b.phases[1].locality->per_node[1].local_bytes -= 1;
  EXPECT_FALSE(tr::identical(a, b));
  b = a;
  b.phases[0].locality->pages += 1;
  EXPECT_FALSE(tr::identical(a, b));
  b = a;
  b.phases[0].relocalizations.pop_back();
  EXPECT_FALSE(tr::identical(a, b));
  b = a;
  b.phases[0].relocalizations[1].backend = "kernel (mbind)";
  EXPECT_FALSE(tr::identical(a, b));
  b = a;
  b.phases[0].relocalizations[0].pages_failed = 0;
  EXPECT_FALSE(tr::identical(a, b));
  b = a;
  b.phases[0].relocalizations[0].seconds = std::nextafter(b.phases[0].relocalizations[0].seconds, 1.0);
  EXPECT_FALSE(tr::identical(a, b));
  // Doubles by bit pattern: -0.0 is not 0.0.
  b = a;
  b.phases[0].relocalizations[1].seconds = 0.0;
  tr::trace_file c = b;
  c.phases[0].relocalizations[1].seconds = -0.0;
  EXPECT_FALSE(tr::identical(b, c));
}

// The version in the envelope decides whether the new fields are read: a
// version-2 file has none (and reads as before), a version-3 payload under
// version 2 or a version-2 payload under version 3 is refused, not misread.
TEST(TraceLocality, VersionDecidesWhetherReportsAreRead) {
  const std::string v2_bytes = cws::test::slurp(golden("v2-synthetic-4w-audit.cwst"));
  const tr::trace_file v2 = tr::decode(v2_bytes, "v2.cwst");
  EXPECT_EQ(v2.header.format_version, 2u);
  EXPECT_TRUE(tr::identical(v2, synthetic_trace(2)));
  for (const st::phase_record& r : v2.phases) {
    EXPECT_FALSE(r.locality.has_value());
    EXPECT_TRUE(r.relocalizations.empty());
  }
  const std::string as_v3 = error_of([&] { tr::decode(wrap(payload_of(v2_bytes), 1, 3), "x.cwst"); });
  EXPECT_EQ(as_v3.rfind("x.cwst: ", 0), 0u) << as_v3;
  for (tr::archive_kind kind : all_kinds) {
    SCOPED_TRACE(std::string(tr::to_string(kind)));
    const std::string payload = whole_payload(synthetic_trace(), kind);
    const std::string msg = error_of([&] { tr::decode(wrap(payload, static_cast<std::uint32_t>(kind), 2), "y.cwst"); });
    EXPECT_EQ(msg.rfind("y.cwst: ", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  // Rewritten, a version-2 file becomes version 3 without reports.
  const tr::trace_file again = tr::decode(tr::encode(v2), "again.cwst");
  EXPECT_EQ(again.header.format_version, tr::format_version);
  EXPECT_TRUE(tr::identical(again, v2));
}

TEST(TraceLocality, InconsistentReportsAreRefusedOnWrite) {
  struct breakage {
    const char* expect;
    void (*apply)(tr::trace_file&);
  };
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  const breakage cases[] = {
      {"phase 'stencil' #0: locality: node 1: 65537 local bytes of 65536 touched",
       [](tr::trace_file& f) { f.phases[0].locality->per_node[1].local_bytes = 65537; }},
      {"phase 'stencil' #0: locality: 196609 local bytes of 196608 touched",
       [](tr::trace_file& f) { f.phases[0].locality->local_bytes = 196609; }},
      {"phase 'stencil' #1: locality: per-node touched bytes sum to 196608, the total is 196607",
       [](tr::trace_file& f) {
         f.phases[1].locality->touched_bytes -= 1;
         f.phases[1].locality->local_bytes -= 1;
       }},
      {"phase 'stencil' #0: locality: per-node local bytes sum to 184320, the total is 184321",
       [](tr::trace_file& f) { f.phases[0].locality->local_bytes += 1; }},
      {"phase 'stencil' #0: locality: 12289 bytes on pages of unknown home, but only 12288 of 196608 touched bytes "
       "are not local",
       [](tr::trace_file& f) { f.phases[0].locality->unknown_bytes = 12289; }},
      {"phase 'stencil' #1: locality: 1 bytes on pages of unknown home, but only 0 of 196608 touched bytes are not "
       "local",
       [](tr::trace_file& f) { f.phases[1].locality->unknown_bytes = 1; }},
      {"phase 'stencil' #0: locality: 3 per-node entries for 2 NUMA nodes",
       [](tr::trace_file& f) { f.phases[0].locality->per_node.push_back({}); }},
      {"phase 'stencil' #0: locality: per-node byte counts overflow",
       [](tr::trace_file& f) {
         f.phases[0].locality->per_node = {{max, 0}, {1, 0}};
       }},
      {"phase 'stencil' #0: relocalization 0: 2 pages moved and 47 failed of 48 examined",
       [](tr::trace_file& f) { f.phases[0].relocalizations[0].pages_failed = 47; }},
      {"phase 'stencil' #0: relocalization 1: 49 pages moved and 1 failed of 48 examined",
       [](tr::trace_file& f) {
         f.phases[0].relocalizations[1].pages_moved = 49;
         f.phases[0].relocalizations[1].bytes_moved = 49 * 4096;
       }},
      {"phase 'stencil' #0: relocalization 1: 4096 bytes moved but no page",
       [](tr::trace_file& f) { f.phases[0].relocalizations[1].bytes_moved = 4096; }},
      {"phase 'stencil' #0: relocalization 0: 12288 bytes moved in 2 pages (not a whole power-of-two page size)",
       [](tr::trace_file& f) { f.phases[0].relocalizations[0].bytes_moved = 3 * 4096; }},
      {"phase 'stencil' #0: relocalization 0: 8193 bytes moved in 2 pages (not a whole power-of-two page size)",
       [](tr::trace_file& f) { f.phases[0].relocalizations[0].bytes_moved = 8193; }},
      {"phase 'stencil' #0: relocalization 0: relocalization time is -1 (must be a finite, non-negative number of "
       "seconds)",
       [](tr::trace_file& f) { f.phases[0].relocalizations[0].seconds = -1; }},
      {"phase 'stencil' #0: relocalization 1: relocalization time is inf (must be a finite, non-negative number of "
       "seconds)",
       [](tr::trace_file& f) { f.phases[0].relocalizations[1].seconds = HUGE_VAL; }},
      {"phase 'stencil' #0: relocalization 1: made from the run 'stencil' #1, filed under this one",
       [](tr::trace_file& f) { f.phases[0].relocalizations[1].iteration = 1; }},
      {"phase 'stencil' #1: relocalization 0: made from the run 'copy' #1, filed under this one",
       [](tr::trace_file& f) {
         f.phases[1].relocalizations = f.phases[0].relocalizations;
         f.phases[1].relocalizations[0].schedule = "copy";
         f.phases[1].relocalizations[0].iteration = 1;
       }},
      {"phase 'stencil' #0: relocalization 0: backend name of 4097 bytes exceeds the limit of 4096",
       [](tr::trace_file& f) { f.phases[0].relocalizations[0].backend.assign(4097, 'k'); }},
  };
  const tr::trace_file good = synthetic_trace();
  for (const breakage& b : cases) {
    tr::trace_file f = good;
    b.apply(f);
    EXPECT_EQ(error_of([&] { tr::encode(f); }), std::string("refusing to write an inconsistent trace: ") + b.expect);
  }
  // The per-node limit holds even without a topology to compare with.
  cws::locality_report many;
  many.per_node.resize(tr::limits::numa_nodes + 1);
  EXPECT_EQ(error_of([&] { tr::validate(many); }), "4097 per-node entries exceed the limit of 4096");
  many.per_node.resize(tr::limits::numa_nodes);
  EXPECT_NO_THROW(tr::validate(many));
  EXPECT_EQ(error_of([&] { tr::validate(many, 8); }), "4096 per-node entries for 8 NUMA nodes");
}

// The same checks on reading, and the counts bounded before allocating:
// splice damage into a text payload behind valid checksums.
TEST(TraceLocality, InconsistentOrAbsurdReportsAreRefusedOnRead) {
  const std::string text = whole_payload(synthetic_trace());
  // Run #0's locality report (flag, pages, touched, local, unknown, nodes,
  // per node), its relocalization count, and its first relocalization.
  const std::string report =
      "1 48 196608 184320 4096 2 131072 122880 65536 61440 2 7 stencil 0 9 simulated 48 2 1 8192";
  ASSERT_NE(text.find(report), std::string::npos) << text;
  auto with = [&](const std::string& to) {
    std::string p = text;
    p.replace(p.find(report), report.size(), to);
    return wrap(p);
  };
  EXPECT_EQ(error_of([&] {
              tr::decode(
                  with("1 48 196608 184320 4096 2 131072 131073 65536 61440 2 7 stencil 0 9 simulated 48 2 1 8192"),
                  "r.cwst");
            }),
            "r.cwst: inconsistent data: phase 'stencil' #0: locality: node 0: 131073 local bytes of 131072 touched");
  EXPECT_EQ(error_of([&] {
              tr::decode(
                  with("1 48 196608 184320 4096 2 131072 122880 65536 61440 2 7 stencil 0 9 simulated 48 2 1 8191"),
                  "r.cwst");
            }),
            "r.cwst: inconsistent data: phase 'stencil' #0: relocalization 0: 8191 bytes moved in 2 pages (not a whole "
            "power-of-two page size)");
  EXPECT_EQ(error_of([&] {
              tr::decode(
                  with("2 48 196608 184320 4096 2 131072 122880 65536 61440 2 7 stencil 0 9 simulated 48 2 1 8192"),
                  "r.cwst");
            }),
            "r.cwst: invalid value 2 for flag 'has_locality'");
  EXPECT_EQ(error_of([&] {
              tr::decode(with("1 48 196608 184320 4096 5000 131072 122880 65536 61440 2 7 stencil 0 9 simulated 48 2 1 "
                              "8192"),
                         "r.cwst");
            }),
            "r.cwst: per-node locality entries 5000 exceeds the limit of 4096");
  EXPECT_EQ(error_of([&] {
              tr::decode(
                  with("1 48 196608 184320 4096 2 131072 122880 65536 61440 99999999999 7 stencil 0 9 simulated 48 "
                       "2 1 8192"),
                  "r.cwst");
            }),
            "r.cwst: relocalizations of a phase run 99999999999 exceeds the limit of 1048576");
  const std::string fits = error_of([&] {
    tr::decode(with("1 48 196608 184320 4096 2 131072 122880 65536 61440 1000000 7 stencil 0 9 simulated 48 2 1 8192"),
               "r.cwst");
  });
  EXPECT_EQ(fits.rfind("r.cwst: relocalizations of a phase run 1000000 cannot fit in a payload of ", 0), 0u) << fits;
  EXPECT_EQ(error_of([&] {
              tr::decode(with("1 48 196608 184320 4096 2 131072 122880 65536 61440 2 7 stencil 0 5000 simulated 48 2 1 "
                              "8192"),
                         "r.cwst");
            }),
            "r.cwst: string of 5000 bytes exceeds the limit of 4096");
}

}  // namespace
