// cws-cilksort as a program, with tiny sizes: every variant's output is
// sorted and holds the input's multiset on 1, 2 and 4 (synthetic) workers,
// for sizes below the cutoff, not a power of two, and mostly duplicates; a
// damaged output makes the run fail (exit 1, one line); the JSON envelope,
// the hinted counters and the locality columns; hinted routing on a
// synthetic 4-node machine; the same input replays without divergence; trace
// files; one-line errors (exit 2). No test looks at a time.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "app_checks.hpp"

namespace {

using namespace cws::apps_test;
using strings = std::vector<std::string>;

const strings all_variants = {"std-sort",      "serial",     "cws-hinted",        "cws-hinted-hpt", "cws-random-ft",
                              "cws-random-il", "cws-evolve", "cws-evolve-hinted", "tbb-task-group", "tbb-parallel-sort",
                              "omp-tasks"};
const strings cws_variants = {"cws-hinted",    "cws-hinted-hpt", "cws-random-ft",
                              "cws-random-il", "cws-evolve",     "cws-evolve-hinted"};

json cilksort_json(strings args, const env_list& env = {}) { return json_of(CWS_APP_CILKSORT, std::move(args), env); }

// Small cutoffs, so that tiny arrays still go through the parallel sort and
// merge recursion (the default 1024 makes any size below it one leaf).
const strings deep = {"--quick-size", "4", "--merge-size", "2"};

TEST(Cilksort, EveryVariantSortsOnOneTwoAndFourWorkers) {
  const std::vector<std::pair<std::string, strings>> inputs = {
      {"below the cutoff", {"--size", "1000"}},
      {"not a power of two, deep recursion", with({"--size", "777"}, deep)},
      {"mostly duplicates", with({"--size", "3001", "--value-range", "3"}, deep)},
      {"one value", {"--size", "1"}},
  };
  for (const auto& [workers, env] : one_two_and_four_workers) {
    for (const auto& [what, args] : inputs) {
      SCOPED_TRACE("workers " + workers + ", " + what);
      const json doc = cilksort_json(with(args, {"--workers", workers, "--runs", "2", "--warmup", "1"}), env);
      ASSERT_TRUE(doc.contains("results")) << doc.dump();
      EXPECT_EQ(variants_of(doc), all_variants);
      EXPECT_EQ(doc["topology"]["workers"], std::stoi(workers));
      for (const json& e : doc["results"]) {
        EXPECT_EQ(e["verified"], true) << e.dump();
        EXPECT_EQ(e["sorts_checked"], 3) << e["variant"];  // every sort is checked, warm-up included
      }
    }
  }
}

// The sort lines are taken as the sorts run, not read back from the
// schedule's history, which here keeps one run.
TEST(Cilksort, SortLinesOutliveAOneRunHistory) {
  const json doc = cilksort_json({"--size", "777", "--variants", "cws-random-ft", "--workers", "2", "--iters", "2",
                                  "--runs", "2", "--warmup", "1"},
                                 {{"CWS_HISTORY", "1"}});
  const json& its = entry(doc, "cws-random-ft")["iterations"];
  ASSERT_EQ(its.size(), 6u) << its.dump();  // 3 runs of 2 sorts, warm-up included
  for (std::size_t i = 0; i < its.size(); ++i) {
    EXPECT_EQ(its[i]["run"], i / 2);
    EXPECT_EQ(its[i]["schedule_iteration"], its[0]["schedule_iteration"].get<std::uint64_t>() + i);
    EXPECT_EQ(its[i]["ran_as_kind"], "random");
  }
}

// The recursion really runs in parallel pieces: with the small cutoffs, a
// sort of 777 values is many tasks, each cws variant counts them, and under
// a hinted policy every spawn is a hinted one.
TEST(Cilksort, CountersAndFields) {
  const json doc = cilksort_json(with({"--size", "777", "--workers", "2", "--runs", "2", "--warmup", "1"}, deep));
  ASSERT_TRUE(doc.is_object()) << doc.dump();
  expect_envelope(doc, "cilksort");
  const json& p = doc["params"];
  expect_fields(p, {{"size", 777}, {"quick_size", 4}, {"merge_size", 2}, {"merge_hints", "pieces"}});
  EXPECT_EQ(p["variants"], all_variants);
  EXPECT_EQ(p["input_digest"]["count"], 777);
  for (const char* k : {"seed", "value_range", "vary_input", "input_block", "runs", "warmup", "iters", "page_homes"})
    EXPECT_TRUE(p.contains(k)) << k;

  const double std_sort = entry(doc, "std-sort")["median_s"].get<double>();
  for (const json& e : doc["results"]) {
    const std::string v = e["variant"];
    SCOPED_TRACE(v);
    EXPECT_EQ(e["runs"], 2);
    EXPECT_GT(e["median_s"].get<double>(), 0.0);
    EXPECT_LE(e["min_s"].get<double>(), e["median_s"].get<double>());
    EXPECT_DOUBLE_EQ(e["ratio_vs_std_sort"].get<double>(), e["median_s"].get<double>() / std_sort);
    for (const char* k : {"ratio_vs_serial", "ratio_vs_random_ft", "ratio_vs_tbb", "init_median_s"})
      EXPECT_TRUE(e.contains(k)) << k;
    if (!starts_with(v, "cws-")) {
      EXPECT_FALSE(e.contains("hinted_leaf"));
      continue;
    }
    for (const char* k : {"hinted_leaf", "hinted_node", "hinted_root", "het_inlined", "het_share", "place_steals",
                          "reclaimed", "local_share", "local_share_last", "local_bytes_share", "init_local_share",
                          "phase_wall_s", "outside_wall_s", "diverged_runs", "iterations"})
      EXPECT_TRUE(e.contains(k)) << k;
    EXPECT_EQ(e["schedules"]["sort"], "cilksort/" + v.substr(4));
    EXPECT_EQ(e["sorts"], 2);
    EXPECT_EQ(e["iterations"].size(), 3u);  // warm-up included
    // 777 values with these cutoffs: hundreds of sort and merge tasks, the same tree in every variant.
    EXPECT_GT(e["tasks"].get<double>(), 100.0);
    EXPECT_EQ(e["tasks"], entry(doc, "cws-random-ft")["tasks"]);
    const double hinted =
        e["hinted_leaf"].get<double>() + e["hinted_node"].get<double>() + e["hinted_root"].get<double>();
    if (v == "cws-hinted" || v == "cws-hinted-hpt") {
      EXPECT_GT(hinted, 0.0);  // every spawn of the recursion carries hints
      EXPECT_LE(e["het_inlined"].get<double>(), e["hinted_leaf"].get<double>());
      EXPECT_GE(e["het_share"].get<double>(), 0.0);
      EXPECT_LE(e["het_share"].get<double>(), 1.0);
    } else if (v == "cws-random-ft" || v == "cws-random-il" || v == "cws-evolve") {
      EXPECT_EQ(hinted, 0.0);  // hints are touches only under these policies
      EXPECT_TRUE(e["het_share"].is_null());
    }
    if (v == "cws-hinted-hpt") {
      EXPECT_EQ(e["het_inlined"], 0);  // HPT_DA has no elastic tasks
    }
  }
}

// --corrupt-output damages every sorted output before its check: by a swap
// (the order breaks) or, when every value is equal, by changing one (the
// multiset digest breaks). Either way exit 1 with one line.
TEST(Cilksort, DamagedOutputFails) {
  for (const strings& input : {strings{"--size", "3000"}, strings{"--size", "3000", "--value-range", "1"}}) {
    const run_result r =
        run_process(CWS_APP_CILKSORT, with(input, {"--variants", "serial,cws-random-ft", "--corrupt-output", "--runs",
                                                   "1", "--warmup", "0", "--workers", "2", "--json"}));
    EXPECT_EQ(r.code, 1) << r.dump();
    ASSERT_EQ(r.err_lines().size(), 1u) << r.dump();
    const std::string line = r.err_lines()[0];
    EXPECT_TRUE(starts_with(line, "cws-cilksort: error: serial: run 0: ")) << line;
    EXPECT_NE(line.find(input.size() == 2 ? "not sorted" : "not a permutation"), std::string::npos) << line;
    EXPECT_NE(line.find("and 1 more variant"), std::string::npos) << line;
    const json doc = json::parse(r.out);  // the document is still printed, with the failures in it
    for (const json& e : doc["results"]) {
      EXPECT_EQ(e["verified"], false);
      EXPECT_TRUE(e.contains("verify_error"));
    }
  }
  // The same runs without the damage pass.
  const json doc = cilksort_json(
      {"--size", "3000", "--variants", "serial,cws-random-ft", "--runs", "1", "--warmup", "0", "--workers", "2"});
  for (const json& e : doc["results"]) EXPECT_EQ(e["verified"], true);
}

// 2^16 values = 128 pages per array, 32 per node: the sort leaves hinted on
// their quarter's pages run on their node; random stealing over first-touch
// pages puts only part of them there.
TEST(Cilksort, HintedRoutingOnFourSyntheticNodes) {
  const json doc =
      cilksort_json({"--size", "65536", "--quick-size", "256", "--merge-size", "256", "--variants",
                     "cws-hinted,cws-hinted-hpt,cws-random-il", "--workers", "4", "--runs", "2", "--warmup", "1"},
                    four_nodes);
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  EXPECT_EQ(doc["topology"]["numa_nodes"], 4);
  EXPECT_EQ(doc["params"]["page_homes"], "simulated");
  for (const json& e : doc["results"]) {
    SCOPED_TRACE(e["variant"].get<std::string>());
    EXPECT_EQ(e["verified"], true);
    EXPECT_EQ(e["unknown_bytes"], 0);
    EXPECT_GE(e["local_share"].get<double>(), 0.0);
    EXPECT_LE(e["local_share"].get<double>(), 1.0);
  }
  for (const char* v : {"cws-hinted", "cws-hinted-hpt"}) {
    const json& e = entry(doc, v);
    SCOPED_TRACE(v);
    // Spawns on another node's data go to that node's place, merges over several nodes to the root.
    EXPECT_GT(e["hinted_node"].get<double>() + e["hinted_root"].get<double>(), 0.0) << e.dump(2);
    EXPECT_GT(e["local_share"].get<double>(), entry(doc, "cws-random-il")["local_share"].get<double>()) << e.dump(2);
  }
}

// A one-shot sort replayed: with the same input every run, evolve meets the
// same tree (the merge splits depend on the data only) and never diverges.
TEST(Cilksort, SameInputReplaysWithoutDivergence) {
  const json doc = cilksort_json(
      with({"--size", "4000", "--variants", "cws-evolve", "--workers", "2", "--runs", "4", "--warmup", "1"}, deep),
      {{"CWS_STALL_MS", "2000"}});  // no stall release while a worker is preempted on this loaded machine
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  const json& e = entry(doc, "cws-evolve");
  EXPECT_EQ(e["diverged_runs"], 0) << e.dump(2);
  const json& its = e["iterations"];
  ASSERT_EQ(its.size(), 5u);
  EXPECT_EQ(its[0]["ran_as_kind"], "random_no_template");
  for (std::size_t i = 1; i < its.size(); ++i) EXPECT_NE(its[i]["ran_as_kind"], "random_no_template") << i;
  EXPECT_EQ(doc["params"]["vary_input"], false);
}

TEST(Cilksort, TraceFileSeedsTheTemplate) {
  const strings args =
      with({"--size", "2000", "--variants", "cws-evolve", "--workers", "2", "--runs", "1", "--warmup", "0"}, deep);
  const json doc = json_seeded_by_own_trace(CWS_APP_CILKSORT, args);
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  const json& first = entry(doc, "cws-evolve")["iterations"][0];
  EXPECT_NE(first["ran_as_kind"], "random_no_template") << first.dump();
  EXPECT_TRUE(starts_with(first.value("template_from", ""), "file ")) << first.dump();
  EXPECT_EQ(entry(doc, "cws-evolve")["verified"], true);
}

TEST(Cilksort, ErrorsAreOneLineWithExitCodeTwo) {
  const strings tiny = {"--size", "100", "--runs", "1", "--warmup", "0"};
  for (const strings& bad :
       {strings{"--size", "0"}, strings{"--quick-size", "3"}, strings{"--variants", "nosuch"},
        strings{"--merge-hints", "diagonal"}, strings{"--no-such-flag"}, strings{"--policy", "random"}}) {
    expect_cws_error(run_process(CWS_APP_CILKSORT, with(tiny, bad)), "cilksort", bad[0]);
  }
  // A cws error (a bad CWS_* variable) too.
  const run_result r = run_process(CWS_APP_CILKSORT, tiny, {{"CWS_WORKERS", "zero"}});
  EXPECT_EQ(r.code, 2) << r.dump();
  ASSERT_EQ(r.err_lines().size(), 1u) << r.dump();
  EXPECT_TRUE(starts_with(r.err_lines()[0], "cws-cilksort: error: ")) << r.dump();
}

}  // namespace
