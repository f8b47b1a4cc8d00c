// cws-sor as a program, with tiny sizes: every variant's grid equals the
// serial red-black program's bit for bit on 1, 2 and 4 (synthetic) workers
// for both recursions; the faithful racy update stays finite; the JSON
// envelope and fields (hinted counters, recursion shapes by their task
// counts); locality on a synthetic 4-node machine (hinted >= 95 %, converged
// evolve >= 99 %, random interleaved about 1/4); trace files; one-line
// errors. No test looks at a time.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "app_checks.hpp"

namespace {

using namespace cws::apps_test;
using strings = std::vector<std::string>;

json sor_json(strings args, const env_list& env = {}) { return json_of(CWS_APP_SOR, std::move(args), env); }

const strings cws_variants = {"cws-hinted",    "cws-hinted-hpt", "cws-random-ft",
                              "cws-random-il", "cws-evolve",     "cws-evolve-hinted"};

// Tasks of one phase over `len` rows with leaves of at most `tile` rows: the
// nodes of PufferFish's splitters (the phase's root is the recursion's root).
std::size_t regular_tasks(std::size_t len, std::size_t tile) {
  return len <= tile ? 1 : 1 + regular_tasks(len / 2, tile) + regular_tasks(len - len / 2, tile);
}
std::size_t two_way_tasks(std::size_t len, std::size_t tile);
std::size_t four_way_tasks(std::size_t len, std::size_t tile) {
  if (len <= tile || len < 4) return 1;
  const std::size_t c = len / 4;
  return 1 + 2 * two_way_tasks(c, tile) + four_way_tasks(c, tile) + two_way_tasks(len - 3 * c, tile);
}
std::size_t two_way_tasks(std::size_t len, std::size_t tile) {
  return len <= tile ? 1 : 1 + four_way_tasks(len / 2, tile) + two_way_tasks(len - len / 2, tile);
}

// Red-black SOR written out whole-grid, as a textbook would: the checksum
// the app's serial program must reach.
double textbook_sor_checksum(std::size_t n, unsigned sweeps) {
  std::vector<float> g(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) g[i * n + j] = i == 0 ? 1.0f : i == n - 1 ? 0.0f : unit_value(i, j);
  for (unsigned s = 0; s < sweeps; ++s)
    for (std::size_t parity : {1, 0})  // red: odd rows, then black: even rows
      for (std::size_t i = 1; i + 1 < n; ++i)
        if (i % 2 == parity)
          for (std::size_t j = 1; j + 1 < n; ++j)
            g[i * n + j] = 0.3125f * (g[(i - 1) * n + j] + g[(i + 1) * n + j] + g[i * n + j - 1] + g[i * n + j + 1]) +
                           -0.25f * g[i * n + j];
  double sum = 0;
  for (float v : g) sum += v;
  return sum;
}

TEST(Sor, SerialProgramMatchesATextbookRedBlackSor) {
  for (const auto& [n, sweeps] : {std::pair{std::size_t{9}, 1u}, {std::size_t{24}, 7u}}) {
    SCOPED_TRACE(n);
    const json doc = sor_json({"--size", std::to_string(n), "--iters", std::to_string(sweeps), "--runs", "1",
                               "--warmup", "0", "--workers", "2", "--variants", "serial,cws-random-ft"});
    ASSERT_TRUE(doc.contains("params")) << doc.dump();
    const double want = textbook_sor_checksum(n, sweeps);
    EXPECT_NEAR(doc["params"]["checksum"].get<double>(), want, 1e-12 * want);
  }
}

TEST(Sor, EveryVariantVerifiesOnOneTwoAndFourWorkersForBothRecursions) {
  // 37 rows: 35 interior rows, an odd count, so leaves of one row and ranges of one colour occur.
  const strings args = {"--size", "37", "--iters", "3", "--runs", "1", "--warmup", "1"};
  expect_every_variant_verifies(args, "sor", sor_json,
                                [](const json& e) { EXPECT_EQ(e["check"], "exact") << e["variant"]; });
}

TEST(Sor, FaithfulHintVerifiesAndFaithfulUpdateStaysFinite) {
  const strings args = {"--size", "40", "--iters", "4", "--runs", "1", "--warmup", "0", "--workers", "2"};
  const json hinted = sor_json(with(args, {"--hint", "faithful"}));
  ASSERT_TRUE(hinted.contains("results")) << hinted.dump();
  EXPECT_EQ(hinted["params"]["hint"], "faithful");
  for (const json& e : hinted["results"]) EXPECT_EQ(e["verified"], true) << e["variant"];

  const json racy = sor_json(with(args, {"--faithful"}), four_nodes);
  ASSERT_TRUE(racy.contains("results")) << racy.dump();
  EXPECT_EQ(racy["params"]["faithful"], true);
  EXPECT_EQ(racy["params"]["phases_per_sweep"], 1);
  EXPECT_TRUE(racy["params"]["checksum"].is_null());
  for (const json& e : racy["results"]) {
    EXPECT_EQ(e["check"], "finite") << e["variant"];
    EXPECT_EQ(e["verified"], true) << e["variant"];
  }
  EXPECT_EQ(entry(racy, "cws-hinted")["schedules"], (strings{"sor-init/cws-hinted", "sor-sweep/cws-hinted"}));
}

TEST(Sor, EnvelopeFieldsAndCounters) {
  const std::size_t n = 40, iters = 3, runs = 2;
  for (const char* recursion : {"regular", "irregular"}) {
    SCOPED_TRACE(recursion);
    const json doc = sor_json({"--size", std::to_string(n), "--iters", std::to_string(iters), "--runs",
                               std::to_string(runs), "--warmup", "1", "--workers", "2", "--recursion", recursion});
    ASSERT_TRUE(doc.is_object()) << doc.dump();
    expect_envelope(doc, "sor");
    const json& p = doc["params"];
    EXPECT_EQ(p["size"], n);
    EXPECT_EQ(p["sweeps"], iters);
    EXPECT_EQ(p["tile"], 2);
    EXPECT_EQ(p["recursion"], recursion);
    EXPECT_EQ(p["hint"], "written");
    EXPECT_EQ(p["element"], "float");
    EXPECT_EQ(p["phases_per_sweep"], 2);
    const bool regular = std::string(recursion) == "regular";
    const std::size_t tasks = regular ? regular_tasks(n - 2, 2) : two_way_tasks(n - 2, 2);
    EXPECT_NE(regular_tasks(n - 2, 2), two_way_tasks(n - 2, 2));  // the two shapes are told apart (43 vs 37)

    for (const json& e : doc["results"]) {
      const std::string v = e["variant"];
      SCOPED_TRACE(v);
      expect_measured_runs(e, runs);
      EXPECT_GT(e["init_median_s"].get<double>(), 0.0);
      EXPECT_TRUE(e["ratio_vs_serial"].is_number());
      EXPECT_TRUE(e["ratio_vs_hinted"].is_number());
      const bool cws = v.rfind("cws-", 0) == 0;
      EXPECT_EQ(e.contains("hinted_leaf"), cws);
      if (!cws) continue;
      for (const char* k :
           {"policy", "placement", "init_policy", "schedules", "follows", "tasks_per_phase", "hinted_node",
            "hinted_root", "het_inlined", "place_steals", "reclaimed", "het_share", "local_share", "local_share_last",
            "init_local_share", "pages_moved", "ran_as_last", "red_phase_wall_s", "black_outside_wall_s"})
        EXPECT_TRUE(e.contains(k)) << k;
      EXPECT_EQ(e["phases"], 2 * iters * runs);  // red and black, measured runs only
      EXPECT_EQ(e["schedules"], (strings{"sor-init/" + v, "sor-red/" + v, "sor-black/" + v}));
      const std::uint64_t hinted = e["hinted_leaf"].get<std::uint64_t>() + e["hinted_node"].get<std::uint64_t>() +
                                   e["hinted_root"].get<std::uint64_t>();
      if (v == "cws-hinted" || v == "cws-hinted-hpt") {
        EXPECT_EQ(e["placement"], "block_cyclic");
        // Every spawn of a hinted phase has a hint: all tasks but the phase's root.
        EXPECT_EQ(hinted, (tasks - 1) * 2 * iters * runs);
        ASSERT_TRUE(e["het_share"].is_number());
        EXPECT_GE(e["het_share"].get<double>(), 0.0);
        EXPECT_LE(e["het_share"].get<double>(), 1.0);
        if (v == "cws-hinted-hpt") {
          EXPECT_EQ(e["het_inlined"], 0);  // HClib's HPT_DA has no HET
        }
      }
      if (v == "cws-random-ft" || v == "cws-random-il") {
        EXPECT_EQ(hinted, 0u);  // random ignores hints
        EXPECT_TRUE(e["het_share"].is_null());
        EXPECT_EQ(e["tasks_per_phase"], tasks);
        EXPECT_EQ(e["placement"], v == "cws-random-ft" ? "first_touch" : "interleaved");
      }
      if (v == "cws-evolve" || v == "cws-evolve-hinted") {
        EXPECT_EQ(e["follows"], (strings{"", "sor-red/" + v}));  // black replays red's tree
        EXPECT_TRUE(e.contains("converged"));
      }
    }
  }
}

// On the synthetic 4-node machine, rows of 1024 floats fill one page each.
// Evolve neither returns to relws on a preempted phase of this loaded
// machine nor takes a preempted replay for a divergence (4 workers on 2
// cores); its converged stows phases elide spawns, whose leaves still record
// their hints as touches.
TEST(Sor, LocalityOnFourSyntheticNodes) {
  env_list env = four_nodes;
  env.emplace_back("CWS_EVOLVE_SLOWDOWN", "0");
  env.emplace_back("CWS_STALL_MS", "2000");  // no divergence when the 4 workers' 2 cores are both taken
  const json doc =
      sor_json({"--size", "1024", "--iters", "12", "--runs", "1", "--warmup", "1", "--workers", "4", "--variants",
                "cws-hinted,cws-hinted-hpt,cws-random-ft,cws-random-il,cws-evolve,"
                "cws-evolve-hinted"},
               env);
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  EXPECT_EQ(doc["topology"]["numa_nodes"], 4);
  EXPECT_EQ(doc["params"]["page_homes"], "simulated");
  EXPECT_EQ(variants_of(doc), cws_variants);
  ASSERT_NO_FATAL_FAILURE(expect_hinted_locality(doc));
  EXPECT_GT(entry(doc, "cws-hinted")["hinted_leaf"].get<std::uint64_t>(), 0u);
}

TEST(Sor, TraceOutThenIn) {
  const scratch_dir dir;
  const std::string file = dir.file("sor.cwst");
  const strings args = {"--size",   "32", "--iters",   "2", "--runs",     "1",
                        "--warmup", "0",  "--workers", "2", "--variants", "cws-evolve-hinted"};
  const json out = sor_json(with(args, {"--trace-out", file}));
  ASSERT_TRUE(std::filesystem::exists(file));
  EXPECT_GT(std::filesystem::file_size(file), 0u);
  const json in = sor_json(with(args, {"--trace-in", file}));
  ASSERT_TRUE(in.contains("results")) << in.dump();
  EXPECT_EQ(entry(in, "cws-evolve-hinted")["verified"], true);
}

TEST(Sor, Errors) {
  // A cws error (unknown variant, unknown policy, bad CWS_* variable): exit 2, one line naming the app.
  for (const auto& [args, env, mention] :
       {std::tuple{strings{"--variants", "cws-bogus"}, env_list{}, std::string("unknown variant 'cws-bogus'")},
        std::tuple{strings{"--policy", "bogus"}, env_list{}, std::string("no variant runs policy 'bogus'")},
        std::tuple{strings{"--size", "16"}, env_list{{"CWS_WORKERS", "zero"}}, std::string("CWS_WORKERS")}}) {
    expect_cws_error(run_process(CWS_APP_SOR, args, env), "sor", mention);
  }
  // Bad flags: CLI11's message and code, nothing on stdout.
  for (const strings& args : {strings{"--recursion", "sideways"}, strings{"--hint", "some"}, strings{"--size", "2"},
                              strings{"--tile", "0"}, strings{"--no-such-flag"}}) {
    const run_result r = run_process(CWS_APP_SOR, args);
    SCOPED_TRACE(r.command);
    expect_usage_error(r);
    EXPECT_FALSE(r.err.empty());
  }
}

}  // namespace
