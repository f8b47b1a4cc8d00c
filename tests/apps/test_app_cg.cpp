// cws-cg run as a program with class S: every variant's zeta verified
// (NPB's tolerance, bitwise equal to serial) on 1, 2 and 4 synthetic workers
// under every policy, the --json document and its fields, the locality
// figures on a synthetic 4-node machine, and the error conventions. No test
// looks at a time beyond its sign.
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "app_checks.hpp"

namespace {

using namespace cws::apps_test;
using strings = std::vector<std::string>;

const strings all_policies{"random", "stows", "stuws", "relws", "evolve", "user"};
const strings kernels{"start", "spmv", "dot", "update", "direction", "residual", "norms", "normalize"};

run_result run_cg(const strings& args, const env_list& env = {}) { return run_process(CWS_APP_CG, args, env); }

json run_cg_json(strings args, const env_list& env = {}) { return json_of(CWS_APP_CG, std::move(args), env); }

// Every variant verified, with the same zeta, within NPB's tolerance of `ref`.
void expect_all_verified(const json& doc, double ref) {
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  const double serial = entry(doc, "serial")["zeta"].get<double>();
  EXPECT_LE(std::abs(serial - ref) / ref, 1e-10) << serial;
  for (const json& e : doc["results"]) {
    SCOPED_TRACE(e["variant"].get<std::string>());
    EXPECT_EQ(e["verified"], true);
    EXPECT_EQ(e["zeta"].get<double>(), serial);  // deterministic block reductions: bitwise
    EXPECT_EQ(e["zeta_equals_serial"], true);
    EXPECT_EQ(e["zeta_same_every_run"], true);
    EXPECT_LE(e["zeta_rel_err"].get<double>(), 1e-10);
  }
}

strings expected_variants(const strings& policies) {
  strings v{"serial"};
  for (const std::string& p : policies) {
    v.push_back("cws-" + p);
    if (p == "evolve") v.push_back("cws-evolve-follow");
  }
  for (const char* b : {"tbb-auto", "tbb-affinity", "tbb-static", "omp-static"}) v.push_back(b);
  return v;
}

// Class S after 1 outer iteration (reference 9.9986441579140) under every
// policy, on 1 worker, 2 workers and 4 workers of a synthetic 4-node machine.
TEST(CgVerifies, EveryPolicyOnOneTwoAndFourWorkers) {
  struct setup {
    std::string workers;
    env_list env;
  };
  for (const setup& s : {setup{"1", {}}, setup{"2", {}}, setup{"4", four_nodes}}) {
    SCOPED_TRACE("workers " + s.workers);
    const json doc =
        run_cg_json({"--class", "S", "--iters", "1", "--runs", "1", "--warmup", "1", "--workers", s.workers}, s.env);
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(variants_of(doc), expected_variants(all_policies));
    EXPECT_EQ(doc["topology"]["workers"], std::stoi(s.workers));
    EXPECT_EQ(doc["params"]["zeta_ref"], 9.9986441579140);
    expect_all_verified(doc, 9.9986441579140);
  }
}

// The official class S value after NPB's 15 iterations.
TEST(CgVerifies, OfficialClassSZeta) {
  const json doc = run_cg_json({"--class", "S", "--runs", "1", "--warmup", "0", "--workers", "2", "--policies",
                                "random,evolve,user", "--init", "blocks"});
  ASSERT_FALSE(doc.is_null());
  EXPECT_EQ(doc["params"]["iters"], 15);
  EXPECT_EQ(doc["params"]["zeta_ref"], 8.5971775078648);
  expect_all_verified(doc, 8.5971775078648);
}

TEST(CgJson, EnvelopeParamsAndFields) {
  const unsigned runs = 2, warmup = 1, iters = 2;
  const json doc =
      run_cg_json({"--class", "S", "--iters", "2", "--runs", "2", "--warmup", "1", "--policies", "stows,evolve,random"},
                  {{"CWS_TOPOLOGY", "pack:2 numa:1 core:1 pu:1"}});
  ASSERT_FALSE(doc.is_null());
  strings keys;
  for (const auto& [k, v] : doc.items()) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (strings{"app", "params", "results", "topology"}));
  EXPECT_EQ(doc["app"], "cg");
  EXPECT_EQ(doc["topology"]["workers"], 2);
  EXPECT_EQ(doc["topology"]["synthetic"], true);
  EXPECT_EQ(variants_of(doc), expected_variants({"stows", "evolve", "random"}));
  const json& p = doc["params"];
  EXPECT_EQ(p["class"], "S");
  EXPECT_EQ(p["na"], 1400);
  EXPECT_EQ(p["nonzer"], 7);
  EXPECT_EQ(p["niter"], 15);
  EXPECT_EQ(p["iters"], iters);
  EXPECT_EQ(p["nnz"], 78148);
  EXPECT_EQ(p["block_rows"], 32);
  EXPECT_EQ(p["blocks"], 44);
  EXPECT_EQ(p["phases_per_iter"], 104);
  EXPECT_EQ(p["runs"], runs);
  EXPECT_EQ(p["warmup"], warmup);
  EXPECT_EQ(p["init"], "serial");
  EXPECT_EQ(p["page_homes"], "simulated");
  EXPECT_DOUBLE_EQ(p["operations_per_iter"].get<double>(), 2.0 * 1400 * (3 + 56 + 25 * 61 + 3));
  expect_all_verified(doc, 8.5733279203222);

  const json& omp = entry(doc, "omp-static");
  const json& random = entry(doc, "cws-random");
  for (const json& e : doc["results"]) {
    const std::string v = e["variant"];
    SCOPED_TRACE(v);
    expect_measured_runs(e, runs);
    const double median = e["median_s"].get<double>();
    EXPECT_DOUBLE_EQ(e["mops"].get<double>(), p["operations_per_iter"].get<double>() / median / 1e6);
    EXPECT_DOUBLE_EQ(e["ratio_vs_omp_static"].get<double>(), median / omp["median_s"].get<double>());
    EXPECT_DOUBLE_EQ(e["ratio_vs_cws_random"].get<double>(), median / random["median_s"].get<double>());
    for (const std::string& k : kernels) EXPECT_GE(e["kernel_s_per_iter"][k].get<double>(), 0.0) << k;
    if (!is_cws(e)) {
      EXPECT_FALSE(e.contains("schedules"));
      continue;
    }
    const std::string suffix = v.substr(4);
    for (const std::string& k : kernels) EXPECT_EQ(e["schedules"][k], "cg-" + k + "/" + suffix);
    EXPECT_EQ(e["schedules"]["init"], "cg-init/" + suffix);
    // 25 spmv phases per outer iteration, each measured one with a locality report.
    EXPECT_EQ(e["locality_phases"], 25 * iters * runs);
    unsigned counted = 0;
    for (const auto& [kind, n] : e["spmv_ran_as"].items()) counted += n.get<unsigned>();
    EXPECT_EQ(counted, 25 * iters * runs);
    for (const char* k : {"local_share", "local_share_min", "local_share_last", "all_local_bytes_share"}) {
      ASSERT_TRUE(e[k].is_number()) << k;
      EXPECT_GE(e[k].get<double>(), 0.0);
      EXPECT_LE(e[k].get<double>(), 1.0);
    }
    EXPECT_EQ(e["init_local_share"], 1.0);  // serial init: every page homed where it was touched
  }
  EXPECT_EQ(entry(doc, "cws-evolve")["follows"], "");
  EXPECT_EQ(entry(doc, "cws-evolve-follow")["follows"], "cg-spmv/evolve-follow");
  EXPECT_EQ(entry(doc, "cws-evolve-follow")["init_policy"], "random");
  // Warm-up and measured runs continue the same schedules: stows replays from its second spmv phase on.
  EXPECT_EQ(entry(doc, "cws-stows")["spmv_ran_as"], (json{{"stows", 25 * iters * runs}}));
  EXPECT_EQ(entry(doc, "cws-random")["spmv_ran_as"], (json{{"random", 25 * iters * runs}}));
}

// Serial init puts every page on node 0. Random stealing moves nothing.
// evolve moves the pages after its templates; in cws-evolve every kernel has
// its own schedule and tree, so the kernels sharing the matrix (spmv,
// residual) place its pages each their own way, while in cws-evolve-follow
// the other kernels replay spmv's template (stows, moving nothing) and the
// matrix ends where spmv's converged template reads it. Evolve never goes
// back to relws here (CWS_EVOLVE_SLOWDOWN=0): on a loaded machine a slow
// stows run would restart its learning at a random point.
// --phase-timeline: the parts of every kernel's measured phases, spmv's
// also beside its phase_wall_s (25 products an outer iteration).
TEST(CgJson, PhaseTimelinePerKernel) {
  const json doc = run_cg_json(
      {"--class", "S", "--iters", "1", "--runs", "2", "--warmup", "1", "--policies", "stows", "--phase-timeline"});
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  const json& stows = entry(doc, "cws-stows");
  expect_phase_timeline(stows["spmv_phase_timeline"], 25 * 2);
  const json& per_kernel = stows["kernels_phase_timeline"];
  for (const char* k : {"spmv", "dot", "update", "direction", "residual"}) EXPECT_TRUE(per_kernel.contains(k)) << k;
  EXPECT_EQ(per_kernel["spmv"], stows["spmv_phase_timeline"]);
  EXPECT_EQ(per_kernel["dot"]["calls"], 25 * 2);
  EXPECT_FALSE(entry(doc, "tbb-static").contains("kernels_phase_timeline"));
}

TEST(CgLocality, EvolveFollowPlacesTheMatrixOnFourSyntheticNodes) {
  env_list env = four_nodes;
  env.emplace_back("CWS_EVOLVE_SLOWDOWN", "0");
  const json doc = run_cg_json(
      {"--class", "S", "--iters", "3", "--runs", "1", "--warmup", "0", "--workers", "4", "--policies", "random,evolve"},
      env);
  ASSERT_FALSE(doc.is_null());
  EXPECT_EQ(doc["topology"]["numa_nodes"], 4);
  const json& random = entry(doc, "cws-random");
  EXPECT_EQ(random["pages_moved"], 0);
  EXPECT_EQ(random["init_local_share"], 1.0);
  for (const char* v : {"cws-evolve", "cws-evolve-follow"}) {
    SCOPED_TRACE(v);
    const json& e = entry(doc, v);
    EXPECT_GT(e["pages_moved"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(e["converged"], true);
    EXPECT_TRUE(e["converged_at"].is_number()) << e["converged_at"];
    EXPECT_EQ(e["spmv_ran_as"]["random_no_template"], 1);  // SC14's recipe: random first, relws, then stows
    EXPECT_GT(e["spmv_ran_as"]["relws"].get<unsigned>(), 0u);
    EXPECT_GT(e["spmv_ran_as"]["stows"].get<unsigned>(), 0u);
  }
  const json& follow = entry(doc, "cws-evolve-follow");
  EXPECT_GT(follow["local_share_last"].get<double>(), 0.9);
  for (const std::string& k : kernels) {
    if (k == "spmv") continue;
    EXPECT_EQ(follow["kernels_locality"][k]["pages_moved"], 0) << k;
  }
}

// --trace-out saves every schedule's steal trees; --trace-in seeds the same
// schedules with them, so stows replays from its very first spmv phase.
TEST(CgTraces, SavedTemplatesAreReplayedFromTheFirstPhase) {
  scratch_dir dir;
  const std::string file = dir.file("cg.cwst");
  const strings args{"--class", "S", "--iters", "1", "--runs", "1", "--warmup", "0", "--policies", "stows"};
  strings out = args, in = args;
  out.insert(out.end(), {"--trace-out", file});
  in.insert(in.end(), {"--trace-in", file});
  const json first = run_cg_json(out);
  ASSERT_FALSE(first.is_null());
  // Without a template, its first spmv phase ran as random to record one.
  EXPECT_EQ(entry(first, "cws-stows")["spmv_ran_as"], (json{{"random_no_template", 1}, {"stows", 24}}));
  const json second = run_cg_json(in);
  ASSERT_FALSE(second.is_null());
  EXPECT_EQ(entry(second, "cws-stows")["spmv_ran_as"], (json{{"stows", 25}}));
  EXPECT_EQ(entry(second, "cws-stows")["verified"], true);
}

// --follow-spmv: every replaying policy's kernels follow its spmv schedule,
// and evolve gets no separate -follow variant.
TEST(CgFollow, FollowSpmvFlag) {
  const json doc = run_cg_json({"--class", "S", "--iters", "1", "--runs", "1", "--warmup", "1", "--policies",
                                "stows,evolve,random", "--follow-spmv"});
  ASSERT_FALSE(doc.is_null());
  EXPECT_EQ(variants_of(doc), (strings{"serial", "cws-stows", "cws-evolve", "cws-random", "tbb-auto", "tbb-affinity",
                                       "tbb-static", "omp-static"}));
  EXPECT_EQ(doc["params"]["follow_spmv"], true);
  EXPECT_EQ(entry(doc, "cws-stows")["follows"], "cg-spmv/stows");
  EXPECT_EQ(entry(doc, "cws-evolve")["follows"], "cg-spmv/evolve");
  EXPECT_EQ(entry(doc, "cws-random")["follows"], "");  // random replays nothing
  expect_all_verified(doc, 9.9986441579140);
}

// Without --json: the caption, the table with every variant, verified.
TEST(CgTable, CaptionAndRows) {
  const run_result r = run_cg({"--class", "S", "--iters", "1", "--runs", "1", "--warmup", "0", "--policies", "stows",
                               "--iteration-lines", "3"});
  ASSERT_EQ(r.code, 0) << r.dump();
  EXPECT_NE(r.out.find("cws-cg: NPB CG class S"), std::string::npos) << r.dump();
  EXPECT_NE(r.out.find("cws-stows: schedule \"cg-spmv/stows\""), std::string::npos) << r.dump();
  for (const char* v : {"serial ", "cws-stows ", "tbb-static ", "omp-static "})
    EXPECT_NE(r.out.find(v), std::string::npos) << v << "\n" << r.dump();
  EXPECT_NE(r.out.find("Mop/s"), std::string::npos);
}

// The spmv lines are taken as the phases run, not read back from the
// schedule's history: with a history of 4 runs, the first 40 of a run's 50
// spmv phases are still printed, each once, in order.
TEST(CgTable, IterationLinesCoverPhasesPastTheHistory) {
  const run_result r = run_cg({"--class", "S", "--iters", "2", "--runs", "1", "--warmup", "0", "--policies", "random",
                               "--iteration-lines", "40"},
                              {{"CWS_HISTORY", "4"}});
  ASSERT_EQ(r.code, 0) << r.dump();
  std::vector<int> printed;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    int it = -1;
    std::string ran_as;
    if (words >> it >> ran_as && ran_as == "random") printed.push_back(it);
  }
  std::vector<int> want(40);
  for (int i = 0; i < 40; ++i) want[static_cast<std::size_t>(i)] = i;
  EXPECT_EQ(printed, want) << r.dump();
}

TEST(CgErrors, BadFlagsGiveOneLine) {
  {
    const run_result r = run_cg({"--class", "Q"});
    EXPECT_EQ(r.code, static_cast<int>(CLI::ExitCodes::ValidationError)) << r.dump();
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("--class"), std::string::npos) << r.dump();
  }
  {
    const run_result r = run_cg({"--class", "S", "--iters", "1", "--runs", "1", "--policy", "nosuch"});
    EXPECT_EQ(r.code, 2) << r.dump();
    EXPECT_EQ(r.out, "");
    ASSERT_EQ(r.err_lines().size(), 1u) << r.dump();
    EXPECT_EQ(r.err_lines()[0].rfind("cws-cg: error: ", 0), 0u) << r.err;
  }
  {
    const run_result r = run_cg({"--init", "later"});
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("--init"), std::string::npos) << r.dump();
  }
}

}  // namespace
