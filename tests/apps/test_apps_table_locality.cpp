// The benchmark apps run as programs with tiny sizes, beside their --json
// documents (test_apps.cpp): their table, and the locality figures on a
// synthetic 2-node machine (simulated page homes).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "app_checks.hpp"

namespace {

using namespace cws::apps_test;
using strings = std::vector<std::string>;

// ---- the table (no --json) --------------------------------------------------

// The table rows are the JSON entries: every variant starts a line, "yes" in the ok column.
TEST(Table, RowsAreTheVariants) {
  struct app_case {
    std::string app;
    strings args, variants;
  };
  const std::vector<app_case> cases = {
      {"fib",
       {"-n", "12", "--runs", "1", "--policy", "random,stows"},
       {"cws-random", "cws-stows", "tbb-task-group", "serial"}},
      {"heat",
       {"--size", "32", "--iters", "1", "--runs", "1", "--policies", "stows", "-q"},
       {"serial", "cws-stows", "cws-stows-follow-init", "tbb-auto", "tbb-affinity", "omp-static"}},
      // cws-phases prints tables of its own (us per phase, ratios, gaps); the first ends in "ok".
      {"phases",
       {"--sizes", "0,1", "--iters", "2", "--runs", "1", "--policies", "stows", "--no-gaps"},
       {"serial", "cws-stows", "tbb-simple", "tbb-static", "tbb-affinity", "omp-static"}},
  };
  for (const app_case& c : cases) {
    SCOPED_TRACE(c.app);
    const run_result r = run_app(c.app, c.args, two_nodes);
    ASSERT_FALSE(r.timed_out) << r.dump();
    ASSERT_EQ(r.code, 0) << r.dump();
    EXPECT_TRUE(starts_with(r.out, "cws-" + c.app + ": ")) << r.dump();
    EXPECT_NE(r.out.find("\ntopology: 2 packages, 2 NUMA nodes"), std::string::npos) << r.dump();
    EXPECT_EQ(r.out.find("ran as"), std::string::npos) << "-q / fib: no iteration lines\n" << r.dump();
    for (const std::string& v : c.variants) {
      const std::size_t at = r.out.find("\n" + v + " ");
      ASSERT_NE(at, std::string::npos) << v << "\n" << r.dump();
      const std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
      EXPECT_TRUE(line.size() >= 3 && line.substr(line.size() - 3) == "yes") << line;
    }
  }
  // Without -q, heat prints the iteration lines of each cws variant before the table.
  const run_result r =
      run_app("heat", {"--size", "32", "--iters", "2", "--runs", "1", "--policies", "stows"}, two_nodes);
  ASSERT_EQ(r.code, 0) << r.dump();
  EXPECT_NE(r.out.find("cws-stows: schedule \"heat-step/stows\""), std::string::npos) << r.dump();
  EXPECT_NE(r.out.find("random (no template yet)"), std::string::npos) << r.dump();
}

// ---- locality on a synthetic 2-node machine --------------------------------

TEST(Locality, MemcopyCopyFollowsInit) {
  const json doc =
      run_json("memcopy", {"--mb", "1", "--runs", "2", "--warmup", "1", "--policies", "random,stows"}, two_nodes);
  ASSERT_FALSE(doc.is_null());
  expect_two_node_topology(doc);
  ASSERT_EQ(doc["params"]["page_homes"], "simulated");
  // cws-stows: each block is copied by the worker that first touched it.
  const json& stows = entry(doc, "cws-stows");
  ASSERT_EQ(stows["copy_follows"], "init/cws-stows");
  EXPECT_GE(stows["copy_local_share"].get<double>(), 0.99) << stows.dump(2);
  EXPECT_GE(stows["copy_local_share_min"].get<double>(), 0.99);
  EXPECT_GE(stows["copy_local_share_last"].get<double>(), 0.99);
  for (const json& ph : stows["copy_phases"]) EXPECT_GE(ph["local_share"].get<double>(), 0.99) << ph.dump();
  // ... so relocalizing the copy schedule afterwards finds nothing to move.
  EXPECT_EQ(stows["follow_init_relocalize_pages_moved"], 0);
  EXPECT_GT(stows["follow_init_relocalize_pages_examined"].get<std::uint64_t>(), 0u);
  // Interleaved over two nodes: half of every leaf's bytes are on the other node.
  const json& inter = entry(doc, "cws-random-interleave");
  EXPECT_NEAR(inter["copy_local_share"].get<double>(), 0.5, 0.05) << inter.dump(2);
  EXPECT_NEAR(inter["init_local_share"].get<double>(), 0.5, 0.05);
  for (const json& e : doc["results"]) {
    if (is_cws(e)) {
      EXPECT_EQ(e["unknown_bytes"], 0) << e["variant"];
    }
  }
}

TEST(Locality, HeatStepsFollowInit) {
  // Rows of 512 doubles are one page each; 4 blocks of 128 rows keep the halo
  // rows read across a node boundary (at most 3 boundaries x 2 rows) under 1 %.
  const json doc = run_json(
      "heat",
      {"--size", "512", "--block", "128", "--iters", "3", "--runs", "2", "--warmup", "1", "--policies", "random,stows"},
      two_nodes);
  ASSERT_FALSE(doc.is_null());
  expect_two_node_topology(doc);
  EXPECT_EQ(doc["params"]["block_rows"], 128);
  EXPECT_EQ(doc["params"]["blocks"], 4);
  const json& follow = entry(doc, "cws-stows-follow-init");
  EXPECT_GE(follow["local_share"].get<double>(), 0.99) << follow.dump(2);
  EXPECT_GE(follow["local_share_min"].get<double>(), 0.99);
  for (const json& it : follow["iterations"]) EXPECT_GE(it["local_share"].get<double>(), 0.99) << it.dump();
  const json& inter = entry(doc, "cws-random-interleave");
  EXPECT_NEAR(inter["local_share"].get<double>(), 0.5, 0.1) << inter.dump(2);
  EXPECT_NEAR(inter["init_local_share"].get<double>(), 0.5, 0.1);
  for (const json& e : doc["results"]) {
    if (is_cws(e)) {
      EXPECT_EQ(e["unknown_bytes"], 0) << e["variant"];
      EXPECT_EQ(e["verified"], true) << e["variant"];
    }
  }
}

}  // namespace
