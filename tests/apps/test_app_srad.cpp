// cws-srad as a program, with tiny sizes: every variant's image equals the
// serial program's bit for bit on 1, 2 and 4 (synthetic) workers for both
// recursions; the serial program is Rodinia's SRAD v1 (checked against a
// whole-image textbook version) on a non-degenerate input (q0sqr > 0);
// --iters is honoured; the JSON envelope and hinted counters; locality on a
// synthetic 4-node machine; one-line errors. No test looks at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app_checks.hpp"

namespace {

using namespace cws::apps_test;
using strings = std::vector<std::string>;

json srad_json(strings args, const env_list& env = {}) { return json_of(CWS_APP_SRAD, std::move(args), env); }

// Rodinia's SRAD v1 written out whole-image with clamped neighbour tables, in
// float, the region statistics in double: the checksum of J the app's serial
// program must reach.
double textbook_srad_checksum(std::size_t rows, std::size_t cols, unsigned iterations) {
  const std::size_t n = rows * cols;
  std::vector<float> J(n), c(n), dN(n), dS(n), dW(n), dE(n);
  std::vector<std::size_t> iN(rows), iS(rows), jW(cols), jE(cols);
  for (std::size_t i = 0; i < rows; ++i) iN[i] = i == 0 ? 0 : i - 1, iS[i] = i + 1 == rows ? i : i + 1;
  for (std::size_t j = 0; j < cols; ++j) jW[j] = j == 0 ? 0 : j - 1, jE[j] = j + 1 == cols ? j : j + 1;
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) J[i * cols + j] = std::exp(unit_value(i, j));
  const std::size_t r = std::min<std::size_t>(128, rows), q = std::min<std::size_t>(128, cols);
  for (unsigned it = 0; it < iterations; ++it) {
    double sum = 0, sum2 = 0;
    for (std::size_t i = 0; i < r; ++i)
      for (std::size_t j = 0; j < q; ++j) sum += J[i * cols + j], sum2 += double{J[i * cols + j]} * J[i * cols + j];
    const double mean = sum / static_cast<double>(r * q);
    const float q0sqr = static_cast<float>((sum2 / static_cast<double>(r * q) - mean * mean) / (mean * mean));
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) {
        const std::size_t k = i * cols + j;
        const float Jc = J[k];
        dN[k] = J[iN[i] * cols + j] - Jc;
        dS[k] = J[iS[i] * cols + j] - Jc;
        dW[k] = J[i * cols + jW[j]] - Jc;
        dE[k] = J[i * cols + jE[j]] - Jc;
        const float G2 = (dN[k] * dN[k] + dS[k] * dS[k] + dW[k] * dW[k] + dE[k] * dE[k]) / (Jc * Jc);
        const float L = (dN[k] + dS[k] + dW[k] + dE[k]) / Jc;
        const float num = (0.5f * G2) - ((1.0f / 16.0f) * (L * L));
        float den = 1 + (.25f * L);
        const float qsqr = num / (den * den);
        den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
        c[k] = 1.0f / (1.0f + den);
        if (c[k] < 0)
          c[k] = 0;
        else if (c[k] > 1)
          c[k] = 1;
      }
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) {
        const std::size_t k = i * cols + j;
        const float D = c[k] * dN[k] + c[iS[i] * cols + j] * dS[k] + c[k] * dW[k] + c[i * cols + jE[j]] * dE[k];
        J[k] = J[k] + 0.25f * 0.5f * D;
      }
  }
  double sum = 0;
  for (float v : J) sum += v;
  return sum;
}

TEST(Srad, SerialProgramMatchesATextbookSradV1) {
  for (const auto& [rows, cols, iterations] :
       {std::tuple{std::size_t{7}, std::size_t{5}, 1u}, {std::size_t{150}, std::size_t{40}, 4u}}) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    const json doc = srad_json({"--rows", std::to_string(rows), "--cols", std::to_string(cols), "--iters",
                                std::to_string(iterations), "--runs", "1", "--warmup", "0", "--workers", "2",
                                "--variants", "serial"});
    ASSERT_TRUE(doc.contains("params")) << doc.dump();
    const double want = textbook_srad_checksum(rows, cols, iterations);
    EXPECT_NEAR(doc["params"]["checksum"].get<double>(), want, 1e-12 * want);
    EXPECT_GT(doc["params"]["q0sqr_first"].get<double>(), 0.0);  // a non-degenerate region of interest
  }
}

TEST(Srad, EveryVariantVerifiesOnOneTwoAndFourWorkersForBothRecursions) {
  // 35 rows: leaves of one row occur, and the region of interest is clipped to the image.
  const strings args = {"--rows", "35", "--cols", "24", "--iters", "3", "--runs", "1", "--warmup", "1"};
  expect_every_variant_verifies(args, "srad", srad_json, [](const json&) {});
}

TEST(Srad, IterationsAreHonoured) {
  const strings args = {"--rows", "20", "--cols", "20", "--runs", "1", "--warmup", "0", "--variants", "serial"};
  const json three = srad_json(with(args, {"--iters", "3"}));
  const json four = srad_json(with(args, {"--iters", "4"}));
  ASSERT_TRUE(three.contains("params") && four.contains("params"));
  EXPECT_EQ(three["params"]["iterations"], 3);
  EXPECT_EQ(four["params"]["iterations"], 4);
  EXPECT_NE(three["params"]["checksum"], four["params"]["checksum"]);
  const json dflt = srad_json(args);
  ASSERT_TRUE(dflt.contains("params"));
  EXPECT_EQ(dflt["params"]["iterations"], 10);  // the artifact's
}

TEST(Srad, EnvelopeFieldsAndCounters) {
  const unsigned iters = 2, runs = 2;
  const json doc = srad_json({"--rows", "64", "--cols", "16", "--iters", "2", "--runs", "2", "--warmup", "1",
                              "--workers", "2", "--recursion", "irregular"});
  ASSERT_TRUE(doc.is_object()) << doc.dump();
  expect_envelope(doc, "srad");
  const json& p = doc["params"];
  expect_fields(p, {{"rows", 64}, {"cols", 16}, {"tile", 2}, {"recursion", "irregular"}, {"arrays", 7}});
  expect_fields(p["roi"], {{"rows", 64}, {"cols", 16}});
  for (const json& e : doc["results"]) {
    const std::string v = e["variant"];
    SCOPED_TRACE(v);
    expect_measured_runs(e, runs);
    EXPECT_TRUE(e["ratio_vs_random_ft"].is_number());
    const bool cws = v.rfind("cws-", 0) == 0;
    EXPECT_EQ(e.contains("het_share"), cws);
    if (!cws) continue;
    for (const char* k :
         {"policy", "placement", "hinted_leaf", "hinted_node", "hinted_root", "het_inlined", "place_steals",
          "reclaimed", "local_share", "init_local_share", "coefficient_phase_wall_s", "update_outside_wall_s"})
      EXPECT_TRUE(e.contains(k)) << k;
    EXPECT_EQ(e["phases"], 2 * iters * runs);
    EXPECT_EQ(e["schedules"], (strings{"srad-init/" + v, "srad-coefficient/" + v, "srad-update/" + v}));
    const std::uint64_t hinted = e["hinted_leaf"].get<std::uint64_t>() + e["hinted_node"].get<std::uint64_t>() +
                                 e["hinted_root"].get<std::uint64_t>();
    if (v == "cws-hinted" || v == "cws-hinted-hpt") {
      EXPECT_GT(hinted, 0u);
      EXPECT_TRUE(e["het_share"].is_number());
    }
    if (v == "cws-random-ft" || v == "cws-random-il") {
      EXPECT_EQ(hinted, 0u);  // random ignores hints
    }
    if (v == "cws-evolve" || v == "cws-evolve-hinted") {
      EXPECT_EQ(e["follows"], (strings{"", "srad-coefficient/" + v}));  // update replays the coefficient loop's tree
    }
  }
}

// On the synthetic 4-node machine, rows of 1024 floats fill one page each;
// the leaves declare their rows of all seven arrays. No return to relws on
// noise: see test_app_sor's locality test.
TEST(Srad, LocalityOnFourSyntheticNodes) {
  env_list env = four_nodes;
  env.emplace_back("CWS_EVOLVE_SLOWDOWN", "0");
  env.emplace_back("CWS_STALL_MS", "2000");  // no divergence when the 4 workers' 2 cores are both taken
  const json doc =
      srad_json({"--rows", "256", "--cols", "1024", "--iters", "12", "--runs", "1", "--warmup", "1", "--workers", "4",
                 "--variants", "cws-hinted,cws-hinted-hpt,cws-random-ft,cws-random-il,cws-evolve,cws-evolve-hinted"},
                env);
  ASSERT_TRUE(doc.contains("results")) << doc.dump();
  EXPECT_EQ(doc["params"]["page_homes"], "simulated");
  expect_hinted_locality(doc);
}

TEST(Srad, Errors) {
  for (const auto& [args, mention] : {std::pair{strings{"--variants", "omp-dynamic"}, std::string("unknown variant")},
                                      {strings{"--policy", "stows"}, std::string("no variant runs policy 'stows'")}}) {
    expect_cws_error(run_process(CWS_APP_SRAD, args), "srad", mention);
  }
  for (const strings& args : {strings{"--recursion", "4way"}, strings{"--rows", "0"}, strings{"--iters", "0"}}) {
    const run_result r = run_process(CWS_APP_SRAD, args);
    SCOPED_TRACE(r.command);
    expect_usage_error(r);
  }
}

}  // namespace
