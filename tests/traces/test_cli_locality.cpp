// cws-trace and format version 3: the `locality` subcommand (tables, JSON,
// files without reports, bad input and its exit codes), the locality column of
// `info`, and convert / coarsen carrying the reports through.
#include <gtest/gtest.h>

#include <string>

#include "cli_fixture.hpp"
#include "cws/traces/trace_file.hpp"
#include "helpers.hpp"

namespace {

namespace tr = cws::traces;
using cws::test::Cli;
using cws::test::golden;
using cws::test::quote;
using cws::test::result;
using nlohmann::json;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(Cli, LocalityTableOfTheSyntheticRuns) {
  const result r = run("locality " + quote(syn3));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(has(r.out, syn3 + ": 2 phase runs with a locality report\n")) << r.out;
  EXPECT_TRUE(has(r.out, "   #  schedule   iter  policy     pages  touched MB   local  unknown  per node (local)\n"))
      << r.out;
  EXPECT_TRUE(has(r.out, "   0  stencil       0  relws         48       0.197   93.8%     2.1%  n0 93.8% n1 93.8%\n"))
      << r.out;
  // Run #0's two relocalizations, in order, under it.
  const std::string first =
      "      relocalized: 48 pages examined, 2 moved, 1 failed, 0.008 MB in 0.0001221 s (0.067 GB/s), simulated\n";
  const std::string second =
      "      relocalized: 48 pages examined, 0 moved, 1 failed, 0.000 MB in 3.052e-05 s (0.000 GB/s), simulated\n";
  const std::string run1 =
      "   1  stencil       1  stows         48       0.197  100.0%     0.0%  n0 100.0% n1 100.0%\n";
  ASSERT_TRUE(has(r.out, first) && has(r.out, second) && has(r.out, run1)) << r.out;
  EXPECT_LT(r.out.find(first), r.out.find(second));
  EXPECT_LT(r.out.find(second), r.out.find(run1));

  const json j = run_json("locality " + quote(syn3), 0);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["format_version"], 3);
  ASSERT_EQ(j["runs"].size(), 2u);
  const json& l = j["runs"][0]["locality"];
  EXPECT_EQ(j["runs"][0]["policy"], "relws");
  EXPECT_EQ(l["pages"], 48);
  EXPECT_EQ(l["touched_bytes"], 196608);
  EXPECT_EQ(l["local_bytes"], 184320);
  EXPECT_EQ(l["unknown_bytes"], 4096);
  EXPECT_EQ(l["local_share"].get<double>(), 0.9375);
  EXPECT_DOUBLE_EQ(l["unknown_share"].get<double>(), 4096.0 / 196608.0);
  EXPECT_EQ(l["per_node"][1],
            (json{{"node", 1}, {"touched_bytes", 65536}, {"local_bytes", 61440}, {"local_share", 0.9375}}));
  const json& x = j["runs"][0]["relocalizations"];
  ASSERT_EQ(x.size(), 2u);
  EXPECT_EQ(x[0]["backend"], "simulated");
  EXPECT_EQ(x[0]["pages_examined"], 48);
  EXPECT_EQ(x[0]["pages_moved"], 2);
  EXPECT_EQ(x[0]["pages_failed"], 1);
  EXPECT_EQ(x[0]["bytes_moved"], 8192);
  EXPECT_EQ(x[0]["seconds"].get<double>(), 1.220703125e-4);
  EXPECT_DOUBLE_EQ(x[0]["gbps"].get<double>(), 8192 / 1.220703125e-4 / 1e9);
  EXPECT_EQ(x[1]["pages_moved"], 0);
  EXPECT_EQ(j["runs"][1]["relocalizations"], json::array());
  // A selection: only that run.
  const result one = run("locality " + quote(syn3) + " --phase stencil --iteration 1");
  EXPECT_EQ(one.code, 0) << one.err;
  EXPECT_TRUE(has(one.out, ": 1 phase run with a locality report")) << one.out;
  EXPECT_TRUE(has(one.out, run1)) << one.out;
  EXPECT_FALSE(has(one.out, "relocalized")) << one.out;
}

// A recorded run (make_golden): node 1's worker touched nothing in run #1.
TEST_F(Cli, LocalityOfARealRun) {
  const result r = run("locality " + quote(fib3));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, ": 3 phase runs with a locality report")) << r.out;
  EXPECT_TRUE(
      has(r.out, "   0  fib           0  golden-designate        16       0.066   56.2%     0.0%  n0 53.8% n1 66.7%\n"))
      << r.out;
  EXPECT_TRUE(has(r.out, "      relocalized: 16 pages examined, 7 moved, 0 failed, 0.029 MB in ")) << r.out;
  EXPECT_TRUE(
      has(r.out, "   1  fib           1  golden-designate        16       0.066   81.2%     0.0%  n0 81.2% n1 -\n"))
      << r.out;
  const json j = run_json("locality " + quote(fib3) + " --iteration 1", 0);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["index"], 1);
  EXPECT_EQ(j["runs"][0]["locality"]["per_node"][1]["local_share"], nullptr);
}

TEST_F(Cli, LocalityWithoutReportsSaysSoAndSucceeds) {
  for (const std::string& f : {syn, fib2}) {
    const result r = run("locality " + quote(f));
    EXPECT_EQ(r.code, 0) << r.err;
    const std::string v = f == syn ? "1" : "2";
    EXPECT_EQ(r.out, f + ": no locality reports (format version " + v + " predates locality reports)\n");
    const json j = run_json("locality " + quote(f), 0);
    EXPECT_EQ(j["ok"], true);
    EXPECT_EQ(j["runs"], json::array());
  }
  // A version-3 file whose tasks declared nothing.
  tr::trace_file f = tr::read(syn3);
  for (auto& r : f.phases) r.locality.reset(), r.relocalizations.clear();
  const std::string none = dir.file("none.cwst");
  tr::write(none, f);
  const result r = run("locality " + quote(none));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, none + ": no locality reports (no task declared what it touches)\n");
  // Reports in some runs but not in the selected one.
  f = tr::read(syn3);
  f.phases[1].locality.reset();
  const std::string some = dir.file("some.cwst");
  tr::write(some, f);
  EXPECT_EQ(run("locality " + quote(some) + " --iteration 1").out,
            some + ": no locality reports (no task declared what it touches, in the selected runs)\n");
  EXPECT_TRUE(has(run("locality " + quote(some)).out, ": 1 phase run with a locality report"));
}

TEST_F(Cli, LocalityBadInputExitCodes) {
  const result p = run("locality " + quote(syn3) + " --phase nosuch");
  EXPECT_EQ(p.code, 1);
  EXPECT_EQ(p.err, "cws-trace: " + syn3 + ": no phase run matches phase 'nosuch'\n");
  EXPECT_EQ(run("locality " + quote(syn3) + " --iteration 7").code, 1);
  EXPECT_EQ(run("locality " + quote(syn3) + " --iteration x").code, 1);
  EXPECT_EQ(run("locality").code, 1);
  EXPECT_EQ(run("locality " + quote(syn3) + " --bogus").code, 1);
  const json u = run_json("locality " + quote(syn3) + " --phase nosuch", 1);
  EXPECT_EQ(u["ok"], false);
  EXPECT_EQ(u["exit_code"], 1);
  const std::string bad = damaged("v3-synthetic-4w-audit.cwst");
  const result d = run("locality " + quote(bad));
  EXPECT_EQ(d.code, 2);
  EXPECT_EQ(d.err, "cws-trace: " + bad + ": checksum mismatch (file damaged)\n");
  EXPECT_EQ(d.out, "");
  const json j = run_json("locality " + quote(bad), 2);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["exit_code"], 2);
  EXPECT_EQ(run("locality " + quote(dir.file("missing.cwst"))).code, 2);
  // A consistent-looking file whose report is not: refused like any inconsistency.
  std::string payload = cws::test::payload_of(cws::test::slurp(syn3));
  const std::string from = "2 131072 122880 65536 61440";
  ASSERT_NE(payload.find(from), std::string::npos);
  payload.replace(payload.find(from), from.size(), "2 131072 122880 65536 65537");
  const std::string forged = dir.file("forged.cwst");
  cws::test::spit(forged, cws::test::wrap(payload));
  const result e = run("locality " + quote(forged));
  EXPECT_EQ(e.code, 2);
  EXPECT_EQ(e.err,
            "cws-trace: " + forged +
                ": inconsistent data: phase 'stencil' #0: locality: node 1: 65537 local bytes of 65536 touched\n");
}

TEST_F(Cli, InfoShowsTheLocalShare) {
  const result r = run("info " + quote(syn3));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "format version 3, text archive")) << r.out;
  EXPECT_TRUE(has(r.out, "  audit  locality\n")) << r.out;
  EXPECT_TRUE(has(r.out, "  local 93.8%, moved 2 pages in 0.0001526 s (2 relocalizations)\n")) << r.out;
  EXPECT_TRUE(has(r.out, "  local 100.0%\n")) << r.out;
  const result f = run("info " + quote(fib3));
  EXPECT_TRUE(has(f.out, "  local 56.2%, moved 7 pages in ")) << f.out;
  // No report: "-".
  const result o = run("info " + quote(syn2));
  EXPECT_TRUE(has(o.out, "      18  -\n")) << o.out;
  const json j = run_json("info " + quote(syn3), 0);
  EXPECT_EQ(j["phases"][0]["locality"]["local_share"].get<double>(), 0.9375);
  EXPECT_EQ(j["phases"][0]["relocalizations"].size(), 2u);
  EXPECT_EQ(j["phases"][0]["relocalizations"][0]["pages_moved"], 2);
  EXPECT_EQ(j["phases"][1]["relocalizations"], json::array());
  const json k = run_json("info " + quote(syn2), 0);
  EXPECT_EQ(k["phases"][0]["locality"], nullptr);
  EXPECT_EQ(k["phases"][0]["relocalizations"], json::array());
  // show --json has them too (the same run document).
  const json s = run_json("show " + quote(syn3) + " --iteration 0", 0);
  EXPECT_EQ(s["runs"][0]["locality"]["unknown_bytes"], 4096);
}

TEST_F(Cli, ConvertAndCoarsenCarryTheReports) {
  const tr::trace_file in = tr::read(fib3);
  const std::string xml = dir.file("f.xml.cwst");
  EXPECT_EQ(run("convert " + quote(fib3) + " --to xml " + quote(xml)).code, 0);
  EXPECT_TRUE(tr::identical(tr::read(xml), in));
  const std::string coarse = dir.file("c.cwst");
  const result r = run("coarsen " + quote(xml) + " --max-level 0 " + quote(coarse));
  EXPECT_EQ(r.code, 0) << r.err;
  const tr::trace_file out = tr::read(coarse);
  ASSERT_EQ(out.phases.size(), in.phases.size());
  for (std::size_t i = 0; i < in.phases.size(); ++i) {
    EXPECT_EQ(out.phases[i].steals.segments.size(), 1u) << i;
    EXPECT_EQ(out.phases[i].locality, in.phases[i].locality) << i;
    EXPECT_EQ(out.phases[i].relocalizations, in.phases[i].relocalizations) << i;
  }
  // The locality table of the coarsened file is that of the original.
  const std::string before = run("locality " + quote(fib3)).out, after = run("locality " + quote(coarse)).out;
  EXPECT_EQ(after.substr(after.find('\n')), before.substr(before.find('\n')));
  EXPECT_EQ(run("validate " + quote(coarse)).code, 0);
}

}  // namespace
