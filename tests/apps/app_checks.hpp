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

// The variants of a block-loop app (common/loop_suite.hpp) in document
// order: with the default --policies, and with --policies random,stows,relws.
inline const std::vector<std::string> loop_suite_variants = {"serial",
                                                             "cws-random",
                                                             "cws-random-interleave",
                                                             "cws-stows",
                                                             "cws-stows-follow-init",
                                                             "cws-stuws",
                                                             "cws-relws",
                                                             "cws-evolve",
                                                             "cws-user",
                                                             "tbb-auto",
                                                             "tbb-affinity",
                                                             "tbb-static",
                                                             "omp-static"};
inline const std::vector<std::string> loop_suite_variants_random_stows_relws = {
    "serial",    "cws-random", "cws-random-interleave", "cws-stows",  "cws-stows-follow-init",
    "cws-relws", "tbb-auto",   "tbb-affinity",          "tbb-static", "omp-static"};

// The machines every variant must verify on: 1 and 2 workers here, and 4
// on the synthetic 4-node machine.
struct worker_setup {
  std::string workers;  // the --workers argument
  env_list env;
};
inline const std::vector<worker_setup> one_two_and_four_workers = {{"1", {}}, {"2", {}}, {"4", four_nodes}};

// A block-loop app's iteration list of one step phase: every step of every
// run in order, `per_run` per run, the warm-up runs first and flagged.
inline void expect_step_iterations(const json& its, std::size_t per_run, std::size_t warmup, std::size_t runs) {
  ASSERT_EQ(its.size(), per_run * (warmup + runs));
  for (std::size_t i = 0; i < its.size(); ++i) {
    EXPECT_EQ(its[i]["run"], i / per_run);
    EXPECT_EQ(its[i]["iteration"], i % per_run);
    EXPECT_EQ(its[i]["warmup"], i < per_run * warmup);
  }
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

// What the runner of a block-loop app (common/loop_suite.hpp) puts in the
// document of a run with --policies random,stows,relws, `runs` measured
// runs after `warmup`: those variants and those params, and on every
// variant its timing, its ratio to omp-static and its verification.
inline void expect_loop_suite_run(const json& doc, std::size_t runs, std::size_t warmup) {
  EXPECT_EQ(variants_of(doc), loop_suite_variants_random_stows_relws);
  const json& p = doc["params"];
  EXPECT_EQ(p["runs"], runs);
  EXPECT_EQ(p["warmup"], warmup);
  EXPECT_EQ(p["policies"], (std::vector<std::string>{"random", "stows", "relws"}));
  const double omp = entry(doc, "omp-static")["median_s"].get<double>();
  for (const json& e : doc["results"]) {
    SCOPED_TRACE(e.value("variant", ""));
    expect_measured_runs(e, runs);
    EXPECT_DOUBLE_EQ(e["ratio_vs_omp_static"].get<double>(), e["median_s"].get<double>() / omp);
    EXPECT_EQ(e["verified"], true);
  }
}

// A cws variant `e` of a block-loop app names its schedule of each of
// `phases` "<app>-<phase>/<suffix>", its variant name being cws-<suffix>.
inline void expect_phase_schedules(const json& e, const std::string& app, const std::vector<std::string>& phases) {
  const std::string suffix = e["variant"].get<std::string>().substr(4);
  for (const std::string& phase : phases) EXPECT_EQ(e["schedules"][phase], app + "-" + phase + "/" + suffix);
}

// On a locality run: every cws variant declared all its bytes (none
// unknown) and each of its shares `keys` lies in [0, 1].
inline void expect_cws_shares_in_range(const json& doc, const std::vector<const char*>& keys) {
  for (const json& e : doc["results"]) {
    if (!is_cws(e)) continue;
    SCOPED_TRACE(e["variant"].get<std::string>());
    EXPECT_EQ(e["unknown_bytes"], 0);
    for (const char* k : keys) {
      EXPECT_GE(e[k].get<double>(), 0.0) << k;
      EXPECT_LE(e[k].get<double>(), 1.0) << k;
    }
  }
}

// evolve settled on a synthetic NUMA machine: converged, its last phase at
// least 95 % local; its step phases (`iterations`) began without a template
// and ended in its strict stage: stows, or stuws on a planned template (no
// balanced relws tree under load).
inline void expect_evolve_settled(const json& evolve, const std::string& iterations) {
  EXPECT_EQ(evolve["converged"], true) << evolve.dump(2);
  EXPECT_GE(evolve["local_share_last"].get<double>(), 0.95) << evolve.dump(2);
  const json& its = evolve[iterations];
  ASSERT_FALSE(its.empty());
  EXPECT_EQ(its[0]["ran_as_kind"], "random_no_template");
  const std::string last = its.back()["ran_as_kind"];
  EXPECT_TRUE(last == "stows" || last == "stuws") << its.back().dump();
}

// The table of a run (`r`, its text output) has a row for each of
// `variants`, and each row ends in its verification, "yes".
inline void expect_rows_verified(const run_result& r, const std::vector<std::string>& variants) {
  for (const std::string& v : variants) {
    const std::size_t at = r.out.find("\n" + v + " ");
    ASSERT_NE(at, std::string::npos) << v << "\n" << r.dump();
    const std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
    EXPECT_EQ(line.substr(line.size() - 3), "yes") << line;
  }
}

// `object` (an app's params, a result) holds each of `fields` with that
// value: one expectation per field.
inline void expect_fields(const json& object, const json& fields) {
  for (const auto& [key, value] : fields.items()) EXPECT_EQ(object[key], value) << key;
}

// The envelope of an app's document: it names the app, and its topology
// every field of the machine it ran on.
// A phase_timeline object (--phase-timeline): one sample per timed phase,
// every part a non-negative median in us, the after-phase part no larger
// than the whole call, first_steal over the calls in which a helper stole.
inline void expect_phase_timeline(const json& t, std::size_t calls) {
  ASSERT_TRUE(t.is_object()) << t.dump();
  EXPECT_EQ(t["calls"], calls);
  for (const char* part : {"setup_us", "fork_us", "leaves_us", "join_us", "helpers_out_us", "collect_us", "locality_us",
                           "observers_us", "policy_us", "relocalize_us", "after_phase_us", "total_us"}) {
    ASSERT_TRUE(t[part].is_number()) << part << ": " << t.dump();
    EXPECT_GE(t[part].get<double>(), 0.0) << part;
  }
  EXPECT_GT(t["total_us"].get<double>(), 0.0);
  EXPECT_LE(t["calls_with_steals"].get<std::size_t>(), calls);
  EXPECT_EQ(t["first_steal_us"].is_null(), t["calls_with_steals"] == 0) << t.dump();
}

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

// A block-loop app (`run(args, env)` gives its document) on each of
// one_two_and_four_workers: every variant ran and verified, and
// `check(doc)` holds (the app's own expectations).
template <class Run, class Check>
void expect_loop_suite_verifies(const std::vector<std::string>& args, const Run& run, const Check& check) {
  for (const auto& [workers, env] : one_two_and_four_workers) {
    SCOPED_TRACE("workers " + workers);
    const json doc = run(with(args, {"--workers", workers}), env);
    ASSERT_TRUE(doc.contains("results")) << doc.dump();
    EXPECT_EQ(variants_of(doc), loop_suite_variants);
    for (const json& e : doc["results"]) EXPECT_EQ(e["verified"], true) << e["variant"];
    check(doc);
    EXPECT_EQ(doc["topology"]["workers"], std::stoi(workers));
  }
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
    for (const auto& [workers, env] : one_two_and_four_workers) {
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
