// cws-floyd as a program, with tiny sizes: every variant's matrix equals the
// plain serial triple loop's on 1, 2 and 4 (synthetic) workers, with tiles
// that do not divide the matrix; the serial program's checksums are
// PolyBench's (n = 60 and 180, the whole algorithm); the JSON envelope and
// fields; evolve settles on stows; locality on a synthetic 4-node machine;
// trace files; one-line errors. No test looks at a time.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "app_checks.hpp"

namespace {

using namespace cws::apps_test;
using strings = std::vector<std::string>;

json floyd_json(strings args, const env_list& env = {}) { return json_of(CWS_APP_FLOYD, std::move(args), env); }

TEST(Floyd, EveryVariantVerifiesOnOneTwoAndFourWorkers) {
  // Tiles of 3 x 7 over 40 columns: the last tile of every band and the last band are short.
  const strings args = {"--size", "40",     "--full", "--tile-rows", "3", "--tile-cols",
                        "7",      "--runs", "1",      "--warmup",    "1"};
  expect_loop_suite_verifies(args, floyd_json, [](const json& doc) { EXPECT_EQ(doc["params"]["tiles"], 14 * 6); });
}

// Sum and maximum of the distances after the whole algorithm on PolyBench
// 4.2's initial matrix (MINI: n = 60, SMALL: n = 180), from an independent
// implementation.
TEST(Floyd, SerialProgramMatchesPolyBenchChecksums) {
  for (const auto& [n, sum] : {std::pair{std::string("60"), 6594}, {"180", 59360}}) {
    SCOPED_TRACE("n = " + n);
    const json doc =
        floyd_json({"--size", n, "--full", "--policy", "stows", "--runs", "1", "--warmup", "0", "--workers", "2"});
    ASSERT_TRUE(doc.contains("params")) << doc.dump();
    EXPECT_EQ(doc["params"]["steps"], std::stoi(n));
    EXPECT_EQ(doc["params"]["full"], true);
    EXPECT_EQ(doc["params"]["checksum"]["sum"], sum);
    EXPECT_EQ(doc["params"]["checksum"]["max"], 3);
    for (const json& e : doc["results"]) EXPECT_EQ(e["verified"], true) << e["variant"];
  }
}

// --phase-timeline: every cws variant reports the parts of its measured step
// phases (one sample per step and run), the baselines nothing; without the
// flag no variant reports a timeline.
TEST(Floyd, PhaseTimelineOnRequestOnly) {
  const unsigned steps = 4, runs = 2;
  const strings args = {"--size", "48", "--iters", "4", "--runs", "2", "--warmup", "1", "--policies", "random,stows"};
  strings timed = args;
  timed.push_back("--phase-timeline");
  const json doc = floyd_json(timed);
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  for (const json& e : doc["results"]) {
    SCOPED_TRACE(e["variant"].get<std::string>());
    if (!is_cws(e)) {
      EXPECT_FALSE(e.contains("phase_timeline"));
      continue;
    }
    expect_phase_timeline(e["phase_timeline"], steps * runs);
  }
  const json plain = floyd_json(args);
  ASSERT_TRUE(plain.contains("results")) << plain.dump();
  for (const json& e : plain["results"]) EXPECT_FALSE(e.contains("phase_timeline")) << e["variant"];
}

TEST(Floyd, EnvelopeAndFields) {
  const unsigned steps = 5, runs = 2, warmup = 1;
  const json doc = floyd_json({"--size", "64", "--iters", "5", "--tile-rows", "8", "--tile-cols", "24", "--runs", "2",
                               "--warmup", "1", "--policies", "random,stows,relws", "--workers", "2"});
  ASSERT_TRUE(doc.is_object()) << doc.dump();
  expect_envelope(doc, "floyd");
  expect_loop_suite_run(doc, runs, warmup);
  const json& p = doc["params"];
  EXPECT_EQ(p["size"], 64);
  EXPECT_EQ(p["steps"], steps);
  EXPECT_EQ(p["full"], false);
  EXPECT_EQ(p["tile_rows"], 8);
  EXPECT_EQ(p["tile_cols"], 24);
  EXPECT_EQ(p["tiles"], 3 * 8);  // 3 tiles across (24, 24, 16 columns), 8 bands
  EXPECT_EQ(p["bytes_per_step"], 2.0 * 64 * 64 * 4);

  for (const json& e : doc["results"]) {
    const std::string v = e["variant"];
    SCOPED_TRACE(v);
    EXPECT_GT(e["init_median_s"].get<double>(), 0.0);
    if (!starts_with(v, "cws-")) {
      EXPECT_FALSE(e.contains("iterations"));
      continue;
    }
    expect_phase_schedules(e, "floyd", {"init", "step"});
    expect_step_iterations(e["iterations"], steps, warmup, runs);
    EXPECT_EQ(e["init_iterations"].size(), std::size_t{warmup + runs});
    EXPECT_EQ(e["locality_phases"], steps * runs);
  }
  EXPECT_EQ(entry(doc, "omp-static")["ratio_vs_omp_static"], 1.0);
  // stows: the first step records the template, every later one replays it.
  const json& stows = entry(doc, "cws-stows");
  EXPECT_EQ(stows["step_follows"], "");
  EXPECT_EQ(stows["iterations"][0]["ran_as_kind"], "random_no_template");
  for (std::size_t i = 1; i < stows["iterations"].size(); ++i)
    EXPECT_EQ(stows["iterations"][i]["ran_as_kind"], "stows") << i;
  const json& follow = entry(doc, "cws-stows-follow-init");
  EXPECT_EQ(follow["step_follows"], "floyd-init/stows-follow-init");
  for (const json& it : follow["iterations"]) {
    EXPECT_EQ(it["ran_as_kind"], "stows");
    EXPECT_TRUE(starts_with(it.value("template_from", ""), "follows 'floyd-init/stows-follow-init': "));
  }
}

// Rows of 1024 ints are one page each and tiles span whole rows, so every
// tile owns its pages. A step also reads row k, which lies on one node.
TEST(Floyd, LocalityOnFourSyntheticNodes) {
  env_list env = four_nodes;
  env.emplace_back("CWS_EVOLVE_SLOWDOWN", "0");  // no return to relws on a preempted phase of this loaded machine
  const json doc = floyd_json({"--size", "1024", "--tile-rows", "16", "--tile-cols", "1024", "--iters", "8", "--runs",
                               "2", "--warmup", "1", "--policies", "random,stows,evolve,user", "--workers", "4"},
                              env);
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  EXPECT_EQ(doc["topology"]["numa_nodes"], 4);
  EXPECT_EQ(doc["params"]["page_homes"], "simulated");
  expect_cws_shares_in_range(doc, {"local_share", "local_share_min", "local_share_last"});
  // Schedule follows data, and the owner mapping of `user` (init and steps alike).
  for (const char* v : {"cws-stows-follow-init", "cws-user"})
    EXPECT_GE(entry(doc, v)["local_share_min"].get<double>(), 0.95) << entry(doc, v).dump(2);
  EXPECT_NEAR(entry(doc, "cws-random-interleave")["local_share"].get<double>(), 0.25, 0.05);
  expect_evolve_settled(entry(doc, "cws-evolve"), "iterations");
}

TEST(Floyd, TableAndIterationLines) {
  const run_result r = run_process(CWS_APP_FLOYD, {"--size", "32", "--iters", "2", "--runs", "1", "--warmup", "0",
                                                   "--policy", "stows", "--workers", "2"});
  ASSERT_EQ(r.code, 0) << r.dump();
  EXPECT_NE(r.out.find("cws-stows: schedule \"floyd-step/stows\""), std::string::npos) << r.dump();
  EXPECT_NE(r.out.find("random (no template yet)"), std::string::npos) << r.dump();
  expect_rows_verified(r, {"serial", "cws-stows", "cws-stows-follow-init", "tbb-static", "omp-static"});
}

TEST(Floyd, TraceFileSeedsTheTemplates) {
  const strings args = {"--size",   "32", "--iters",  "2",     "--runs",    "1",
                        "--warmup", "0",  "--policy", "stows", "--workers", "2"};
  const json doc = json_seeded_by_own_trace(CWS_APP_FLOYD, args);
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  const json& first = entry(doc, "cws-stows")["iterations"][0];
  EXPECT_EQ(first["ran_as_kind"], "stows") << first.dump();
  EXPECT_TRUE(starts_with(first.value("template_from", ""), "file ")) << first.dump();
}

TEST(Floyd, ErrorsAreOneLine) {
  const strings tiny = {"--size", "8", "--iters", "1", "--runs", "1", "--warmup", "0"};
  expect_cws_error(run_process(CWS_APP_FLOYD, with(tiny, {"--policy", "nosuch", "--json"})), "floyd", "nosuch");
  // More steps than vertices.
  expect_cws_error(run_process(CWS_APP_FLOYD, {"--size", "8", "--iters", "9", "--json"}), "floyd", "--iters 9");
  // Bad flags: CLI11's message and code, nothing on stdout.
  for (const strings& bad : {strings{"--size", "0"}, strings{"--tile-rows", "x"}, strings{"--no-such-flag"}}) {
    const run_result r = run_process(CWS_APP_FLOYD, with(tiny, bad));
    expect_usage_error(r);
    EXPECT_NE(r.err.find(bad[0]), std::string::npos) << r.dump();
  }
}

}  // namespace
