// cws-lulesh run as a program at tiny sizes: every variant verified (the
// serial run's cycle count, bitwise its origin energy, plane 0 symmetric)
// on 1, 2 and 4 synthetic workers under both recursions; the hinted
// counters and het_share of the cws variants; locality of the hinted
// variant on a synthetic 4-node machine; LULESH 2.0's published result at
// size 5; the table, --trace-out and the error conventions. No test looks at
// a time.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "app_checks.hpp"

namespace {

using namespace cws::apps_test;
using strings = std::vector<std::string>;

const env_list four_nodes_four_workers = {{"CWS_TOPOLOGY", "pack:4 numa:1 core:1 pu:1"}, {"CWS_WORKERS", "4"}};
const strings all_variants{"serial",     "cws-hinted",        "cws-hinted-hpt",    "cws-random-ft", "cws-random-il",
                           "cws-evolve", "cws-evolve-hinted", "cws-evolve-follow", "tbb",           "omp-static"};

run_result run_lulesh(const strings& args, const env_list& env = {}) { return run_process(CWS_APP_LULESH, args, env); }

json run_lulesh_json(strings args, const env_list& env = {}) { return json_of(CWS_APP_LULESH, std::move(args), env); }

std::uint64_t hinted_spawns(const json& e) {
  return e["hinted_leaf"].get<std::uint64_t>() + e["hinted_node"].get<std::uint64_t>() +
         e["hinted_root"].get<std::uint64_t>();
}

// Every variant verified and equal to serial; the cws ones with their hinted figures.
void expect_all_verified(const json& doc, std::int64_t cycles) {
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  std::vector<std::string> names;
  for (const json& e : doc["results"]) names.push_back(e.value("variant", ""));
  EXPECT_EQ(names, all_variants);
  const json& serial = entry(doc, "serial");
  EXPECT_EQ(serial["cycles"], cycles);
  const double energy = serial["origin_energy"].get<double>();
  EXPECT_LT(energy, 3.948746e+7);  // the blast has spread
  for (const json& e : doc["results"]) {
    const std::string name = e["variant"];
    SCOPED_TRACE(name);
    EXPECT_EQ(e["verified"], true);
    EXPECT_EQ(e["cycles"], cycles);
    EXPECT_EQ(e["origin_energy"].get<double>(), energy);  // bitwise: the loops are deterministic
    EXPECT_EQ(e["origin_energy_equals_serial"], true);
    EXPECT_LT(e["symmetry"]["max_rel_diff"].get<double>(), 1e-8);
    EXPECT_EQ(e["runs"], 1);
    if (!is_cws(name)) continue;
    EXPECT_EQ(e["phases_per_run"].get<double>(), static_cast<double>(cycles * 28));
    EXPECT_GT(e["tasks_per_run"].get<double>(), 0.0);
    for (const char* key : {"hinted_leaf", "hinted_node", "hinted_root", "het_inlined", "place_steals", "reclaimed",
                            "het_share", "local_share"})
      EXPECT_TRUE(e.contains(key)) << key;
    const bool hinted = name == "cws-hinted" || name == "cws-hinted-hpt";
    if (hinted) {
      EXPECT_GT(hinted_spawns(e), 0u);  // every spawn of the recursion carries a hint
      EXPECT_EQ(e["ran_as"].value("hinted", 0), cycles * 28);
      const double het = e["het_share"].get<double>();
      EXPECT_GE(het, 0.0);
      EXPECT_LE(het, 1.0);
    }
    if (name == "cws-hinted-hpt") {
      EXPECT_EQ(e["het_inlined"], 0);  // HClib's HPT_DA has no elastic tasks
    }
    if (name == "cws-random-ft" || name == "cws-random-il") {
      EXPECT_EQ(e["ran_as"].value("random", 0), cycles * 28);
    }
    if (name == "cws-evolve-follow") {
      EXPECT_EQ(e["leaders"], json({"stress_init", "stress_gather"}));
    }
  }
}

class LuleshVariants : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(LuleshVariants, EveryVariantMatchesSerial) {
  const auto& [shape, workers] = GetParam();
  const env_list env = workers == 4 ? four_nodes_four_workers : env_list{{"CWS_WORKERS", std::to_string(workers)}};
  const json doc =
      run_lulesh_json({"-s", "6", "--cycles", "10", "--runs", "1", "--warmup", "0", "--recursion", shape}, env);
  EXPECT_EQ(doc["app"], shape == "regular" ? "lulesh" : "lulesh-ir");
  EXPECT_EQ(doc["params"]["recursion"], shape);
  EXPECT_EQ(doc["topology"]["workers"], workers);
  expect_all_verified(doc, 10);
}

INSTANTIATE_TEST_SUITE_P(WorkersAndRecursions, LuleshVariants,
                         ::testing::Combine(::testing::Values("regular", "irregular"), ::testing::Values(1, 2, 4)),
                         [](const auto& p) {
                           return std::get<0>(p.param) + "_" + std::to_string(std::get<1>(p.param)) + "w";
                         });

TEST(LuleshApp, SizeFiveReproducesLulesh2PublishedResult) {
  const json doc = run_lulesh_json({"-s", "5", "--variants", "cws-random-ft", "--runs", "1", "--warmup", "0"});
  for (const char* v : {"serial", "cws-random-ft"}) {
    SCOPED_TRACE(v);
    const json& e = entry(doc, v);
    EXPECT_EQ(e["cycles"], 72);
    EXPECT_NEAR(e["origin_energy"].get<double>(), 7.853665e+03, 0.5e-6 * 7.853665e+03);
    EXPECT_EQ(e["verified"], true);
  }
}

TEST(LuleshApp, HintedRunsOnTheNodesHoldingItsBlocks) {
  const json doc = run_lulesh_json({"-s", "16", "--cycles", "4", "--runs", "1", "--warmup", "0", "--variants",
                                    "cws-hinted,cws-hinted-hpt,cws-random-il"},
                                   four_nodes_four_workers);
  const double hinted = entry(doc, "cws-hinted")["local_share"].get<double>();
  const double hpt = entry(doc, "cws-hinted-hpt")["local_share"].get<double>();
  const double interleaved = entry(doc, "cws-random-il")["local_share"].get<double>();
  EXPECT_GT(hinted, 0.85);
  EXPECT_GT(hpt, 0.85);
  EXPECT_LT(interleaved, 0.6);  // about 1 / 4 of the pages on the worker's node
  EXPECT_EQ(entry(doc, "cws-hinted")["placement"], "block_cyclic");
  EXPECT_EQ(entry(doc, "cws-random-il")["placement"], "interleaved");
  // Ranges on another node's blocks went to that node's place.
  EXPECT_GT(entry(doc, "cws-hinted")["hinted_node"].get<std::uint64_t>(), 0u);
}

// --phase-timeline: one sample per measured phase of the cws variant.
TEST(LuleshApp, PhaseTimelineCoversEveryMeasuredPhase) {
  const json doc = run_lulesh_json(
      {"-s", "5", "--cycles", "3", "--variants", "cws-random-ft", "--runs", "2", "--warmup", "0", "--phase-timeline"});
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  const json& e = entry(doc, "cws-random-ft");
  expect_phase_timeline(e["phase_timeline"], static_cast<std::size_t>(e["phases_per_run"].get<double>() * 2));
  EXPECT_FALSE(entry(doc, "serial").contains("phase_timeline"));
}

TEST(LuleshApp, TablePrintsLuleshSummaryAndEveryVariant) {
  const run_result r = run_lulesh({"-s", "4", "--cycles", "3", "--runs", "1", "--warmup", "0"});
  ASSERT_EQ(r.code, 0) << r.dump();
  EXPECT_NE(r.out.find("Final Origin Energy"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Iteration count     =  3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MaxRelDiff"), std::string::npos);
  for (const std::string& v : all_variants) EXPECT_NE(r.out.find(v), std::string::npos) << v;
}

TEST(LuleshApp, TraceOutHoldsEveryCwsPhase) {
  scratch_dir dir;
  const std::string path = dir.file("lulesh.cwst");
  const run_result r = run_lulesh(
      {"-s", "4", "--cycles", "2", "--runs", "1", "--warmup", "0", "--variants", "cws-random-ft", "--trace-out", path});
  ASSERT_EQ(r.code, 0) << r.dump();
  EXPECT_GT(std::filesystem::file_size(path), 0u);
  // 3 setup loops + 2 cycles x 28 loops, one run.
  EXPECT_NE(r.err.find("trace: 59 phase runs written"), std::string::npos) << r.err;
}

TEST(LuleshApp, BadArgumentsAreRefused) {
  for (const strings& args : {strings{"--recursion", "sideways"}, strings{"--variants", "cws-nothing"},
                              strings{"-s", "0"}, strings{"--initial", "3.0"}}) {
    const run_result r = run_lulesh(args);
    EXPECT_NE(r.code, 0) << r.dump();
    EXPECT_TRUE(r.out.empty() || r.out.find("results") == std::string::npos) << r.dump();
  }
}

}  // namespace
