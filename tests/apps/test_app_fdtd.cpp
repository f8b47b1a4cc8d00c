// cws-fdtd as a program, with tiny sizes: every variant's fields equal the
// plain serial program's bit for bit on 1, 2 and 4 (synthetic) workers; the
// serial program's checksums are PolyBench's (datasets MINI and SMALL); the
// JSON envelope and fields (two step phases per time step, each with its own
// schedule, h replaying e's template); evolve settles on stows; locality on a
// synthetic 4-node machine; trace files; one-line errors. No test looks at a
// time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "app_checks.hpp"

namespace {

using namespace cws::apps_test;
using strings = std::vector<std::string>;

json fdtd_json(strings args, const env_list& env = {}) { return json_of(CWS_APP_FDTD, std::move(args), env); }

TEST(Fdtd, EveryVariantVerifiesOnOneTwoAndFourWorkers) {
  // Blocks of 3 rows: the last block is short, row 0 and row nx-1 are in blocks of their own kind.
  const strings args = {"--nx", "40", "--ny", "24", "--block", "3", "--iters", "5", "--runs", "1", "--warmup", "1"};
  expect_loop_suite_verifies(args, fdtd_json, [](const json&) {});
}

// The sums of the three fields after PolyBench 4.2's MINI (tmax 20, 20 x 30)
// and SMALL (40, 60 x 80) runs, from an independent implementation; the last
// bits depend on the summation order.
TEST(Fdtd, SerialProgramMatchesPolyBenchChecksums) {
  struct dataset {
    strings args;
    double ex, ey, hz;
  };
  for (const dataset& d :
       {dataset{
            {"--nx", "20", "--ny", "30", "--iters", "20"}, 1910.9611519827547, 1417.0544378320169, 6839.5251796329549},
        dataset{{"--nx", "60", "--ny", "80", "--iters", "40"},
                50508.475420239316,
                41484.037088507044,
                83737.833422344091}}) {
    SCOPED_TRACE(d.args[1] + " x " + d.args[3]);
    const json doc = fdtd_json(with(d.args, {"--policy", "stows", "--runs", "1", "--warmup", "0", "--workers", "2"}));
    ASSERT_TRUE(doc.contains("params")) << doc.dump();
    const json& sums = doc["params"]["checksums"];
    EXPECT_NEAR(sums["ex"].get<double>(), d.ex, 1e-12 * d.ex);
    EXPECT_NEAR(sums["ey"].get<double>(), d.ey, 1e-12 * d.ey);
    EXPECT_NEAR(sums["hz"].get<double>(), d.hz, 1e-12 * d.hz);
    for (const json& e : doc["results"]) EXPECT_EQ(e["verified"], true) << e["variant"];
  }
}

TEST(Fdtd, EnvelopeAndFields) {
  const unsigned iters = 3, runs = 2, warmup = 1;
  const json doc = fdtd_json({"--nx", "64", "--ny", "32", "--iters", "3", "--runs", "2", "--warmup", "1", "--policies",
                              "random,stows,relws", "--workers", "2"});
  ASSERT_TRUE(doc.is_object()) << doc.dump();
  expect_envelope(doc, "fdtd");
  expect_loop_suite_run(doc, runs, warmup);
  const json& p = doc["params"];
  EXPECT_EQ(p["nx"], 64);
  EXPECT_EQ(p["ny"], 32);
  EXPECT_EQ(p["tmax"], iters);
  EXPECT_EQ(p["block_rows"], 2);  // nx / (16 x workers)
  EXPECT_EQ(p["blocks"], 32);
  EXPECT_EQ(p["bytes_per_step"], 9.0 * 64 * 32 * 8);

  for (const json& e : doc["results"]) {
    const std::string v = e["variant"];
    SCOPED_TRACE(v);
    EXPECT_GT(e["e_median_s"].get<double>(), 0.0);
    EXPECT_GT(e["h_median_s"].get<double>(), 0.0);
    if (!starts_with(v, "cws-")) {
      EXPECT_FALSE(e.contains("e_iterations"));
      continue;
    }
    expect_phase_schedules(e, "fdtd", {"init", "e", "h"});
    // Every step phase of every run, warm-up flagged; one init per run.
    for (const char* key : {"e_iterations", "h_iterations"}) {
      SCOPED_TRACE(key);
      expect_step_iterations(e[key], iters, warmup, runs);
    }
    EXPECT_EQ(e["init_iterations"].size(), std::size_t{warmup + runs});
    EXPECT_EQ(e["locality_phases"], 2 * iters * runs);  // e and h of the measured steps
  }
  EXPECT_EQ(entry(doc, "omp-static")["ratio_vs_omp_static"], 1.0);
  EXPECT_EQ(entry(doc, "cws-random")["h_follows"], "");  // random replays nothing
  // Under a replaying policy the h phase replays the e phase's template.
  for (const char* v : {"cws-stows", "cws-relws"}) {
    const json& e = entry(doc, v);
    const std::string e_schedule = e["schedules"]["e"];
    EXPECT_EQ(e["e_follows"], "");
    EXPECT_EQ(e["h_follows"], e_schedule);
    // The first e phase records the template (no template yet); every h phase follows it.
    EXPECT_EQ(e["e_iterations"][0]["ran_as_kind"], "random_no_template");
    for (const json& it : e["h_iterations"])
      EXPECT_TRUE(starts_with(it.value("template_from", ""), "follows '" + e_schedule + "': ")) << it.dump();
  }
  const json& follow = entry(doc, "cws-stows-follow-init");
  EXPECT_EQ(follow["e_follows"], "fdtd-init/stows-follow-init");
  EXPECT_EQ(follow["h_follows"], "fdtd-init/stows-follow-init");
  for (const char* key : {"e_iterations", "h_iterations"})
    for (const json& it : follow[key]) EXPECT_EQ(it["ran_as_kind"], "stows") << it.dump();
}

TEST(Fdtd, HOwnTemplateFlag) {
  const json doc = fdtd_json({"--nx", "32", "--ny", "16", "--iters", "2", "--runs", "1", "--warmup", "0", "--policy",
                              "stows", "--h-own-template", "--workers", "2"});
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  EXPECT_EQ(doc["params"]["h_own_template"], true);
  const json& stows = entry(doc, "cws-stows");
  EXPECT_EQ(stows["h_follows"], "");
  EXPECT_EQ(stows["h_iterations"][0]["ran_as_kind"], "random_no_template");
  EXPECT_EQ(stows["verified"], true);
}

// Rows of 512 doubles are one page each; 4 blocks of 64 rows, one per node
// at best. A step reads one row across each block boundary (hz in e, ey in
// h), so even a perfect mapping stays just below 100 %.
TEST(Fdtd, LocalityOnFourSyntheticNodes) {
  env_list env = four_nodes;
  env.emplace_back("CWS_EVOLVE_SLOWDOWN", "0");  // no return to relws on a preempted phase of this loaded machine
  const json doc = fdtd_json({"--nx", "256", "--ny", "512", "--block", "64", "--iters", "8", "--runs", "2", "--warmup",
                              "1", "--policies", "random,stows,evolve", "--workers", "4"},
                             env);
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  EXPECT_EQ(doc["topology"]["numa_nodes"], 4);
  EXPECT_EQ(doc["params"]["page_homes"], "simulated");
  expect_cws_shares_in_range(doc,
                             {"local_share", "local_share_min", "local_share_last", "e_local_share", "h_local_share"});
  for (const json& e : doc["results"]) {
    if (!is_cws(e)) continue;
    EXPECT_LE(e["local_share_min"].get<double>(), e["local_share"].get<double>() + 1e-12) << e["variant"];
  }
  // Schedule follows data: every step phase runs its blocks where init put them.
  const json& follow = entry(doc, "cws-stows-follow-init");
  EXPECT_GE(follow["local_share_min"].get<double>(), 0.99) << follow.dump(2);
  // Interleaved pages: a quarter of every block's bytes on its worker's node.
  EXPECT_NEAR(entry(doc, "cws-random-interleave")["local_share"].get<double>(), 0.25, 0.05);
  // evolve: relws a few steps, then stows on a template it has moved the pages to.
  expect_evolve_settled(entry(doc, "cws-evolve"), "e_iterations");
}

TEST(Fdtd, TableAndIterationLines) {
  const run_result r = run_process(CWS_APP_FDTD, {"--nx", "32", "--ny", "16", "--iters", "2", "--runs", "1", "--warmup",
                                                  "0", "--policy", "stows", "--workers", "2"});
  ASSERT_EQ(r.code, 0) << r.dump();
  EXPECT_NE(r.out.find("cws-stows: schedule \"fdtd-e/stows\""), std::string::npos) << r.dump();
  EXPECT_NE(r.out.find("cws-stows: schedule \"fdtd-h/stows\" (follows \"fdtd-e/stows\")"), std::string::npos)
      << r.dump();
  expect_rows_verified(r, {"serial", "cws-stows", "tbb-static", "omp-static"});
}

TEST(Fdtd, TraceFileSeedsTheTemplates) {
  const strings args = {"--nx", "32",       "--ny", "16",       "--iters", "2",         "--runs",
                        "1",    "--warmup", "0",    "--policy", "stows",   "--workers", "2"};
  const json doc = json_seeded_by_own_trace(CWS_APP_FDTD, args);
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  const json& first = entry(doc, "cws-stows")["e_iterations"][0];
  EXPECT_EQ(first["ran_as_kind"], "stows") << first.dump();
  EXPECT_TRUE(starts_with(first.value("template_from", ""), "file ")) << first.dump();
  EXPECT_EQ(entry(doc, "cws-stows")["verified"], true);
}

TEST(Fdtd, ErrorsAreOneLine) {
  const strings tiny = {"--nx", "8", "--ny", "8", "--iters", "1", "--runs", "1", "--warmup", "0"};
  // A cws error: exit 2, one line naming the app.
  expect_cws_error(run_process(CWS_APP_FDTD, with(tiny, {"--policy", "nosuch", "--json"})), "fdtd", "nosuch");
  // Bad flags: CLI11's message and code, nothing on stdout.
  for (const strings& bad : {strings{"--nx", "1"}, strings{"--block", "x"}, strings{"--no-such-flag"}}) {
    const run_result r = run_process(CWS_APP_FDTD, with(tiny, bad));
    expect_usage_error(r);
    EXPECT_NE(r.err.find(bad[0]), std::string::npos) << r.dump();
  }
}

}  // namespace
