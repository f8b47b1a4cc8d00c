// cws-jacobi as a program, with tiny non-square grids: every variant's grid
// equals the serial program's on 1, 2 and 4 (synthetic) workers, with blocks
// that do not divide the rows; the JSON envelope and the runner's fields;
// schedule follows data under --follow-init; the table with its iteration
// lines; one-line errors. No test looks at a time.
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

json jacobi_json(strings args, const env_list& env = {}) { return json_of(CWS_APP_JACOBI, std::move(args), env); }

TEST(Jacobi, EveryVariantVerifiesOnNonSquareGrids) {
  // Blocks of 5 rows: the last block is short; both wide and tall grids.
  for (const auto& [rows, cols] : {std::pair{std::string("37"), std::string("90")}, {"90", "37"}}) {
    SCOPED_TRACE(rows + " x " + cols);
    expect_loop_suite_verifies(
        {"--rows", rows, "--cols", cols, "--block", "5", "--iters", "7", "--runs", "1", "--warmup", "1"}, jacobi_json,
        [&](const json& doc) {
          EXPECT_EQ(doc["params"]["rows"], std::stoi(rows));
          EXPECT_EQ(doc["params"]["cols"], std::stoi(cols));
        });
  }
}

TEST(Jacobi, EnvelopeAndRunnerFields) {
  const json doc = jacobi_json({"--rows", "24", "--cols", "50", "--iters", "4", "--runs", "2", "--warmup", "1",
                                "--policies", "random,stows", "--workers", "2"});
  ASSERT_TRUE(doc.is_object()) << doc.dump();
  EXPECT_EQ(doc["app"], "jacobi");
  const json& p = doc["params"];
  for (const char* k : {"rows", "cols", "block_rows", "iters", "runs", "warmup", "order", "policies", "follow_init",
                        "evolve_init", "bytes_per_step"})
    EXPECT_TRUE(p.contains(k)) << k;
  EXPECT_EQ(p["policies"], (strings{"random", "stows"}));
  const json& stows = entry(doc, "cws-stows");
  EXPECT_EQ(stows["schedules"]["init"], "jacobi-init/stows");
  EXPECT_EQ(stows["schedules"]["sweep"], "jacobi-sweep/stows");
  EXPECT_EQ(stows["sweep_follows"], "");
  // One line per sweep of every run (warm-up included): 3 runs of 4 sweeps.
  ASSERT_EQ(stows["iterations"].size(), 12u) << stows.dump(2);
  EXPECT_EQ(stows["iterations"][0]["ran_as_kind"], "random_no_template");
  EXPECT_EQ(stows["init_iterations"].size(), 3u);
  for (const char* k : {"median_s", "init_median_s", "gbps", "local_share", "pages_moved", "replayed_share"})
    EXPECT_TRUE(stows.contains(k)) << k;
  EXPECT_FALSE(entry(doc, "omp-static").contains("schedules"));
  EXPECT_TRUE(entry(doc, "cws-random").contains("ratio_vs_omp_static"));
}

// The iteration lines are taken as the phases run, not read back from the
// schedule's history, which here keeps one run.
TEST(Jacobi, IterationLinesOutliveAOneRunHistory) {
  const json doc = jacobi_json({"--rows", "24", "--cols", "30", "--iters", "4", "--runs", "2", "--warmup", "1",
                                "--policies", "stows", "--workers", "2"},
                               {{"CWS_HISTORY", "1"}});
  const json& stows = entry(doc, "cws-stows");
  const json& its = stows["iterations"];
  expect_step_iterations(its, 4, 1, 2);
  for (std::size_t i = 1; i < its.size(); ++i)
    EXPECT_EQ(its[i]["schedule_iteration"], its[0]["schedule_iteration"].get<std::uint64_t>() + i);
  EXPECT_EQ(its[0]["ran_as_kind"], "random_no_template");
  EXPECT_EQ(its.back()["ran_as_kind"], "stows");
  EXPECT_EQ(stows["init_iterations"].size(), 3u);
}

TEST(Jacobi, FollowInitMakesTheSweepsReplayInitsTemplate) {
  const json doc = jacobi_json({"--rows", "24", "--cols", "30", "--iters", "3", "--runs", "1", "--warmup", "1",
                                "--policies", "random,stows,relws", "--follow-init", "--workers", "2"});
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  // With --follow-init every replaying variant follows init; no separate follow-init variant.
  EXPECT_EQ(variants_of(doc), (strings{"serial", "cws-random", "cws-random-interleave", "cws-stows", "cws-relws",
                                       "tbb-auto", "tbb-affinity", "tbb-static", "omp-static"}));
  EXPECT_EQ(entry(doc, "cws-stows")["sweep_follows"], "jacobi-init/stows");
  EXPECT_EQ(entry(doc, "cws-relws")["sweep_follows"], "jacobi-init/relws");
  EXPECT_EQ(entry(doc, "cws-random")["sweep_follows"], "");
}

TEST(Jacobi, TableAndIterationLines) {
  const run_result r = run_process(CWS_APP_JACOBI, {"--rows", "20", "--cols", "41", "--iters", "2", "--runs", "1",
                                                    "--warmup", "0", "--policy", "stows", "--workers", "2"});
  ASSERT_EQ(r.code, 0) << r.dump();
  EXPECT_NE(r.out.find("cws-jacobi: 20 x 41 grid"), std::string::npos) << r.dump();
  EXPECT_NE(r.out.find("cws-stows: schedule \"jacobi-sweep/stows\""), std::string::npos) << r.dump();
  EXPECT_NE(r.out.find("ms/sweep"), std::string::npos) << r.dump();
  for (const std::string v : {"serial", "cws-stows", "cws-stows-follow-init", "tbb-static", "omp-static"})
    EXPECT_NE(r.out.find("\n" + v + " "), std::string::npos) << v;
}

TEST(Jacobi, ErrorsAreOneLine) {
  const run_result bad_policy = run_process(CWS_APP_JACOBI, {"--rows", "8", "--cols", "8", "--policy", "bogus"});
  EXPECT_EQ(bad_policy.code, 2) << bad_policy.dump();
  EXPECT_EQ(bad_policy.out, "") << bad_policy.dump();
  ASSERT_EQ(bad_policy.err_lines().size(), 1u) << bad_policy.dump();
  EXPECT_EQ(bad_policy.err_lines()[0].rfind("cws-jacobi: error: ", 0), 0u) << bad_policy.dump();
  const run_result too_small = run_process(CWS_APP_JACOBI, {"--rows", "2"});
  EXPECT_NE(too_small.code, 0) << too_small.dump();
  EXPECT_EQ(too_small.out, "") << too_small.dump();
}

}  // namespace
