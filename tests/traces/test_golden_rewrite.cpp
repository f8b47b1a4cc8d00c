// Golden files written again: the current version's byte for byte, the older
// versions as the current one with the same contents.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cws/traces/trace_file.hpp"
#include "golden_checks.hpp"
#include "helpers.hpp"

namespace {

namespace tr = cws::traces;
namespace st = cws::steal_tree;

using namespace cws::test::golden_checks;

// The saved golden files of format version `v` (traces/golden/README.md):
// synthetic text, XML and (from version 2 on) binary, and the fib run.
std::vector<std::string> saved_files_of(std::uint32_t v) {
  std::vector<std::string> names{golden_name(v, "synthetic-4w-audit.cwst"),
                                 golden_name(v, "synthetic-4w-audit.xml.cwst")};
  if (v >= 2) names.push_back(golden_name(v, "synthetic-4w-audit.bin.cwst"));
  names.push_back(golden_name(v, "fib12-2w.cwst"));
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
  EXPECT_EQ(tr::encode(tr::read(golden_of(tr::format_version, "fib12-2w.stream.cwst"))),
            cws::test::slurp(golden_of(tr::format_version, "fib12-2w.cwst")));
}

// Older files are read, and written again as the current version with the
// same contents: the fields they lack stay 0, empty or unknown (before version
// 3 no locality report or relocalization; before version 5 no pedigree, an
// empty pedigree table and 0 elided spawns; before version 6 no place tree and
// 0 hinted counters), and stay so through the rewrite.
TEST(Golden, OlderVersionsRewriteAsTheCurrentOne) {
  for (std::uint32_t version = 1; version < tr::format_version; ++version) {
    std::vector<std::string> names = saved_files_of(version);
    if (version >= 4) names.push_back(golden_name(version, "fib12-2w.stream.cwst"));
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
    const std::string a = golden_name(version, "synthetic-4w-audit.cwst");
    const std::string b = golden_name(version + 1, "synthetic-4w-audit.cwst");
    const bool same_content = version == 3;  // version 4 changed the layout, not the contents
    EXPECT_EQ(tr::identical(tr::read(golden(a)), tr::read(golden(b))), same_content) << a << " vs " << b;
  }
}

}  // namespace
