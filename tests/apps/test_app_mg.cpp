// The runner suite of cws-mg (label apps): the real binary as a child
// process with class S and three parallel levels (--serial-below 8), on 1, 2
// and synthetic 4 workers: every variant's rnm2 verified against the official
// value, the JSON document, the schedule strategies, locality on a synthetic
// 4-node machine, trace files, and the error conventions.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "app_checks.hpp"

namespace {

using namespace cws::apps_test;
using strings = std::vector<std::string>;

constexpr double class_s_rnm2 = 0.5307707005734e-04;

run_result run_mg(const strings& args, const env_list& env = {}) { return run_process(CWS_APP_MG, args, env); }

// Class S with levels 5, 4, 3 in parallel (32, 16, 8 planes), one measured run.
strings small(strings more = {}) {
  strings a = {"--class", "S", "--serial-below", "8", "--runs", "1", "--warmup", "1"};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

json run_mg_json(strings args, const env_list& env = {}) { return json_of(CWS_APP_MG, std::move(args), env); }

std::set<std::string> variant_names(const json& doc) {
  std::set<std::string> names;
  for (const json& e : doc["results"]) names.insert(e["variant"].get<std::string>());
  return names;
}

void expect_all_verified(const json& doc) {
  ASSERT_TRUE(doc["results"].is_array());
  for (const json& e : doc["results"]) {
    SCOPED_TRACE(e["variant"].get<std::string>());
    EXPECT_EQ(e["verified"], true);
    EXPECT_EQ(e["equals_serial"], true);
    EXPECT_LE(std::abs(e["rnm2"].get<double>() - class_s_rnm2) / class_s_rnm2, 1e-8);
    EXPECT_EQ(e["rnm2"], entry(doc, "serial")["rnm2"]);  // the same bits
    EXPECT_GT(e["median_s"].get<double>(), 0);
    EXPECT_GT(e["mops"].get<double>(), 0);
  }
}

TEST(AppMg, EveryVariantVerifiesOnOneAndTwoWorkers) {
  for (const char* workers : {"1", "2"}) {
    SCOPED_TRACE(std::string("workers ") + workers);
    const json doc = run_mg_json(small({"--workers", workers, "--schedules", "per-kernel,one,per-level"}));
    expect_all_verified(doc);
    const std::set<std::string> want = {"serial",
                                        "cws-random",
                                        "cws-user",
                                        "cws-stows-per-kernel",
                                        "cws-stows-one",
                                        "cws-stows-per-level",
                                        "cws-stows-follow-init",
                                        "cws-stuws-per-kernel",
                                        "cws-stuws-one",
                                        "cws-stuws-per-level",
                                        "cws-relws-per-kernel",
                                        "cws-relws-one",
                                        "cws-relws-per-level",
                                        "cws-evolve-per-kernel",
                                        "cws-evolve-one",
                                        "cws-evolve-per-level",
                                        "tbb-auto",
                                        "tbb-affinity",
                                        "tbb-static",
                                        "omp-static"};
    EXPECT_EQ(variant_names(doc), want);
  }
}

TEST(AppMg, SyntheticFourNodesVerifiesAndReportsLocality) {
  const json doc = run_mg_json(
      small({"--workers", "4", "--policies", "random,evolve,user", "--schedules", "per-level"}), four_nodes);
  expect_all_verified(doc);
  EXPECT_EQ(doc["topology"]["workers"], 4);
  EXPECT_EQ(doc["topology"]["numa_nodes"], 4);
  EXPECT_EQ(doc["params"]["page_homes"], "simulated");
  for (const char* v : {"cws-random", "cws-evolve", "cws-user"}) {
    const json& e = entry(doc, v);
    SCOPED_TRACE(v);
    ASSERT_TRUE(e["local_share"].is_number()) << e.dump();
    EXPECT_GT(e["local_share"].get<double>(), 0.0);
    EXPECT_LE(e["local_share"].get<double>(), 1.0);
    EXPECT_LE(e["local_share_min"].get<double>(), e["local_share"].get<double>());
    EXPECT_EQ(e["unknown_bytes"], 0);  // every touched page got its home from a first-touch phase
    EXPECT_FALSE(e["local_share_by_loop"].empty());
  }
  // Owner-mapped loops put block i of every level and kernel on worker i P / blocks, where
  // the first touch put it: only the halo planes at block edges are remote.
  // Byte-weighted, as the finest level dominates (the coarse levels' planes share pages).
  EXPECT_GT(entry(doc, "cws-user")["local_bytes_share"].get<double>(), 0.85);
  EXPECT_EQ(entry(doc, "cws-random")["pages_moved"], 0);  // random never relocalizes
  EXPECT_TRUE(entry(doc, "omp-static")["local_share"].is_null() || !entry(doc, "omp-static").contains("local_share"));
}

TEST(AppMg, JsonEnvelopeAndPhaseStructure) {
  const json doc =
      run_mg_json(small({"--workers", "2", "--policies", "stows", "--schedules", "one,per-level,per-kernel"}));
  EXPECT_EQ(doc["app"], "mg");
  for (const char* key : {"params", "topology", "results"}) EXPECT_TRUE(doc.contains(key)) << key;
  const json& p = doc["params"];
  EXPECT_EQ(p["class"], "S");
  EXPECT_EQ(p["size"], 32);
  EXPECT_EQ(p["nit"], 4);
  EXPECT_EQ(p["levels"], 5);
  EXPECT_EQ(p["block_planes"], 1);  // 32 planes / (16 x 2 workers)
  // The task count of a phase halves with every level down; levels 2 and 1 run on the caller.
  const json& levels = p["parallel_levels"];
  ASSERT_EQ(levels.size(), 5u);
  EXPECT_EQ(levels[0]["leaves"], 32);
  EXPECT_EQ(levels[1]["leaves"], 16);
  EXPECT_EQ(levels[2]["leaves"], 8);
  EXPECT_EQ(levels[3]["parallel"], false);
  EXPECT_EQ(entry(doc, "omp-static")["ratio_vs_omp_static"], 1.0);
  EXPECT_TRUE(entry(doc, "serial")["ratio_vs_omp_static"].is_number());
  // Per benchmark: initial residual, 4 x (rprj3 to levels 4 and 3, interp/resid/psinv on levels 3, 4, 5,
  // residual), norm = 1 + 4 x 12 + 1 phases.
  const json& one = entry(doc, "cws-stows-one");
  EXPECT_EQ(one["phases_per_benchmark"], 50.0);
  EXPECT_EQ(one["policy"], "stows");
  EXPECT_EQ(one["schedules"], "one");
  // The strategies: one schedule, one per parallel level, one per kernel and level.
  EXPECT_EQ(one["schedule_names"], json::array({"mg/stows-one"}));
  EXPECT_EQ(entry(doc, "cws-stows-per-level")["schedule_names"],
            json::array({"mg-L3/stows-per-level", "mg-L4/stows-per-level", "mg-L5/stows-per-level"}));
  const json& per_kernel = entry(doc, "cws-stows-per-kernel")["schedule_names"];
  EXPECT_EQ(per_kernel.size(), 12u);  // resid, psinv, interp on 3 levels, rprj3 to 2 levels, norm
  EXPECT_NE(std::find(per_kernel.begin(), per_kernel.end(), "mg-rprj3-L4/stows-per-kernel"), per_kernel.end());
  EXPECT_EQ(entry(doc, "cws-stows-follow-init")["follows"], "init");
  for (const char* v : {"cws-stows-one", "cws-stows-per-level", "cws-stows-per-kernel"}) {
    const json& e = entry(doc, v);
    EXPECT_EQ(e["phases"].get<double>(), 50.0) << v;  // one measured run
    EXPECT_TRUE(e["ran_as"].is_object()) << v;
  }
}

TEST(AppMg, TableNamesTheClassAndVerifies) {
  const run_result r = run_mg(small({"--workers", "2", "--policies", "evolve", "--schedules", "per-kernel"}));
  ASSERT_EQ(r.code, 0) << r.dump();
  EXPECT_NE(r.out.find("NAS MG class S"), std::string::npos) << r.dump();
  EXPECT_NE(r.out.find("cws-evolve "), std::string::npos) << r.dump();  // one strategy: no suffix
  EXPECT_NE(r.out.find("omp-static"), std::string::npos);
  EXPECT_NE(r.out.find("5.3077070057340e-05"), std::string::npos);
}

TEST(AppMg, TraceOutThenIn) {
  scratch_dir dir;
  const std::string file = dir.file("mg.cwst");
  const run_result out =
      run_mg(small({"--workers", "2", "--policies", "stows", "--schedules", "per-level", "--trace-out", file}));
  ASSERT_EQ(out.code, 0) << out.dump();
  ASSERT_TRUE(std::filesystem::exists(file));
  EXPECT_GT(std::filesystem::file_size(file), 0u);
  // No warm-up: the first benchmark is measured.
  const run_result in = run_mg({"--class", "S", "--serial-below", "8", "--runs", "1", "--warmup", "0", "--workers", "2",
                                "--policies", "stows", "--schedules", "per-level", "--trace-in", file, "--json"});
  ASSERT_EQ(in.code, 0) << in.dump();
  EXPECT_NE(in.err.find("loaded from"), std::string::npos) << in.dump();
  const json doc = json::parse(in.out);
  expect_all_verified(doc);
  // The stows variant's schedules start from the file's templates: its first phases replay them.
  EXPECT_EQ(entry(doc, "cws-stows")["ran_as"].value("random_no_template", 0), 0) << doc.dump();
}

TEST(AppMg, ErrorsAreOneLine) {
  const run_result bad_class = run_mg({"--class", "X"});
  EXPECT_NE(bad_class.code, 0);
  EXPECT_NE(bad_class.err.find("--class"), std::string::npos) << bad_class.dump();
  const run_result bad_strategy = run_mg({"--schedules", "per-phase"});
  EXPECT_NE(bad_strategy.code, 0);
  EXPECT_NE(bad_strategy.err.find("--schedules"), std::string::npos) << bad_strategy.dump();
  const run_result bad_policy = run_mg(small({"--policy", "nonsense"}));
  EXPECT_EQ(bad_policy.code, 2) << bad_policy.dump();
  ASSERT_EQ(bad_policy.err_lines().size(), 1u) << bad_policy.dump();
  EXPECT_EQ(bad_policy.err_lines()[0].rfind("cws-mg: error: ", 0), 0u) << bad_policy.dump();
  EXPECT_TRUE(bad_policy.out.empty());
}

}  // namespace
