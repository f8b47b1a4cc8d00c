#pragma once
// What the app suites check of a run of an app (app_runner.hpp runs it): the
// results of its JSON document by variant, the timing every app reports, the
// machine it says it ran on, its locality on a synthetic NUMA machine, and
// the error conventions (a cws error: exit 2 and one line; a bad flag:
// CLI11's own exit code).

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app_runner.hpp"

namespace cws::apps_test {

// The result of variant `variant` in an app's JSON document (a failure and a
// null json when there is none), and the variants in document order.
inline const json& entry(const json& doc, const std::string& variant) {
  static const json none;
  if (doc.contains("results"))
    for (const json& e : doc["results"])
      if (e.value("variant", "") == variant) return e;
  ADD_FAILURE() << "no result for variant " << variant;
  return none;
}
inline std::vector<std::string> variants_of(const json& doc) {
  std::vector<std::string> v;
  if (doc.contains("results") && doc["results"].is_array())
    for (const json& e : doc["results"]) v.push_back(e.value("variant", "<no variant>"));
  return v;
}

inline bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
// A variant run by cws (its name begins with "cws-"), not a baseline.
inline bool is_cws(const std::string& variant) { return starts_with(variant, "cws-"); }
inline bool is_cws(const json& result) { return is_cws(result.value("variant", "")); }

// The timing every app puts on a result: `runs` measured runs, 0 < min_s <= median_s.
inline void expect_measured_runs(const json& result, std::size_t runs) {
  EXPECT_EQ(result["runs"], runs);
  EXPECT_GT(result["min_s"].get<double>(), 0.0);
  EXPECT_LE(result["min_s"].get<double>(), result["median_s"].get<double>());
}

// The envelope of an app's document: it names the app, and its topology
// every field of the machine it ran on.
inline void expect_envelope(const json& doc, const std::string& app) {
  EXPECT_EQ(doc["app"], app);
  for (const char* k : {"summary", "source", "synthetic", "numa_nodes", "cores", "pus", "workers"})
    EXPECT_TRUE(doc["topology"].contains(k)) << k;
}

// An app's document says it ran on that machine.
inline void expect_two_node_topology(const json& doc) {
  EXPECT_EQ(doc["topology"]["synthetic"], true);
  EXPECT_EQ(doc["topology"]["numa_nodes"], 2);
  EXPECT_EQ(doc["topology"]["workers"], 2);
}
// A cws error (unknown variant or policy, a bad CWS_* variable): exit 2,
// nothing on stdout, one line on stderr that names the app
// ("cws-<app>: error: ...") and mentions `mention`.
inline void expect_cws_error(const run_result& r, const std::string& app, const std::string& mention) {
  SCOPED_TRACE(r.command);
  EXPECT_EQ(r.code, 2) << r.dump();
  EXPECT_EQ(r.out, "") << r.dump();
  ASSERT_EQ(r.err_lines().size(), 1u) << r.dump();
  EXPECT_TRUE(starts_with(r.err_lines()[0], "cws-" + app + ": error: ")) << r.dump();
  EXPECT_NE(r.err.find(mention), std::string::npos) << r.dump();
}

// A bad flag: CLI11's exit code (not 0, and not 1, which means a wrong
// result), nothing on stdout.
inline void expect_usage_error(const run_result& r) {
  EXPECT_NE(r.code, 0) << r.dump();
  EXPECT_NE(r.code, 1) << r.dump();
  EXPECT_EQ(r.out, "") << r.dump();
}

// The cell values (cws-sor) and input pixels (cws-srad) the apps' READMEs
// specify: splitmix64's finaliser of (i << 32) ^ j, its top 24 bits k,
// (k + 0.5) / 2^24.
inline float unit_value(std::uint64_t i, std::uint64_t j) {
  std::uint64_t x = ((i << 32) ^ j) + 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return (static_cast<float>(x >> 40) + 0.5f) * 0x1p-24f;
}

// The variants of the hinted stencil apps (cws-sor, cws-srad), in document order.
inline const std::vector<std::string> hinted_stencil_variants = {
    "serial",     "cws-hinted",        "cws-hinted-hpt", "cws-random-ft", "cws-random-il",
    "cws-evolve", "cws-evolve-hinted", "tbb-simple",     "tbb-affinity",  "omp-static"};

// A hinted stencil app (`bench`: sor, srad) under both recursions, on 1
// and 2 workers and on 4 synthetic nodes: run(args, env) gives its
// document, in which every variant ran, verified and gave the serial
// checksum (and passes the app's own check(result)), and the bench is
// named by its recursion (<bench>-ir: irregular).
template <class Run, class Check>
void expect_every_variant_verifies(const std::vector<std::string>& args, const std::string& bench, const Run& run,
                                   const Check& check) {
  for (const char* recursion : {"regular", "irregular"}) {
    for (const auto& [workers, env] : {std::pair{std::string("1"), env_list{}}, {"2", env_list{}}, {"4", four_nodes}}) {
      SCOPED_TRACE(std::string(recursion) + ", workers " + workers);
      const json doc = run(with(args, {"--workers", workers, "--recursion", recursion}), env);
      ASSERT_TRUE(doc.contains("results")) << doc.dump();
      EXPECT_EQ(variants_of(doc), hinted_stencil_variants);
      EXPECT_EQ(doc["params"]["bench"], std::string(recursion) == "regular" ? bench : bench + "-ir");
      for (const json& e : doc["results"]) {
        EXPECT_EQ(e["verified"], true) << e["variant"];
        check(e);
        EXPECT_EQ(e["checksum"], doc["params"]["checksum"]) << e["variant"];
      }
      EXPECT_EQ(doc["topology"]["workers"], std::stoi(workers));
    }
  }
}

// The locality of the hinted apps' variants on 4 synthetic nodes (every
// variant verified): the hinted ones run where their data is, evolve settles
// there, random over interleaved pages stays near a quarter local.
inline void expect_hinted_locality(const json& doc) {
  for (const json& e : doc["results"]) {
    SCOPED_TRACE(e["variant"].get<std::string>());
    EXPECT_EQ(e["verified"], true);
    ASSERT_TRUE(e["local_share"].is_number()) << e.dump();
  }
  EXPECT_GE(entry(doc, "cws-hinted")["local_share"].get<double>(), 0.95);
  EXPECT_GE(entry(doc, "cws-hinted-hpt")["local_share"].get<double>(), 0.95);
  for (const char* v : {"cws-evolve", "cws-evolve-hinted"}) {
    SCOPED_TRACE(v);
    EXPECT_EQ(entry(doc, v)["converged"], true);
    EXPECT_GE(entry(doc, v)["local_share_last"].get<double>(), 0.99);
  }
  const double il = entry(doc, "cws-random-il")["local_share"].get<double>();
  EXPECT_GT(il, 0.15);
  EXPECT_LT(il, 0.35);
}

}  // namespace cws::apps_test
