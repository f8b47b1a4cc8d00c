// Exporters: Chrome trace-event JSON and Graphviz DOT, and the run selection.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cws/traces/export.hpp"
#include "synthetic.hpp"

namespace {

namespace tr = cws::traces;
using nlohmann::json;

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(Export, SelectByPhaseAndIteration) {
  const tr::trace_file f = cws::test::synthetic_trace();
  EXPECT_EQ(tr::select(f), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(tr::select(f, "stencil"), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(tr::select(f, "stencil", 1), (std::vector<std::size_t>{1}));
  EXPECT_EQ(tr::select(f, std::nullopt, 0), (std::vector<std::size_t>{0}));
  EXPECT_TRUE(tr::select(f, "other").empty());
  EXPECT_EQ(tr::run_label(f.phases[1]), "stencil #1 (stows)");
}

TEST(Export, ChromeTraceHasTracksSlicesAndFlows) {
  const tr::trace_file f = cws::test::synthetic_trace();
  const json doc = json::parse(tr::chrome_trace(f));
  ASSERT_TRUE(doc.contains("traceEvents"));
  std::map<std::string, int> by_phase;
  std::map<int, std::string> thread_names;
  std::vector<json> segments, phases, flow_starts, flow_ends;
  for (const json& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    ++by_phase[ph];
    if (ph == "M" && e["name"] == "thread_name") thread_names[e["tid"].get<int>()] = e["args"]["name"];
    if (ph == "X" && e["cat"] == "segment") segments.push_back(e);
    if (ph == "X" && e["cat"] == "phase") phases.push_back(e);
    if (ph == "s") flow_starts.push_back(e);
    if (ph == "f") flow_ends.push_back(e);
  }
  // One track per worker (named with its node) plus the phases track.
  EXPECT_EQ(thread_names.size(), 5u);
  EXPECT_EQ(thread_names[0], "worker 0 (node 0)");
  EXPECT_EQ(thread_names[3], "worker 3 (node 1)");
  EXPECT_EQ(thread_names[4], "phases");
  // Two runs of 6 segments, 5 steals each.
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0]["name"], "stencil #0 (relws)");
  EXPECT_EQ(segments.size(), 12u);
  EXPECT_EQ(flow_starts.size(), 10u);
  EXPECT_EQ(flow_ends.size(), 10u);
  // Runs laid out one after the other.
  EXPECT_GE(phases[1]["ts"].get<double>(), phases[0]["ts"].get<double>() + phases[0]["dur"].get<double>());
  // Segment #5 of run 0: worker 1, 6000-7500 ns, 1 task, taken at (2,1) from #3.
  const json& s5 = segments[5];
  EXPECT_EQ(s5["tid"], 1);
  EXPECT_DOUBLE_EQ(s5["ts"].get<double>(), 6.0);
  EXPECT_DOUBLE_EQ(s5["dur"].get<double>(), 1.5);
  EXPECT_EQ(s5["args"]["tasks"], 1);
  EXPECT_EQ(s5["args"]["parent"], 3);
  EXPECT_EQ(s5["name"], "#5 (2,1)");
  // Every flow goes from the parent's worker to the thief's, ids paired.
  std::set<std::uint64_t> ids;
  for (std::size_t i = 0; i < flow_starts.size(); ++i) {
    EXPECT_EQ(flow_starts[i]["id"], flow_ends[i]["id"]);
    EXPECT_EQ(flow_ends[i]["bp"], "e");
    ids.insert(flow_starts[i]["id"].get<std::uint64_t>());
  }
  EXPECT_EQ(ids.size(), 10u);
  // The steal of #5: from worker 2 (segment #3's) to worker 1 at 6 us.
  bool found = false;
  for (std::size_t i = 0; i < flow_starts.size(); ++i)
    if (flow_starts[i]["tid"] == 2 && flow_ends[i]["tid"] == 1 && flow_ends[i]["ts"].get<double>() == 6.0) found = true;
  EXPECT_TRUE(found);

  // A selection exports only those runs.
  const json one = json::parse(tr::chrome_trace(f, {1}));
  int slices = 0;
  for (const json& e : one["traceEvents"])
    if (e["ph"] == "X" && e["cat"] == "segment") ++slices;
  EXPECT_EQ(slices, 6);
}

TEST(Export, DotHasOneNodePerSegmentAndLabeledEdges) {
  const tr::trace_file f = cws::test::synthetic_trace();
  const std::string d = tr::dot(f, {0});
  EXPECT_EQ(d.rfind("digraph \"steal trees\" {", 0), 0u);
  EXPECT_EQ(count(d, "subgraph cluster_"), 1u);
  EXPECT_NE(d.find("label=\"stencil #0 (relws)\""), std::string::npos);
  EXPECT_EQ(count(d, "[label=\"#"), 6u);  // nodes
  EXPECT_EQ(count(d, " -> "), 5u);        // edges
  EXPECT_NE(d.find("r0s0 [label=\"#0\\nworker 0\\n5 tasks\""), std::string::npos);
  EXPECT_NE(d.find("r0s3 -> r0s5 [label=\"(2, 1)\"]"), std::string::npos);
  EXPECT_NE(d.find("r0s5 [label=\"#5\\nworker 1\\n1 task\""), std::string::npos);
  EXPECT_EQ(d.back(), '\n');
  // All runs: one cluster each, node names distinct.
  const std::string all = tr::dot(f);
  EXPECT_EQ(count(all, "subgraph cluster_"), 2u);
  EXPECT_NE(all.find("r1s1 -> r1s2 [label=\"(1, 0)\"]"), std::string::npos);
  // A single tree, with a title that needs escaping.
  const std::string one = tr::dot(f.phases[0].steals, "say \"hi\"");
  EXPECT_EQ(one.rfind("digraph \"say \\\"hi\\\"\" {", 0), 0u);
  EXPECT_NE(one.find("s0 -> s1 [label=\"(1, 0)\"]"), std::string::npos);
}

TEST(Export, OutOfRangeSelectionIsAnError) {
  const tr::trace_file f = cws::test::synthetic_trace();
  EXPECT_THROW(tr::dot(f, {7}), cws::error);
  EXPECT_THROW(tr::chrome_trace(f, {2}), cws::error);
}

// Names read from a file need not be UTF-8 (runtime::schedule refuses such
// names, files from elsewhere may still hold them): the invalid bytes become
// U+FFFD and the output stays valid JSON instead of throwing.
TEST(Export, ChromeTraceOfNonUtf8NamesIsValidJson) {
  tr::trace_file f = cws::test::synthetic_trace();
  const std::string bad = std::string("sten\xff\xfe") + "cil";  // split: \xfec would be one escape
  const std::string replaced = std::string("sten\xef\xbf\xbd\xef\xbf\xbd") + "cil #";  // U+FFFD twice
  for (auto& r : f.phases) r.schedule = bad;
  f.header.host = "host\xc3";  // a truncated two-byte sequence
  std::string text;
  ASSERT_NO_THROW(text = tr::chrome_trace(f));
  const json doc = json::parse(text);
  EXPECT_EQ(doc["otherData"]["host"], "host\xef\xbf\xbd");
  std::size_t named = 0;
  for (const json& e : doc["traceEvents"])
    if (e.contains("args") && e["args"].contains("run") && e["args"]["run"].is_string())
      named += e["args"]["run"].get<std::string>().rfind(replaced, 0) == 0;
  EXPECT_GT(named, 0u);
}

}  // namespace
