// The cws-trace CLI, run as a program on good and bad files: output text,
// JSON documents and exit codes (0 ok, 1 usage, 2 bad input, 3 not
// comparable, 4 output not writable), including coarsen's output files read
// back.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_fixture.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "cws/steal_tree/coarsen.hpp"
#include "cws/traces/trace_file.hpp"
#include "helpers.hpp"
#include "synthetic.hpp"

namespace {

namespace tr = cws::traces;
using cws::test::golden;
namespace st = cws::steal_tree;
using cws::test::Cli;
using cws::test::quote;
using cws::test::result;
using nlohmann::json;

TEST_F(Cli, HelpDocumentsSubcommandsAndExitCodes) {
  const result r = run("--help");
  EXPECT_EQ(r.code, 0);
  for (const char* s : {"info", "show", "tree", "timeline", "diff", "validate", "convert", "coarsen", "locality",
                        "Exit codes:", "3  diff: the two sides cannot be compared"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

// Format version 6: the header's place tree (each worker's node and leaf)
// and, for the runs that have any, the hinted counters; both in --json.
// Older files print neither.
TEST_F(Cli, InfoShowsThePlaceTreeAndHintedCounters) {
  const std::string v6 = golden("v6-synthetic-4w-audit.cwst");
  const result r = run("info " + quote(v6));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("places:    root -> 2 nodes -> 0 L3 groups -> 4 workers (topology)\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  worker   2 -> core   2, NUMA node  1, PU   0, place node  1, leaf   1\n"), std::string::npos)
      << r.out;
  // Run #0: 6 to the leaf, 5 to other nodes' places, 1 to the root, 4 inlined
  // by HET, 3 place steals, 1 reclaimed; run #1 has none (no line).
  EXPECT_NE(r.out.find("hinted spawns:\n"), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("   0  stencil       0           6           5           1            4             3          1\n"),
      std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("   1  stencil       1           0"), std::string::npos) << r.out;

  const json j = run_json("info " + quote(v6), 0);
  EXPECT_EQ(j["places"]["summary"], "root -> 2 nodes -> 0 L3 groups -> 4 workers (topology)");
  EXPECT_EQ(j["places"]["source"], "topology");
  EXPECT_EQ(j["places"]["leaf_of_worker"], (json{0, 0, 1, 1}));
  EXPECT_EQ(j["phases"][0]["hinted"],
            (json{{"leaf", 6}, {"node", 5}, {"root", 1}, {"het_inlined", 4}, {"place_steals", 3}, {"reclaimed", 1}}));
  EXPECT_EQ(j["phases"][1]["hinted"]["leaf"], 0);
  EXPECT_EQ(j["phases"][1]["elided"], 3);
  const json s = run_json("show " + quote(v6) + " --phase stencil --iteration 0", 0);
  EXPECT_EQ(s["runs"][0]["stats"][0]["hinted_leaf"], 6);
  EXPECT_EQ(s["runs"][0]["stats"][2]["hinted_node"], 3);
  EXPECT_EQ(s["runs"][0]["stats"][0]["reclaimed"], 1);

  const result old = run("info " + quote(golden("v5-synthetic-4w-audit.cwst")));
  EXPECT_EQ(old.code, 0) << old.err;
  EXPECT_EQ(old.out.find("places:"), std::string::npos) << old.out;
  EXPECT_EQ(old.out.find("hinted spawns"), std::string::npos) << old.out;
  EXPECT_TRUE(run_json("info " + quote(golden("v5-synthetic-4w-audit.cwst")), 0)["places"].is_null());
}

TEST_F(Cli, UsageErrorsExitWith1) {
  EXPECT_EQ(run("").code, 1);
  EXPECT_EQ(run("frobnicate x").code, 1);
  EXPECT_EQ(run("info").code, 1);
  EXPECT_EQ(run("info " + quote(syn) + " --bogus").code, 1);
  EXPECT_EQ(run("convert " + quote(syn) + " --to json " + quote(dir.file("x"))).code, 1);
  const result r = run("show " + quote(syn) + " --phase nosuch");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "cws-trace: " + syn + ": no phase run matches phase 'nosuch'\n");
}

TEST_F(Cli, Info) {
  const result r = run("info " + quote(syn));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("format version 1, text archive"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("host:      synthetic"), std::string::npos);
  EXPECT_NE(r.out.find("workers:   4 (pin=on, idle=adaptive, nesting=16, seed=0x5eed, record=on, audit=on)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("phases:    2 runs of 1 schedule"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stencil"), std::string::npos);
  const json j = run_json("info " + quote(fib), 0);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["options"]["workers"], 2);
  EXPECT_EQ(j["format_version"], 1);
  ASSERT_EQ(j["phases"].size(), 3u);
  EXPECT_EQ(j["phases"][0]["totals"]["steals"], 0);
  EXPECT_EQ(j["phases"][2]["totals"]["steals"], 5);
  EXPECT_EQ(j["phases"][2]["totals"]["tasks"], 233);
  EXPECT_EQ(j["placement"][1]["numa_node"], 1);
  // A version-1 file has no designated / taken-back counts: every steal is extra.
  EXPECT_EQ(j["phases"][2]["steal_kinds"], (json{{"designated", 0}, {"extra", 5}, {"taken_back", 0}}));
}

// Several files (an MPI run's per-rank traces): each in turn, then the total;
// JSON: one document listing each file's.
TEST_F(Cli, InfoOverSeveralFiles) {
  const result r = run("info " + quote(syn) + " " + quote(fib));
  EXPECT_EQ(r.code, 0) << r.err;
  const auto first = r.out.find("file:      " + syn), second = r.out.find("file:      " + fib);
  ASSERT_NE(first, std::string::npos) << r.out;
  ASSERT_NE(second, std::string::npos) << r.out;
  EXPECT_LT(first, second);
  EXPECT_NE(r.out.find("together: 2 files, 5 runs, 2 names"), std::string::npos) << r.out;
  const json j = run_json("info " + quote(syn) + " " + quote(fib), 0);
  ASSERT_EQ(j["files"].size(), 2u);
  EXPECT_EQ(j["files"][0]["phases"].size(), 2u);
  EXPECT_EQ(j["files"][1]["phases"].size(), 3u);
  EXPECT_EQ(j["files"][1]["options"]["workers"], 2);
  // One unreadable file fails the command, naming it.
  const result bad = run("info " + quote(syn) + " " + quote(dir.file("missing.cwst")));
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("missing.cwst"), std::string::npos) << bad.err;
}

// Designated, extra (= steals - designated) and taken-back steals per run.
TEST_F(Cli, InfoShowsKindsOfSteals) {
  const json j = run_json("info " + quote(fib2), 0);
  EXPECT_EQ(j["format_version"], 2);
  ASSERT_EQ(j["phases"].size(), 3u);
  EXPECT_EQ(j["phases"][0]["steal_kinds"], (json{{"designated", 2}, {"extra", 0}, {"taken_back", 4}}));
  EXPECT_EQ(j["phases"][1]["steal_kinds"], (json{{"designated", 1}, {"extra", 1}, {"taken_back", 5}}));
  EXPECT_EQ(j["phases"][2]["steal_kinds"], (json{{"designated", 0}, {"extra", 3}, {"taken_back", 5}}));
  const result r = run("info " + quote(syn2));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("format version 2, text archive"), std::string::npos) << r.out;
  // Header, then the two runs: relws 3 designated, 2 extra, 4 taken back;
  // stows 5 designated, 0 extra, 0 taken back.
  EXPECT_NE(r.out.find("steals  designated   extra  taken back  segments"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("        5           3       2           4         6"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("        5           5       0           0         6"), std::string::npos) << r.out;
  // show --json has them per worker.
  const json s = run_json("show " + quote(syn2) + " --iteration 0", 0);
  EXPECT_EQ(s["runs"][0]["stats"][2]["designated"], 2);
  EXPECT_EQ(s["runs"][0]["stats"][2]["taken_back"], 3);
  EXPECT_EQ(s["runs"][0]["steal_kinds"]["extra"], 2);
}

TEST_F(Cli, Show) {
  const result r = run("show " + quote(syn) + " --phase stencil --iteration 1");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("== stencil #1 (stows)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("steal tree: 4 workers, 6 segments, 5 steals, 18 tasks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#2 worker 3, taken at (1,0)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("stencil #0"), std::string::npos);
  const json j = run_json("show " + quote(syn) + " --iteration 0", 0);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["tree"]["segments"].size(), 6u);
  EXPECT_EQ(j["runs"][0]["tree"]["segments"][0]["parent"], nullptr);
  EXPECT_EQ(j["runs"][0]["tree"]["segments"][5]["parent"], 3);
  EXPECT_EQ(j["runs"][0]["tree"]["audit"].size(), 18u);
  EXPECT_EQ(j["runs"][0]["stats"][3]["failed_steals"], 11);
}

TEST_F(Cli, TreeDot) {
  const result r = run("tree " + quote(syn) + " --dot --iteration 0");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("digraph", 0), 0u);
  EXPECT_NE(r.out.find("r0s3 -> r0s5 [label=\"(2, 1)\"]"), std::string::npos) << r.out;
  const std::string out = dir.file("t.dot");
  const result w = run("tree " + quote(fib) + " --dot -o " + quote(out));
  EXPECT_EQ(w.code, 0) << w.err;
  EXPECT_EQ(w.out, "wrote " + out + ": 3 steal trees\n");
  EXPECT_EQ(cws::test::slurp(out).rfind("digraph", 0), 0u);
  const json j = run_json("tree " + quote(syn) + " --dot", 0);
  EXPECT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["dot"].get<std::string>().rfind("digraph", 0), 0u);
}

TEST_F(Cli, TimelineChrome) {
  const std::string out = dir.file("t.json");
  const result r = run("timeline " + quote(syn) + " --chrome " + quote(out));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("2 phase runs, 12 segments, 10 steals"), std::string::npos) << r.out;
  const json t = json::parse(cws::test::slurp(out));
  EXPECT_GT(t["traceEvents"].size(), 30u);
  const json j = run_json("timeline " + quote(fib) + " --phase fib --iteration 2 --chrome " + quote(out), 0);
  EXPECT_EQ(j["runs"], 1);
  EXPECT_EQ(j["steals"], 5);
  const result s = run("timeline " + quote(fib) + " --chrome -");
  EXPECT_EQ(s.code, 0);
  EXPECT_TRUE(json::accept(s.out)) << s.out.substr(0, 200);
  EXPECT_EQ(run("timeline " + quote(fib) + " --chrome " + quote(dir.file("no/such/t.json"))).code, 4);
}

TEST_F(Cli, DiffOfTwoRuns) {
  const json j = run_json("diff " + quote(syn + "@stencil#0") + " " + quote(syn + "@stencil#1"), 0);
  ASSERT_EQ(j["pairs"].size(), 1u);
  EXPECT_NEAR(j["pairs"][0]["moved_worker"].get<double>(), 3.0 / 18.0, 1e-12);
  EXPECT_EQ(j["pairs"][0]["moved_node"].get<double>(), 0.0);
  EXPECT_EQ(j["pairs"][0]["exact"], true);
  EXPECT_EQ(j["pairs"][0]["work"], 18);
  const result r = run("diff " + quote(syn + "@stencil#0") + " " + quote(syn + "@stencil#1"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("stencil#0  stencil#1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("16.7%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exact (audit)"), std::string::npos) << r.out;
}

TEST_F(Cli, DiffOfWholeFiles) {
  // A file against itself, phase by phase: nothing moved.
  const json j = run_json("diff " + quote(fib) + " " + quote(fib), 0);
  ASSERT_EQ(j["pairs"].size(), 3u);
  for (const json& p : j["pairs"]) {
    EXPECT_EQ(p["a"], p["b"]);
    EXPECT_EQ(p["moved_worker"].get<double>(), 0.0);
  }
  EXPECT_EQ(j["total"]["work"], 3 * 233);
  // Against its XML conversion: the same.
  const std::string xml = dir.file("s.xml.cwst");
  EXPECT_EQ(run("convert " + quote(syn) + " --to xml " + quote(xml)).code, 0);
  const json k = run_json("diff " + quote(syn) + " " + quote(xml), 0);
  EXPECT_EQ(k["total"]["moved_worker"].get<double>(), 0.0);
  // All runs of one phase of a file with both runs of another.
  EXPECT_EQ(run_json("diff " + quote(syn + "@stencil") + " " + quote(xml), 0)["pairs"].size(), 2u);
}

TEST_F(Cli, DiffThatCannotCompareExitsWith3) {
  const result r = run("diff " + quote(fib) + " " + quote(syn));
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "cws-trace: cannot compare: " + fib + " was recorded with 2 workers, " + syn + " with 4\n");
  // Different phase runs.
  const result s = run("diff " + quote(syn) + " " + quote(syn + "@stencil#1"));
  EXPECT_EQ(s.code, 3) << s.err;
  EXPECT_NE(s.err.find("has phase run stencil#0"), std::string::npos) << s.err;
  const json j = run_json("diff " + quote(syn + "@nosuch") + " " + quote(syn), 3);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["exit_code"], 3);
  // A bad iteration spec is a usage error, a bad file a bad input.
  EXPECT_EQ(run("diff " + quote(syn + "@stencil#x") + " " + quote(syn)).code, 1);
  EXPECT_EQ(run("diff " + quote(damaged()) + " " + quote(syn)).code, 2);
}

TEST_F(Cli, ValidateGoodAndBadFiles) {
  const result r = run("validate " + quote(syn) + " " + quote(fib));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(syn + ": ok (format version 1, text archive, 2 phase runs, 12 segments)"), std::string::npos)
      << r.out;
  const std::string bad = damaged();
  const result b = run("validate " + quote(syn) + " " + quote(bad));
  EXPECT_EQ(b.code, 2);
  EXPECT_EQ(b.err, "cws-trace: " + bad + ": checksum mismatch (file damaged)\n");
  const json j = run_json("validate " + quote(bad), 2);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["files"][0]["error"], bad + ": checksum mismatch (file damaged)");
  // Foreign, truncated, too new, missing.
  const std::string foreign = dir.file("foreign.cwst");
  cws::test::spit(foreign, "#!/bin/sh\necho hello\n");
  EXPECT_EQ(run("validate " + quote(foreign)).err, "cws-trace: " + foreign + ": not a cws trace file\n");
  const std::string bytes = cws::test::slurp(syn);
  const std::string truncated = dir.file("truncated.cwst");
  cws::test::spit(truncated, bytes.substr(0, 700));
  EXPECT_EQ(run("validate " + quote(truncated)).err,
            "cws-trace: " + truncated + ": truncated (700 of " + std::to_string(bytes.size()) + " bytes)\n");
  const std::string newer = dir.file("newer.cwst");
  cws::test::spit(newer, cws::test::wrap(cws::test::payload_of(bytes), 1, 7));
  const result n = run("info " + quote(newer));
  EXPECT_EQ(n.code, 2);
  EXPECT_EQ(n.err, "cws-trace: " + newer + ": format version 7 is newer than this cws (reads up to " + version + ")\n");
  const result m = run("info " + quote(dir.file("missing.cwst")));
  EXPECT_EQ(m.code, 2);
  EXPECT_EQ(m.err, "cws-trace: " + dir.file("missing.cwst") + ": cannot open (No such file or directory)\n");
  // Every reading subcommand refuses a damaged file with exit code 2.
  for (const char* cmd : {"info", "show", "tree"}) EXPECT_EQ(run(std::string(cmd) + " " + quote(bad)).code, 2) << cmd;
  EXPECT_EQ(run("timeline " + quote(bad) + " --chrome " + quote(dir.file("x.json"))).code, 2);
  EXPECT_EQ(run("convert " + quote(bad) + " --to xml " + quote(dir.file("x.cwst"))).code, 2);
}

TEST_F(Cli, ConvertBetweenEveryKind) {
  // The version-3 file: locality reports and relocalizations go along.
  std::string from = syn3;
  for (const char* kind : {"xml", "binary", "text"}) {
    const std::string out = dir.file(std::string("c.") + kind + ".cwst");
    const json j = run_json("convert " + quote(from) + " --to " + kind + " " + quote(out), 0);
    EXPECT_EQ(j["to"], kind);
    const tr::trace_file back = tr::read(out);
    EXPECT_EQ(back.header.archive, tr::parse_archive_kind(kind));
    EXPECT_TRUE(tr::identical(back, tr::read(syn3)));
    EXPECT_TRUE(back.phases[0].locality.has_value());
    EXPECT_EQ(back.phases[0].relocalizations.size(), 2u);
    from = out;
  }
  // Back to text: the very bytes of the golden file of the current version.
  if (tr::format_version == 3) {
    EXPECT_EQ(cws::test::slurp(from), cws::test::slurp(syn3));
  }
  // An older file converts to the current version with the same contents.
  const std::string up = dir.file("up.cwst");
  EXPECT_EQ(run("convert " + quote(syn) + " --to text " + quote(up)).code, 0);
  EXPECT_EQ(tr::read(up).header.format_version, tr::format_version);
  EXPECT_TRUE(tr::identical(tr::read(up), tr::read(syn)));
  const result r = run("convert " + quote(syn) + " --to binary " + quote(dir.file("b.cwst")));
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("binary archive"), std::string::npos) << r.out;
  EXPECT_EQ(run("convert " + quote(syn) + " --to xml " + quote(dir.file("no/such/x.cwst"))).code, 4);
}

// ---------------------------------------------------------------- coarsen

// The trees of `out` are those of `in` coarsened with `o` for the runs in
// `changed`, and untouched otherwise; everything else is the same.
void expect_coarsened(const tr::trace_file& in, const tr::trace_file& out, const st::coarsen_options& o,
                      const std::vector<std::size_t>& changed) {
  EXPECT_EQ(out.header.format_version, tr::format_version);
  EXPECT_EQ(out.header.host, in.header.host);
  EXPECT_EQ(out.header.created, in.header.created);
  EXPECT_EQ(out.header.options, in.header.options);
  EXPECT_EQ(out.header.topology, in.header.topology);
  EXPECT_EQ(out.header.node_of_worker(), in.header.node_of_worker());
  ASSERT_EQ(out.phases.size(), in.phases.size());
  for (std::size_t i = 0; i < in.phases.size(); ++i) {
    SCOPED_TRACE(i);
    const st::phase_record &a = in.phases[i], &b = out.phases[i];
    EXPECT_EQ(b.schedule, a.schedule);
    EXPECT_EQ(b.iteration, a.iteration);
    EXPECT_EQ(b.policy, a.policy);
    EXPECT_EQ(b.stats, a.stats);
    EXPECT_EQ(b.locality, a.locality);  // coarsening prunes the tree only
    EXPECT_EQ(b.relocalizations, a.relocalizations);
    const bool is_changed = std::find(changed.begin(), changed.end(), i) != changed.end();
    if (!is_changed) {
      EXPECT_TRUE(tr::identical(a, b));
      continue;
    }
    EXPECT_EQ(b.steals, st::coarsen(a.steals, o));
    const st::totals ta = st::summarize(a.steals), tb = st::summarize(b.steals);
    EXPECT_LE(tb.segments, ta.segments);
    EXPECT_LE(tb.steals, ta.steals);
    EXPECT_LE(tb.depth, ta.depth);
    EXPECT_EQ(tb.tasks, ta.tasks);
    EXPECT_TRUE(b.steals.audit.empty());
  }
}

TEST_F(Cli, CoarsenByLevel) {
  // The synthetic tree with max level 1: (2,0) out of the root and (2,1) out
  // of #3 go; 6 -> 4 segments in both runs.
  const std::string out = dir.file("c.cwst");
  const result r = run("coarsen " + quote(syn2) + " --max-level 1 " + quote(out));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("coarsen " + syn2 + " (max level 1): 2 phase runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stencil #0 (relws)          6 -> 4          5 -> 3  2 / 0 / 0 / 0"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("stencil #1 (stows)          6 -> 4          5 -> 3  2 / 0 / 0 / 0"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("wrote " + out + " (text archive, "), std::string::npos) << r.out;
  st::coarsen_options o;
  o.max_level = 1;
  const tr::trace_file in = tr::read(syn2), back = tr::read(out);
  expect_coarsened(in, back, o, {0, 1});
  EXPECT_EQ(st::summarize(back.phases[0].steals), (st::totals{18, 3, 4, 3}));
  EXPECT_EQ(back.header.archive, tr::archive_kind::text);
  EXPECT_EQ(back.phases[0].steals.segments[0].tasks, 5u + 2u);  // the root absorbed #4's 2 tasks
  EXPECT_EQ(back.phases[0].steals.segments[3].tasks, 3u + 1u);  // #3 absorbed #5's task
  // The other cws-trace commands accept the result.
  EXPECT_EQ(run("validate " + quote(out)).code, 0);
  EXPECT_EQ(run("info " + quote(out)).code, 0);
  const result s = run("show " + quote(out) + " --iteration 0");
  EXPECT_EQ(s.code, 0) << s.err;
  EXPECT_NE(s.out.find("steal tree: 4 workers, 4 segments, 3 steals, 18 tasks"), std::string::npos) << s.out;
  // Coarsening again with the same option changes nothing.
  const std::string again = dir.file("again.cwst");
  EXPECT_EQ(run("coarsen " + quote(out) + " --max-level 1 " + quote(again)).code, 0);
  EXPECT_EQ(cws::test::slurp(again), cws::test::slurp(out));
}

TEST_F(Cli, CoarsenByTasksOfOneRunAsJson) {
  // fib run #2: #0 root (220 tasks) -> #1 (4,32) 5 tasks -> #2 (1,0) 3 tasks
  // -> #3 (1,0) 5 tasks. --min-tasks 10: #2's subtree (8 tasks) goes, #3 with it.
  const std::string out = dir.file("f.cwst");
  const json j = run_json("coarsen " + quote(fib2) + " --min-tasks 10 --phase fib --iteration 2 " + quote(out), 0);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["output"], out);
  EXPECT_EQ(j["archive"], "text");
  EXPECT_EQ(j["max_level"], nullptr);
  EXPECT_EQ(j["min_tasks"], 10);
  ASSERT_EQ(j["runs"].size(), 1u);
  const json& r = j["runs"][0];
  EXPECT_EQ(r["index"], 2);
  EXPECT_EQ(r["schedule"], "fib");
  EXPECT_EQ(r["iteration"], 2);
  EXPECT_EQ(r["segments_before"], 4);
  EXPECT_EQ(r["segments_after"], 2);
  EXPECT_EQ(r["steals_before"], 3);
  EXPECT_EQ(r["steals_after"], 1);
  EXPECT_EQ(r["dropped"], (json{{"level", 0}, {"small", 1}, {"deeper", 0}, {"inside", 1}}));
  st::coarsen_options o;
  o.min_tasks = 10;
  const tr::trace_file back = tr::read(out);
  expect_coarsened(tr::read(fib2), back, o, {2});
  EXPECT_EQ(back.phases[2].steals.segments[1].tasks, 13u);
  // Both options, every run, an XML input: the output is XML too.
  const std::string xml_out = dir.file("x.cwst");
  const json k = run_json(
      "coarsen " + quote(golden("v2-synthetic-4w-audit.xml.cwst")) + " --max-level 2 --min-tasks 3 " + quote(xml_out),
      0);
  EXPECT_EQ(k["archive"], "xml");
  EXPECT_EQ(k["runs"].size(), 2u);
  o.max_level = 2;
  o.min_tasks = 3;
  const tr::trace_file x = tr::read(xml_out);
  EXPECT_EQ(x.header.archive, tr::archive_kind::xml);
  expect_coarsened(tr::read(syn2), x, o, {0, 1});
  // A version-1 input is written as the current version.
  const std::string up = dir.file("up.cwst");
  EXPECT_EQ(run("coarsen " + quote(fib) + " --max-level 0 " + quote(up)).code, 0);
  o = {};
  o.max_level = 0;
  expect_coarsened(tr::read(fib), tr::read(up), o, {0, 1, 2});
  for (const auto& p : tr::read(up).phases) EXPECT_EQ(p.steals.segments.size(), 1u);
}

TEST_F(Cli, CoarsenUsageErrors) {
  const std::string out = dir.file("c.cwst");
  const result r = run("coarsen " + quote(syn2) + " " + quote(out));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "cws-trace: coarsen: give --max-level, --min-tasks or both\n");
  const json j = run_json("coarsen " + quote(syn2) + " " + quote(out), 1);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(run("coarsen " + quote(syn2) + " --max-level " + quote(out)).code, 1);     // missing OUT
  EXPECT_EQ(run("coarsen " + quote(syn2) + " --max-level x " + quote(out)).code, 1);   // not a number
  EXPECT_EQ(run("coarsen " + quote(syn2) + " --max-level -1 " + quote(out)).code, 1);  // not a level
  EXPECT_EQ(run("coarsen --min-tasks 3").code, 1);
  EXPECT_EQ(run("coarsen " + quote(syn2) + " --min-tasks 3 " + quote(out) + " --phase nosuch").code, 1);
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(Cli, CoarsenBadInputAndUnwritableOutput) {
  const std::string out = dir.file("c.cwst");
  const std::string bad = damaged();
  const result r = run("coarsen " + quote(bad) + " --max-level 1 " + quote(out));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "cws-trace: " + bad + ": checksum mismatch (file damaged)\n");
  EXPECT_EQ(run("coarsen " + quote(dir.file("missing.cwst")) + " --max-level 1 " + quote(out)).code, 2);
  EXPECT_FALSE(std::filesystem::exists(out));
  const std::string nowhere = dir.file("no/such/dir/c.cwst");
  const result w = run("coarsen " + quote(syn2) + " --min-tasks 3 " + quote(nowhere));
  EXPECT_EQ(w.code, 4);
  EXPECT_EQ(w.err.rfind("cws-trace: " + nowhere + ": cannot write", 0), 0u) << w.err;
  const json j = run_json("coarsen " + quote(syn2) + " --min-tasks 3 " + quote(nowhere), 4);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["exit_code"], 4);
}

// --first N / --last N keep the earliest / latest N of the runs a subcommand lists.
TEST_F(Cli, FirstAndLastKeepTheEarliestOrLatestRuns) {
  const result info = run("info " + quote(syn3) + " --last 1");
  EXPECT_EQ(info.code, 0) << info.err;
  EXPECT_NE(info.out.find("phases:    2 runs of 1 schedule (the last 1 listed)"), std::string::npos) << info.out;
  EXPECT_EQ(info.out.find("relws"), std::string::npos) << "run #0 (relws) is not listed\n" << info.out;
  for (const std::string sub : {"info", "show", "locality"}) {
    SCOPED_TRACE(sub);
    const std::string list = sub == "info" ? "phases" : "runs";
    const json last = run_json(sub + " " + quote(syn3) + " --last 1", 0);
    ASSERT_EQ(last[list].size(), 1u) << last.dump();
    EXPECT_EQ(last[list][0]["index"], 1);
    const json first = run_json(sub + " " + quote(syn3) + " --first 1", 0);
    ASSERT_EQ(first[list].size(), 1u) << first.dump();
    EXPECT_EQ(first[list][0]["index"], 0);
    EXPECT_EQ(run_json(sub + " " + quote(syn3) + " --last 5", 0)[list].size(), 2u);  // more than there are: all
    EXPECT_EQ(run(sub + " " + quote(syn3) + " --first 1 --last 1").code, 1);
  }
  const result loc = run("locality " + quote(syn3) + " --phase stencil --last 1");
  EXPECT_EQ(loc.code, 0) << loc.err;
  EXPECT_NE(loc.out.find(": 2 phase runs with a locality report, the last 1 listed"), std::string::npos) << loc.out;
  EXPECT_NE(run("locality " + quote(syn3) + " --first 1").out.find("report, the first 1 listed"), std::string::npos);
  EXPECT_EQ(run("info " + quote(syn3) + " --last 0").code, 1);
  EXPECT_EQ(run("locality " + quote(syn3) + " --last x").code, 1);
}

// A reader that stops early is not an error (tools/demo.sh pipes into head
// under `set -o pipefail`): no death by SIGPIPE, no message, exit code 0.
TEST_F(Cli, ReaderClosingThePipeIsNotAnError) {
  // 3000 runs: every listing is far larger than a pipe holds, so `head -1`
  // has exited before cws-trace has written it all.
  tr::trace_file f = cws::test::synthetic_trace();
  const std::vector<st::phase_record> two = f.phases;
  f.phases.clear();
  for (std::uint64_t i = 0; i < 3000; ++i) {
    st::phase_record r = two[i % 2];
    r.iteration = i;
    for (cws::relocalization_report& x : r.relocalizations) x.iteration = i;
    f.phases.push_back(std::move(r));
  }
  const std::string big = dir.file("big.cwst"), err = dir.file("pipe-stderr");
  tr::write(big, f);
  for (const std::string args : {"info", "info --json", "show", "locality", "locality --phase stencil --last 2000"}) {
    SCOPED_TRACE(args);
    const std::string pipeline = "set -o pipefail; " + quote(CWS_TRACE_CLI) + " " + args + " " + quote(big) + " 2>" +
                                 quote(err) + " | head -1 >/dev/null";
    const int status = std::system(("bash -c " + quote(pipeline)).c_str());
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_EQ(cws::test::slurp(err), "");
  }
  // Any other failed write on stdout is an error (exit 4), with one line.
  const std::string full = "/dev/full";
  if (std::filesystem::exists(full)) {
    const int status =
        std::system((quote(CWS_TRACE_CLI) + " info " + quote(big) + " >" + full + " 2>" + quote(err)).c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 4);
    EXPECT_EQ(cws::test::slurp(err), "cws-trace: cannot write to standard output\n");
  }
}

}  // namespace
