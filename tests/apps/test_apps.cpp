// The benchmark apps run as programs with tiny sizes: their --json document
// (one object {"app", "params", "topology", "results"}, one result per variant
// the flags ask for, timings of every measured run, verified results,
// baselines' own ratios exactly 1, ratios that are what they say, params that
// echo the flags). Their tables and locality figures: test_apps_table_locality.cpp.
// No test looks at a time or a speed ratio beyond its sign and its consistency
// with the other fields.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "app_checks.hpp"

namespace {

using namespace cws::apps_test;
using strings = std::vector<std::string>;

// The envelope every cws app prints (bench_env::topology_json, report).
void expect_envelope(const json& doc, const std::string& app, unsigned workers) {
  ASSERT_TRUE(doc.is_object()) << doc.dump(2);
  strings keys;
  for (const auto& [k, v] : doc.items()) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (strings{"app", "params", "results", "topology"}));
  EXPECT_EQ(doc["app"], app);
  EXPECT_TRUE(doc["params"].is_object());
  ASSERT_TRUE(doc["results"].is_array());
  const json& t = doc["topology"];
  for (const char* k : {"summary", "source", "synthetic", "numa_nodes", "cores", "pus", "workers"})
    EXPECT_TRUE(t.contains(k)) << k << " missing in topology " << t.dump();
  EXPECT_EQ(t["workers"], workers);
  EXPECT_GE(t["pus"].get<unsigned>(), 1u);
  EXPECT_GE(t["numa_nodes"].get<unsigned>(), 1u);
}

// <prefix>median_s / <prefix>min_s of `runs` measured runs (put_timing).
void expect_timing(const json& e, unsigned runs, const std::string& prefix = "") {
  SCOPED_TRACE(e.value("variant", "") + " " + prefix + "timing");
  ASSERT_TRUE(e.contains(prefix + "median_s") && e.contains(prefix + "min_s")) << e.dump();
  EXPECT_EQ(e["runs"], runs);
  const double median = e[prefix + "median_s"].get<double>(), min = e[prefix + "min_s"].get<double>();
  EXPECT_GT(min, 0.0);
  EXPECT_LE(min, median);
  EXPECT_TRUE(std::isfinite(median));
}

// report::add_ratio: name = key / baseline's key on every entry with key, and
// exactly 1 on the baseline itself.
void expect_ratio(const json& doc, const std::string& name, const std::string& key, const std::string& baseline) {
  SCOPED_TRACE(name);
  const json& base = entry(doc, baseline);
  ASSERT_TRUE(base.contains(key));
  ASSERT_TRUE(base.contains(name)) << base.dump();
  EXPECT_EQ(base[name].get<double>(), 1.0);
  const double denominator = base[key].get<double>();
  for (const json& e : doc["results"]) {
    if (!e.contains(key)) {
      EXPECT_FALSE(e.contains(name)) << e["variant"];
      continue;
    }
    ASSERT_TRUE(e.contains(name)) << e["variant"];
    EXPECT_DOUBLE_EQ(e[name].get<double>(), e[key].get<double>() / denominator) << e["variant"];
  }
}

// A share in [0, 1], mean between min and 1, last in [min, 1] (locality_tally).
void expect_share_triple(const json& e, const std::string& key) {
  SCOPED_TRACE(e.value("variant", "") + " " + key);
  for (const std::string& k : {key, key + "_min", key + "_last"}) {
    ASSERT_TRUE(e.contains(k) && e[k].is_number()) << k << " in " << e.dump();
    EXPECT_GE(e[k].get<double>(), 0.0);
    EXPECT_LE(e[k].get<double>(), 1.0);
  }
  EXPECT_LE(e[key + "_min"].get<double>(), e[key].get<double>() + 1e-12);
  EXPECT_LE(e[key + "_min"].get<double>(), e[key + "_last"].get<double>() + 1e-12);
}

std::size_t count_measured(const json& phases, const char* flag, bool value) {
  return static_cast<std::size_t>(
      std::count_if(phases.begin(), phases.end(), [&](const json& p) { return p[flag] == value; }));
}

// ---- fib -------------------------------------------------------------------

TEST(FibJson, OneCwsVariantPerPolicyRandomFirst) {
  const json doc = run_json(
      "fib", {"-n", "15", "--policy", "stows,random", "--runs", "3", "--warmup", "1", "--iters", "2"}, two_nodes);
  ASSERT_FALSE(doc.is_null());
  expect_envelope(doc, "fib", 2);
  expect_two_node_topology(doc);
  EXPECT_EQ(variants_of(doc), (strings{"cws-random", "cws-stows", "tbb-task-group", "serial"}));
  const json& p = doc["params"];
  EXPECT_EQ(p["n"], 15);
  EXPECT_EQ(p["policy"], "stows,random");
  EXPECT_EQ(p["iters"], 2);
  EXPECT_EQ(p["runs"], 3);
  EXPECT_EQ(p["warmup"], 1);
  EXPECT_EQ(p["expected"], 610);         // fib(15)
  EXPECT_EQ(p["spawns_per_call"], 986);  // calls with n >= 2: fib(16) - 1
  for (const json& e : doc["results"]) {
    SCOPED_TRACE(e["variant"]);
    expect_timing(e, 3);
    EXPECT_EQ(e["verified"], true);
    ASSERT_TRUE(e.contains("ns_per_spawn"));
    EXPECT_GT(e["ns_per_spawn"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(e["ns_per_spawn"].get<double>(), e["median_s"].get<double>() * 1e9 / 986);
    if (is_cws(e)) {
      ASSERT_TRUE(e.contains("steals_per_call"));
      EXPECT_GE(e["steals_per_call"].get<double>(), 0.0);
    } else {
      EXPECT_FALSE(e.contains("steals_per_call"));
    }
  }
  expect_ratio(doc, "ratio_vs_tbb", "median_s", "tbb-task-group");
  expect_ratio(doc, "ratio_vs_serial", "median_s", "serial");
  expect_ratio(doc, "ratio_vs_random", "median_s", "cws-random");
}

TEST(FibJson, SinglePolicyAndWorkersFlag) {
  // The machine's own topology, one worker: --workers reaches the runtime.
  const json doc = run_json("fib", {"-n", "12", "--policy", "stows", "--workers", "1", "--runs", "2", "--warmup", "0"});
  ASSERT_FALSE(doc.is_null());
  expect_envelope(doc, "fib", 1);
  EXPECT_EQ(variants_of(doc), (strings{"cws-stows", "tbb-task-group", "serial"}));
  EXPECT_EQ(doc["params"]["policy"], "stows");
  EXPECT_EQ(doc["params"]["warmup"], 0);
  for (const json& e : doc["results"]) {
    expect_timing(e, 2);
    EXPECT_EQ(e["verified"], true) << e["variant"];
    EXPECT_FALSE(e.contains("ratio_vs_random")) << "no cws-random variant, so no ratio against it";
  }
  // One worker cannot steal.
  EXPECT_EQ(entry(doc, "cws-stows")["steals_per_call"], 0.0);
}

// A policy named twice is one variant, as in memcopy and heat.
TEST(FibJson, RepeatedPolicyGivesOneVariant) {
  const json doc = run_json("fib", {"-n", "10", "--policy", "random,stows,random", "--runs", "1"}, two_nodes);
  ASSERT_FALSE(doc.is_null());
  EXPECT_EQ(variants_of(doc), (strings{"cws-random", "cws-stows", "tbb-task-group", "serial"}));
}

// ---- memcopy ---------------------------------------------------------------

// The fields of one memcopy variant run with --iters iters --runs runs --warmup warmup.
void expect_memcopy_entry(const json& e, unsigned iters, unsigned runs, unsigned warmup, double bytes) {
  const std::string v = e["variant"];
  SCOPED_TRACE(v);
  expect_timing(e, runs);
  expect_timing(e, runs, "init_");
  expect_timing(e, runs, "copy_");
  EXPECT_EQ(e["median_s"], e["copy_median_s"]);  // median_s is the copy
  EXPECT_EQ(e["min_s"], e["copy_min_s"]);
  EXPECT_DOUBLE_EQ(e["gbps"].get<double>(), 2 * bytes / e["copy_median_s"].get<double>() / 1e9);
  EXPECT_DOUBLE_EQ(e["init_gbps"].get<double>(), 2 * bytes / e["init_median_s"].get<double>() / 1e9);
  EXPECT_EQ(e["verified"], true);
  EXPECT_EQ(e["placement"], v == "cws-random-interleave" ? "interleaved" : "first_touch");
  const bool prefaulted = !is_cws(e) || v == "cws-random-prefault" || v == "cws-random-interleave";
  EXPECT_EQ(e["prefaulted"], prefaulted);
  EXPECT_EQ(e["kernel_placed"], false);  // synthetic topology: placement is intent only
  if (!is_cws(e)) {
    for (const char* k : {"policy", "copy_local_share", "copy_phases", "pages_moved"}) EXPECT_FALSE(e.contains(k)) << k;
    return;
  }
  EXPECT_EQ(e["schedules"]["init"], "init/" + v);
  EXPECT_EQ(e["schedules"]["copy"], "copy/" + v);
  expect_share_triple(e, "copy_local_share");
  EXPECT_EQ(e["locality_phases"], iters * runs);
  EXPECT_EQ(e["unknown_bytes"], 0);  // simulated homes know every declared page
  EXPECT_EQ(e["pages_failed"], 0);
  // Every copy phase: warm-up and measured runs' iters each, then the verification copy.
  const json& phases = e["copy_phases"];
  ASSERT_EQ(phases.size(), std::size_t{iters} * (warmup + runs) + 1) << phases.dump();
  EXPECT_EQ(count_measured(phases, "measured", true), std::size_t{iters} * runs);
  for (std::size_t i = 0; i < phases.size(); ++i) {
    EXPECT_EQ(phases[i]["iteration"], phases[0]["iteration"].get<std::uint64_t>() + i);
    EXPECT_EQ(phases[i]["measured"], i >= std::size_t{iters} * warmup && i < std::size_t{iters} * (warmup + runs));
  }
  const std::string policy = e["policy"];
  if (policy == "random") {
    EXPECT_EQ(e["copy_follows"], "");
    EXPECT_EQ(e["copy_ran_as_kind"], "random");
    EXPECT_EQ(e["pages_moved"], 0);  // random never relocalizes
    EXPECT_EQ(e["relocalizations"], 0);
    EXPECT_FALSE(e.contains("follow_init_relocalize_pages_moved"));
  }
}

TEST(MemcopyJson, DefaultPoliciesGiveTheDocumentedVariants) {
  const json doc = run_json("memcopy", {"--mb", "1", "--iters", "2", "--runs", "2", "--warmup", "1"}, two_nodes);
  ASSERT_FALSE(doc.is_null());
  expect_envelope(doc, "memcopy", 2);
  expect_two_node_topology(doc);
  EXPECT_EQ(variants_of(doc), (strings{"cws-random-firsttouch", "cws-random-prefault", "cws-random-interleave",
                                       "cws-stows", "cws-evolve", "tbb-auto", "tbb-affinity", "omp-static"}));
  const json& p = doc["params"];
  EXPECT_EQ(p["mb_per_array"], 1);
  EXPECT_EQ(p["elements"], (1 << 20) / 8);
  EXPECT_EQ(p["grain"], (1 << 20) / 8 / 4);  // elements / (2 x workers)
  EXPECT_EQ(p["policies"], (strings{"random", "stows", "evolve"}));
  EXPECT_EQ(p["evolve_init"], "random");
  EXPECT_EQ(p["page_homes"], "simulated");
  EXPECT_EQ(p["iters"], 2);
  EXPECT_EQ(p["runs"], 2);
  EXPECT_EQ(p["warmup"], 1);
  for (const json& e : doc["results"]) expect_memcopy_entry(e, 2, 2, 1, 1 << 20);
  expect_ratio(doc, "ratio_vs_omp_static", "gbps", "omp-static");

  // stows: schedule follows data, the copy replays init's tree, then one untimed relocalization.
  const json& stows = entry(doc, "cws-stows");
  EXPECT_EQ(stows["policy"], "stows");
  EXPECT_EQ(stows["copy_follows"], "init/cws-stows");
  EXPECT_EQ(stows["copy_ran_as_kind"], "stows");
  EXPECT_TRUE(starts_with(stows.value("copy_template_from", ""), "follows 'init/cws-stows': "))
      << stows["copy_template_from"];
  for (const char* k :
       {"follow_init_relocalize_pages_moved", "follow_init_relocalize_pages_examined", "follow_init_relocalize_s"})
    EXPECT_TRUE(stows.contains(k)) << k;
  // evolve: its own copy schedule (no follow), init under --evolve-init.
  const json& evolve = entry(doc, "cws-evolve");
  EXPECT_EQ(evolve["policy"], "evolve");
  EXPECT_EQ(evolve["init_policy"], "random");
  EXPECT_EQ(evolve["copy_follows"], "");
  EXPECT_TRUE(evolve["converged"].is_boolean());
  EXPECT_EQ(evolve["prefaulted"], false);
  EXPECT_FALSE(evolve.contains("follow_init_relocalize_pages_moved"));
}

TEST(MemcopyJson, PolicyFlagsSelectTheVariants) {
  {  // repeated names dropped, order kept
    const json doc = run_json(
        "memcopy", {"--mb", "1", "--runs", "1", "--warmup", "0", "--policies", "stows,random,stows"}, two_nodes);
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(variants_of(doc), (strings{"cws-stows", "cws-random-firsttouch", "cws-random-prefault",
                                         "cws-random-interleave", "tbb-auto", "tbb-affinity", "omp-static"}));
    EXPECT_EQ(doc["params"]["policies"], (strings{"stows", "random"}));
    for (const json& e : doc["results"]) expect_memcopy_entry(e, 1, 1, 0, 1 << 20);
  }
  {  // --policy P is --policies P; stuws follows init too; --grain is echoed
    const json doc = run_json(
        "memcopy", {"--mb", "1", "--runs", "1", "--warmup", "0", "--policy", "stuws", "--grain", "8192"}, two_nodes);
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(variants_of(doc), (strings{"cws-stuws", "tbb-auto", "tbb-affinity", "omp-static"}));
    EXPECT_EQ(doc["params"]["policies"], (strings{"stuws"}));
    EXPECT_EQ(doc["params"]["grain"], 8192);
    EXPECT_EQ(entry(doc, "cws-stuws")["copy_follows"], "init/cws-stuws");
    for (const json& e : doc["results"]) expect_memcopy_entry(e, 1, 1, 0, 1 << 20);
  }
  {  // --no-follow-init: the stows copy gets its own template, no relocalization footnote
    const json doc = run_json(
        "memcopy", {"--mb", "1", "--runs", "1", "--warmup", "1", "--policies", "stows", "--no-follow-init"}, two_nodes);
    ASSERT_FALSE(doc.is_null());
    const json& stows = entry(doc, "cws-stows");
    EXPECT_EQ(stows["copy_follows"], "");
    EXPECT_FALSE(stows.contains("follow_init_relocalize_pages_moved"));
    expect_memcopy_entry(stows, 1, 1, 1, 1 << 20);
  }
}

// Every copy phase's report is taken as the phase runs, not read back from
// the schedule's history, which here keeps one run.
TEST(MemcopyJson, CopyPhasesOutliveAOneRunHistory) {
  env_list env = two_nodes;
  env.emplace_back("CWS_HISTORY", "1");
  const json doc = run_json(
      "memcopy",
      {"--mb", "1", "--iters", "3", "--runs", "2", "--warmup", "1", "--policies", "stows", "--no-follow-init"}, env);
  ASSERT_FALSE(doc.is_null());
  const json& stows = entry(doc, "cws-stows");
  expect_memcopy_entry(stows, 3, 2, 1, 1 << 20);
  const json& phases = stows["copy_phases"];
  ASSERT_EQ(phases.size(), 10u) << phases.dump();  // 3 runs of 3 copies, then the verification's
  for (std::size_t i = 0; i < phases.size(); ++i)
    EXPECT_EQ(phases[i].value("ran_as_kind", "(none)"), i == 0 ? "random_no_template" : "stows") << i;
}

// ---- heat ------------------------------------------------------------------

TEST(HeatJson, VariantsFieldsAndIterations) {
  const unsigned iters = 2, runs = 2, warmup = 1, n = 64;
  const json doc = run_json(
      "heat", {"--size", "64", "--iters", "2", "--runs", "2", "--warmup", "1", "--policies", "random,stows,user"},
      two_nodes);
  ASSERT_FALSE(doc.is_null());
  expect_envelope(doc, "heat", 2);
  expect_two_node_topology(doc);
  EXPECT_EQ(variants_of(doc), (strings{"serial", "cws-random", "cws-random-interleave", "cws-stows",
                                       "cws-stows-follow-init", "cws-user", "tbb-auto", "tbb-affinity", "omp-static"}));
  const json& p = doc["params"];
  EXPECT_EQ(p["size"], n);
  EXPECT_EQ(p["block_rows"], 2);  // N / (16 x workers)
  EXPECT_EQ(p["blocks"], 32);
  EXPECT_EQ(p["iters"], iters);
  EXPECT_EQ(p["runs"], runs);
  EXPECT_EQ(p["warmup"], warmup);
  EXPECT_EQ(p["policies"], (strings{"random", "stows", "user"}));
  EXPECT_EQ(p["follow_init"], false);
  EXPECT_EQ(p["evolve_init"], "random");
  EXPECT_EQ(p["bytes_per_step"], 2.0 * n * n * 8);
  EXPECT_EQ(p["page_homes"], "simulated");
  const double grid_bytes = double{n} * n * 8;
  for (const json& e : doc["results"]) {
    const std::string v = e["variant"];
    SCOPED_TRACE(v);
    expect_timing(e, runs);
    expect_timing(e, runs, "init_");
    EXPECT_DOUBLE_EQ(e["gbps"].get<double>(), 2 * grid_bytes / e["median_s"].get<double>() / 1e9);
    EXPECT_EQ(e["verified"], true);  // final grid equal to the serial one
    if (!is_cws(e)) {
      EXPECT_FALSE(e.contains("iterations"));
      continue;
    }
    const std::string suffix = v.substr(4);
    EXPECT_EQ(e["schedules"]["init"], "heat-init/" + suffix);
    EXPECT_EQ(e["schedules"]["step"], "heat-step/" + suffix);
    expect_share_triple(e, "local_share");
    EXPECT_EQ(e["locality_phases"], iters * runs);
    EXPECT_EQ(e["unknown_bytes"], 0);
    EXPECT_EQ(e["pages_moved"],
              e["step_pages_moved"].get<std::uint64_t>() + e["init_pages_moved"].get<std::uint64_t>());
    // Step phases of every run (warm-up flagged), init phases one per run.
    const json& its = e["iterations"];
    ASSERT_EQ(its.size(), std::size_t{iters} * (warmup + runs)) << its.dump();
    EXPECT_EQ(count_measured(its, "warmup", true), std::size_t{iters} * warmup);
    EXPECT_EQ(e["init_iterations"].size(), std::size_t{warmup + runs});
    for (std::size_t i = 0; i < its.size(); ++i) {
      EXPECT_EQ(its[i]["run"], i / iters);
      EXPECT_EQ(its[i]["iteration"], i % iters);
    }
  }
  expect_ratio(doc, "ratio_vs_omp_static", "median_s", "omp-static");
  expect_ratio(doc, "ratio_vs_cws_random", "median_s", "cws-random");
  expect_ratio(doc, "ratio_vs_serial", "median_s", "serial");

  EXPECT_EQ(entry(doc, "cws-random-interleave")["policy"], "random");
  // random keeps no trees: the distance between consecutive steps comes from
  // the recorder's, for every step but the schedule's first.
  const json& random_its = entry(doc, "cws-random")["iterations"];
  EXPECT_TRUE(random_its[0]["distance_to_previous"].is_null());
  for (std::size_t i = 1; i < random_its.size(); ++i) {
    ASSERT_TRUE(random_its[i]["distance_to_previous"].is_number()) << i;
    EXPECT_GE(random_its[i]["distance_to_previous"].get<double>(), 0.0);
    EXPECT_LE(random_its[i]["distance_to_previous"].get<double>(), 1.0);
  }
  EXPECT_TRUE(entry(doc, "cws-random")["mean_distance"].is_number());
  EXPECT_EQ(entry(doc, "cws-user")["policy"], "user");
  // stows: its first step has no template yet and records one; every later step replays.
  const json& stows = entry(doc, "cws-stows");
  EXPECT_EQ(stows["step_follows"], "");
  const json& its = stows["iterations"];
  EXPECT_EQ(its[0]["ran_as_kind"], "random_no_template");
  for (std::size_t i = 1; i < its.size(); ++i) EXPECT_EQ(its[i]["ran_as_kind"], "stows") << i;
  // stows-follow-init: every step replays the init phase's template.
  const json& follow = entry(doc, "cws-stows-follow-init");
  EXPECT_EQ(follow["step_follows"], "heat-init/stows-follow-init");
  for (const json& it : follow["iterations"]) {
    EXPECT_EQ(it["ran_as_kind"], "stows");
    EXPECT_TRUE(starts_with(it.value("template_from", ""), "follows 'heat-init/stows-follow-init': "))
        << it["template_from"];
  }
}

TEST(HeatJson, FollowInitFlag) {
  const json doc = run_json(
      "heat",
      {"--size", "32", "--iters", "1", "--runs", "1", "--warmup", "0", "--policies", "stows,random", "--follow-init"},
      two_nodes);
  ASSERT_FALSE(doc.is_null());
  // No separate cws-stows-follow-init: every replaying policy follows init.
  EXPECT_EQ(variants_of(doc), (strings{"serial", "cws-stows", "cws-random", "cws-random-interleave", "tbb-auto",
                                       "tbb-affinity", "omp-static"}));
  EXPECT_EQ(doc["params"]["follow_init"], true);
  EXPECT_EQ(entry(doc, "cws-stows")["step_follows"], "heat-init/stows");
  EXPECT_EQ(entry(doc, "cws-random")["step_follows"], "");  // random replays nothing
  for (const json& e : doc["results"]) {
    expect_timing(e, 1);
    EXPECT_EQ(e["verified"], true) << e["variant"];
  }
}

// ---- phases ----------------------------------------------------------------

// Per variant, one entry per size: timings of every measured run, ratios to
// omp-static, the same checksum as every other variant, verified.
TEST(PhasesJson, SizesChecksumsAndRatios) {
  const json doc = run_json(
      "phases",
      {"--sizes", "0,1,16", "--iters", "4", "--runs", "2", "--warmup", "1", "--policies", "random,stows", "--no-gaps"},
      two_nodes);
  ASSERT_FALSE(doc.is_null());
  expect_envelope(doc, "phases", 2);
  expect_two_node_topology(doc);
  EXPECT_EQ(variants_of(doc),
            (strings{"serial", "cws-random", "cws-stows", "tbb-simple", "tbb-static", "tbb-affinity", "omp-static"}));
  const json& p = doc["params"];
  EXPECT_EQ(p["sizes_kib"], (std::vector<int>{0, 1, 16}));
  EXPECT_EQ(p["blocks"], 2);  // one leaf per worker
  EXPECT_EQ(p["calls_per_run"], (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(p["kernel"], "a[i] = a[i] * 0.5 + b[i]");
  EXPECT_EQ(p["runs"], 2);
  EXPECT_EQ(p["warmup"], 1);
  EXPECT_EQ(p["order"], "interleaved");
  EXPECT_EQ(p["policies"], (strings{"random", "stows"}));
  EXPECT_EQ(p["gaps_ms"], json::array());
  for (const char* k : {"gap_wait", "cws_blocktime_us", "omp_wait_policy", "gomp_spincount", "load_average"})
    EXPECT_TRUE(p.contains(k)) << k;

  const json& omp = entry(doc, "omp-static");
  const strings labels{"empty", "1KiB", "16KiB"};
  const std::vector<int> elements{0, 128, 2048};
  for (const json& e : doc["results"]) {
    SCOPED_TRACE(e["variant"]);
    EXPECT_EQ(e["verified"], true);
    EXPECT_FALSE(e.contains("gaps"));
    const json& phases = e["phases"];
    ASSERT_EQ(phases.size(), 3u) << e.dump();
    for (std::size_t k = 0; k < phases.size(); ++k) {
      const json& ph = phases[k];
      SCOPED_TRACE(labels[k]);
      EXPECT_EQ(ph["size"], labels[k]);
      EXPECT_EQ(ph["elements"], elements[k]);
      EXPECT_EQ(ph["calls_per_run"], 4);
      EXPECT_EQ(ph["runs"], 2);
      EXPECT_EQ(ph["verified"], true);
      // Every variant computes the same values: the same checksum as omp-static's, and serial's.
      EXPECT_EQ(ph["checksum"], omp["phases"][k]["checksum"]);
      EXPECT_EQ(ph["checksum"], entry(doc, "serial")["phases"][k]["checksum"]);
      const double median = ph["median_s"].get<double>(), min = ph["min_s"].get<double>();
      EXPECT_GT(min, 0.0);  // the wall clock around a call, even an empty one
      EXPECT_LE(min, median);
      EXPECT_DOUBLE_EQ(ph["us_per_phase"].get<double>(), median * 1e6);
      EXPECT_DOUBLE_EQ(ph["ratio_vs_omp_static"].get<double>(), median / omp["phases"][k]["median_s"].get<double>());
      if (is_cws(e)) {
        // The breakdown of the headline time: the phases' own wall_s and the rest of rt.run.
        EXPECT_GE(ph["phase_wall_s"].get<double>(), 0.0);
        EXPECT_GE(ph["outside_wall_s"].get<double>(), 0.0);
      } else {
        EXPECT_FALSE(ph.contains("phase_wall_s"));
      }
    }
    EXPECT_EQ(e.contains("policy"), is_cws(e));
  }
  EXPECT_EQ(omp["phases"][1]["ratio_vs_omp_static"], 1.0);
  // 0 + 1.. : an empty phase sums nothing; the others a positive checksum.
  EXPECT_EQ(omp["phases"][0]["checksum"], 0.0);
  EXPECT_GT(omp["phases"][2]["checksum"].get<double>(), 0.0);
}

// The CPU-in-gaps figure: one entry per gap length, shares of the gaps' time.
TEST(PhasesJson, GapsAndSequentialOrder) {
  const json doc = run_json("phases",
                            {"--sizes", "1", "--iters", "2", "--runs", "1", "--warmup", "0", "--policy", "evolve",
                             "--gaps-ms", "5", "--gap-kib", "1", "--order", "sequential"},
                            two_nodes);
  ASSERT_FALSE(doc.is_null());
  EXPECT_EQ(variants_of(doc),
            (strings{"serial", "cws-evolve", "tbb-simple", "tbb-static", "tbb-affinity", "omp-static"}));
  const json& p = doc["params"];
  EXPECT_EQ(p["gaps_ms"], (std::vector<double>{5.0}));
  EXPECT_EQ(p["gap_cycles"], (std::vector<int>{20}));  // about 100 ms of gaps
  EXPECT_EQ(p["gap_kib"], 1);
  EXPECT_EQ(p["gap_wait"], "busy");
  EXPECT_EQ(p["order"], "sequential");
  for (const json& e : doc["results"]) {
    SCOPED_TRACE(e["variant"]);
    EXPECT_EQ(e["verified"], true);
    ASSERT_TRUE(e.contains("gaps")) << e.dump();
    ASSERT_EQ(e["gaps"].size(), 1u);
    const json& g = e["gaps"][0];
    EXPECT_EQ(g["gap_ms"], 5.0);
    EXPECT_EQ(g["cycles"], 20);
    EXPECT_EQ(g["runs"], 1);
    // Process CPU minus the caller's: the other threads only. Their clocks
    // advance at scheduler ticks, so each end of the 100 ms may be off by a
    // tick (4 ms at HZ 250): a little below zero is possible, not more.
    const double pct = g["cpu_pct_of_gap"].get<double>();
    EXPECT_TRUE(std::isfinite(pct));
    EXPECT_GT(pct, -10.0);
    EXPECT_DOUBLE_EQ(g["cpu_s_per_gap"].get<double>(), pct / 100 * 5e-3);
    EXPECT_GE(g["phase_pct_of_gap"].get<double>(), 0.0);
  }
}

// ---- recording, pagemove ----------------------------------------------------

TEST(RecordingJson, OverheadAndSizeEntries) {
  const json doc = run_json("recording", {"-n", "12", "--mb", "1", "--pairs", "3", "--phases", "4"}, two_nodes);
  ASSERT_FALSE(doc.is_null());
  expect_envelope(doc, "recording", 2);
  EXPECT_EQ(variants_of(doc), (strings{"fib", "memcopy-copy", "trace-size"}));
  const json& p = doc["params"];
  EXPECT_EQ(p["n"], 12);
  EXPECT_EQ(p["mb_per_array"], 1);
  EXPECT_EQ(p["pairs"], 3);
  EXPECT_EQ(p["phases"], 4);
  for (const char* v : {"fib", "memcopy-copy"}) {
    const json& e = entry(doc, v);
    // One on and one off sample per pair (cws-recording takes --pairs, not --runs).
    expect_timing(e, 3, "on_");
    expect_timing(e, 3, "off_");
    EXPECT_GT(e["ratio_on_off"].get<double>(), 0.0) << v;
  }
  const json& size = entry(doc, "trace-size");
  EXPECT_EQ(size["phases"], 4);
  const double bytes = size["bytes"].get<double>();
  EXPECT_GT(bytes, 0.0);
  EXPECT_DOUBLE_EQ(size["kb_per_worker"].get<double>(), bytes / 1024 / 2);
  EXPECT_DOUBLE_EQ(size["bytes_per_phase"].get<double>(), bytes / 4);
  const double steals = size["steals"].get<double>();
  EXPECT_DOUBLE_EQ(size["bytes_per_steal"].get<double>(), steals > 0 ? bytes / steals : 0.0);
}

TEST(PagemoveJson, MemcpyAndMovers) {
  // pagemove asks hwloc for the real machine (it moves real pages), so no synthetic topology.
  const json doc = run_json("pagemove", {"--mb", "1", "--runs", "2", "--run-pages", "1,0"});
  ASSERT_FALSE(doc.is_null());
  EXPECT_EQ(doc["app"], "pagemove");
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)), pages = (1u << 20) / page;
  EXPECT_EQ(doc["params"]["mb"], 1);
  EXPECT_EQ(doc["params"]["runs"], 2);
  EXPECT_EQ(doc["params"]["page_size"], page);
  EXPECT_EQ(doc["params"]["pages"], pages);
  const unsigned nodes = doc["topology"]["numa_nodes"];
  const json& results = doc["results"];
  ASSERT_GE(results.size(), 1u);
  const json& copy = results[0];
  EXPECT_EQ(copy["variant"], "memcpy");
  EXPECT_EQ(copy["ratio_vs_memcpy"], 1.0);
  for (const json& e : results) {
    SCOPED_TRACE(e.dump());
    EXPECT_GT(e["median_s"].get<double>(), 0.0);
    EXPECT_GT(e["gbps"].get<double>(), 0.0);
    EXPECT_GE(e["best_gbps"].get<double>(), e["gbps"].get<double>());  // best = fastest run
  }
  if (nodes < 2) {
    EXPECT_EQ(results.size(), 1u) << "one node: only memcpy";
    EXPECT_TRUE(doc.contains("note"));
    return;
  }
  // Per run length (1, all), the three movers.
  ASSERT_EQ(results.size(), 7u);
  const strings movers{"move_pages", "mbind", "auto"};
  for (std::size_t i = 1; i < results.size(); ++i) {
    const json& e = results[i];
    const bool all = i > 3;
    EXPECT_EQ(e["variant"], movers[(i - 1) % 3]);
    EXPECT_EQ(e["run_pages"], all ? json("all") : json(1));
    EXPECT_EQ(e["pages"], all ? pages : (pages + 1) / 2);  // every other run of 1 page
    EXPECT_DOUBLE_EQ(e["ratio_vs_memcpy"].get<double>(), e["gbps"].get<double>() / copy["gbps"].get<double>());
  }
}

}  // namespace
