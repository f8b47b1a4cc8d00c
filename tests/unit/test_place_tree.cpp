// The hierarchical place tree: built from hwloc and synthetic topologies,
// loaded from HClib-style HPT XML files (equal to the topology's tree for the
// same shape; malformed files give one line naming the file and the line),
// find_place, and a runtime using CWS_HPT's file.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cws/cws.hpp"
#include "cws/hint.hpp"
#include "cws/place_tree.hpp"
#include "cws/topology.hpp"
#include "support/error_of.hpp"
#include "support/runtime_fixture.hpp"
#include "support/scratch_files.hpp"

namespace {

using cws::place_tree;
using kind = place_tree::kind;
using V = std::vector<unsigned>;

place_tree tree_of(const std::string& synthetic, unsigned workers = 0) {
  const auto topo = cws::topology::synthetic(synthetic);
  return place_tree::from_topology(topo, topo.place_workers(workers ? workers : unsigned(topo.cores().size())));
}

V per_worker(const place_tree& t, unsigned (place_tree::*f)(unsigned) const noexcept) {
  V out;
  for (unsigned w = 0; w < t.workers(); ++w) out.push_back((t.*f)(w));
  return out;
}

// Every worker sits in exactly one leaf, its leaf is under its node, and the
// per-node worker lists agree with the leaves.
void expect_consistent(const place_tree& t) {
  V seen(t.workers(), 0);
  for (unsigned k = 0; k < t.nodes(); ++k) {
    V from_leaves;
    for (unsigned l : t.leaves_of_node(k)) {
      const auto& leaf = t.at(t.leaf_place(l));
      EXPECT_TRUE(t.leaf_place(l) == t.node_place(k) || leaf.parent == t.node_place(k)) << "leaf " << l;
      for (unsigned w : t.workers_of_leaf(l)) {
        ++seen[w];
        EXPECT_EQ(t.leaf_of_worker(w), l);
        EXPECT_EQ(t.node_of_worker(w), k);
        from_leaves.push_back(w);
      }
    }
    EXPECT_EQ(t.workers_of_node(k), from_leaves) << "node " << k;
    EXPECT_EQ(t.node_of_numa(t.numa_of_node(k)), k);
  }
  EXPECT_EQ(seen, V(t.workers(), 1));
}

TEST(PlaceTreeTopology, FromThisMachine) {
  const auto topo = cws::topology::discover();
  const auto placement = topo.place_workers(unsigned(topo.cores().size()));
  const auto t = place_tree::from_topology(topo, placement);
  EXPECT_EQ(t.source(), "topology");
  EXPECT_EQ(t.workers(), placement.size());
  EXPECT_EQ(t.at(place_tree::root).what, kind::root);
  EXPECT_EQ(t.nodes(), topo.numa_nodes());  // every node of this machine has cores
  for (const auto& p : placement) EXPECT_EQ(t.numa_of_node(t.node_of_worker(p.worker)), p.numa_node);
  expect_consistent(t);
  EXPECT_NE(t.summary().find(fmt::format("{} worker", placement.size())), std::string::npos) << t.summary();
}

TEST(PlaceTreeTopology, TwoNodesWithoutL3AreTheirOwnLeaves) {
  const auto t = tree_of("pack:2 numa:1 core:2 pu:1");
  EXPECT_EQ(t.nodes(), 2u);
  EXPECT_EQ(t.leaves(), 2u);
  EXPECT_EQ(t.places(), 3u);
  EXPECT_EQ(per_worker(t, &place_tree::node_of_worker), (V{0, 0, 1, 1}));
  EXPECT_EQ(per_worker(t, &place_tree::leaf_of_worker), (V{0, 0, 1, 1}));
  EXPECT_EQ(t.workers_of_leaf(1), (V{2, 3}));
  for (unsigned k = 0; k < 2; ++k) {
    EXPECT_EQ(t.leaf_place(k), t.node_place(k));
    EXPECT_EQ(t.at(t.node_place(k)).what, kind::node);
    EXPECT_EQ(t.at(t.node_place(k)).parent, place_tree::root);
    EXPECT_TRUE(t.at(t.node_place(k)).children.empty());
  }
  EXPECT_EQ(t.node_of_numa(0), 0u);
  EXPECT_EQ(t.node_of_numa(1), 1u);
  EXPECT_EQ(t.node_of_numa(2), place_tree::no_node);
  EXPECT_EQ(t.summary(), "root -> 2 nodes -> 0 L3 groups -> 4 workers (topology)");
  expect_consistent(t);
}

TEST(PlaceTreeTopology, FourAndEightNodes) {
  for (unsigned nodes : {4u, 8u}) {
    const auto t = tree_of(fmt::format("pack:{} numa:1 core:2 pu:1", nodes));
    ASSERT_EQ(t.nodes(), nodes);
    EXPECT_EQ(t.leaves(), nodes);
    for (unsigned w = 0; w < 2 * nodes; ++w) {
      EXPECT_EQ(t.node_of_worker(w), w / 2);
      EXPECT_EQ(t.leaf_of_worker(w), w / 2);
    }
    for (unsigned k = 0; k < nodes; ++k) {
      EXPECT_EQ(t.numa_of_node(k), k);
      EXPECT_EQ(t.node_of_numa(k), k);
      EXPECT_EQ(t.workers_of_node(k), (V{2 * k, 2 * k + 1}));
    }
    EXPECT_EQ(t.summary(), fmt::format("root -> {} nodes -> 0 L3 groups -> {} workers (topology)", nodes, 2 * nodes));
    expect_consistent(t);
  }
}

TEST(PlaceTreeTopology, TwoL3GroupsPerNodeAreTheLeaves) {
  const auto t = tree_of("pack:4 numa:1 l3:2 core:4 pu:1");
  ASSERT_EQ(t.workers(), 32u);
  EXPECT_EQ(t.nodes(), 4u);
  EXPECT_EQ(t.leaves(), 8u);
  EXPECT_EQ(t.places(), 1u + 4u + 8u);
  for (unsigned w = 0; w < 32; ++w) {
    EXPECT_EQ(t.node_of_worker(w), w / 8) << w;
    EXPECT_EQ(t.leaf_of_worker(w), w / 4) << w;
  }
  for (unsigned k = 0; k < 4; ++k) {
    EXPECT_EQ(t.leaves_of_node(k), (V{2 * k, 2 * k + 1}));
    EXPECT_EQ(t.at(t.node_place(k)).children, (V{t.leaf_place(2 * k), t.leaf_place(2 * k + 1)}));
    EXPECT_TRUE(t.at(t.node_place(k)).workers.empty());
  }
  for (unsigned l = 0; l < 8; ++l) {
    const auto& leaf = t.at(t.leaf_place(l));
    EXPECT_EQ(leaf.what, kind::leaf);
    EXPECT_EQ(leaf.parent, t.node_place(l / 2));
    EXPECT_EQ(leaf.numa_node, l / 2);
    EXPECT_EQ(t.workers_of_leaf(l), (V{4 * l, 4 * l + 1, 4 * l + 2, 4 * l + 3}));
  }
  EXPECT_EQ(t.summary(), "root -> 4 nodes -> 8 L3 groups -> 32 workers (topology)");
  const std::string d = t.describe();
  EXPECT_EQ(d.rfind("place tree: root -> 4 nodes -> 8 L3 groups -> 32 workers (topology)\n", 0), 0u) << d;
  EXPECT_NE(d.find("  node 3 (NUMA 3)\n    L3 group 6: workers 24 25 26 27\n"), std::string::npos) << d;
  expect_consistent(t);
}

TEST(PlaceTreeTopology, SingleNodeAndL3SpanningNodes) {
  const auto one = tree_of("pack:1 core:4 pu:1");
  EXPECT_EQ(one.nodes(), 1u);
  EXPECT_EQ(one.leaves(), 1u);
  EXPECT_EQ(one.leaf_place(0), one.node_place(0));
  EXPECT_EQ(one.workers_of_leaf(0), (V{0, 1, 2, 3}));
  EXPECT_EQ(one.summary(), "root -> 1 node -> 0 L3 groups -> 4 workers (topology)");
  EXPECT_EQ(one.describe(),
            "place tree: root -> 1 node -> 0 L3 groups -> 4 workers (topology)\n"
            "  node 0 (NUMA 0): workers 0 1 2 3\n");
  // One L3 over two nodes: each node has one group, so it is its own leaf.
  const auto shared = tree_of("pack:1 l3:2 numa:2 core:2 pu:1");
  EXPECT_EQ(shared.nodes(), 4u);
  EXPECT_EQ(shared.leaves(), 4u);
  for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(shared.leaf_place(k), shared.node_place(k));
}

TEST(PlaceTreeTopology, NodesWithoutWorkersHaveNoPlace) {
  // Two workers fill node 0's two cores; node 1 gets none.
  const auto t = tree_of("pack:2 numa:1 core:2 pu:1", 2);
  EXPECT_EQ(t.nodes(), 1u);
  EXPECT_EQ(t.node_of_numa(0), 0u);
  EXPECT_EQ(t.node_of_numa(1), place_tree::no_node);
  EXPECT_EQ(t.summary(), "root -> 1 node -> 0 L3 groups -> 2 workers (topology)");
}

cws::hint_home on_node(unsigned n) { return {cws::hint_home::kind::node, n}; }
const cws::hint_home no_home{};
const cws::hint_home spans{cws::hint_home::kind::spans, 0};

TEST(FindPlace, OwnLeafOtherNodeRootAndNoHome) {
  const auto t = tree_of("pack:4 numa:1 l3:2 core:4 pu:1");
  // Worker 0: node 0, leaf 0. Worker 13: node 1, leaf 3.
  EXPECT_EQ(t.find_place(0, no_home), t.leaf_place(0));
  EXPECT_EQ(t.find_place(0, on_node(0)), t.leaf_place(0));
  EXPECT_EQ(t.find_place(0, on_node(2)), t.node_place(2));
  EXPECT_EQ(t.find_place(0, spans), place_tree::root);
  EXPECT_EQ(t.find_place(13, on_node(1)), t.leaf_place(3));
  EXPECT_EQ(t.find_place(13, on_node(0)), t.node_place(0));
  EXPECT_EQ(t.find_place(13, on_node(3)), t.node_place(3));
  EXPECT_EQ(t.find_place(13, no_home), t.leaf_place(3));
  EXPECT_EQ(t.find_place(31, spans), place_tree::root);
  // A node the topology does not have: no home.
  EXPECT_EQ(t.find_place(13, on_node(9)), t.leaf_place(3));
}

TEST(FindPlace, HomeOnANodeWithoutWorkersStaysOnTheOwnLeaf) {
  const auto t = tree_of("pack:2 numa:1 core:2 pu:1", 2);  // node 1 has no workers
  EXPECT_EQ(t.find_place(1, on_node(1)), t.leaf_place(0));
  EXPECT_EQ(t.find_place(1, on_node(0)), t.leaf_place(0));
  EXPECT_EQ(t.find_place(1, spans), place_tree::root);
}

// ---- XML ---------------------------------------------------------------------

// The paper's "hippo" shape: a mem root, `nodes` NUMA places, 2 L3 each, 4 workers per L3.
std::string hippo(unsigned nodes) {
  return fmt::format(
      "<?xml version=\"1.0\"?>\n"
      "<!DOCTYPE HPT SYSTEM \"hpt.dtd\">\n"
      "<HPT version=\"0.1\" info=\"hippo, {} nodes\">\n"
      "  <place num=\"1\" type=\"mem\">\n"
      "    <place num=\"{}\" type=\"cache\" size=\"8M\">\n"
      "      <place num=\"2\" type=\"cache\">\n"
      "        <worker num=\"4\" type=\"cpu\"/>\n"
      "      </place>\n"
      "    </place>\n"
      "  </place>\n"
      "</HPT>\n",
      nodes, nodes);
}

class PlaceTreeXml : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_.file(name);
    cws::test::spit(path, text);
    return path;
  }
  place_tree load(const std::string& text, const std::string& synthetic, unsigned workers) {
    return place_tree::from_xml_file(write("tree.xml", text), cws::topology::synthetic(synthetic), workers);
  }
  // The message of loading `text`, checked to be one line starting "FILE:LINE: "; libxml2 prints nothing.
  std::string error_at(unsigned line, const std::string& text, const std::string& synthetic, unsigned workers) {
    const std::string path = write("bad.xml", text);
    const auto topo = cws::topology::synthetic(synthetic);
    ::testing::internal::CaptureStderr();
    const std::string e = cws::test::error_of([&] { place_tree::from_xml_file(path, topo, workers); });
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    EXPECT_EQ(e.rfind(fmt::format("{}:{}: ", path, line), 0), 0u) << e;
    return e;
  }
  cws::test::scratch_dir dir_{"cws-place-tree"};
};

TEST_F(PlaceTreeXml, HippoFilesEqualTheTopologyTree) {
  for (unsigned nodes : {2u, 4u}) {
    const std::string synthetic = fmt::format("pack:{} numa:1 l3:2 core:4 pu:1", nodes);
    const auto from_file = load(hippo(nodes), synthetic, 8 * nodes);
    const auto from_topo = tree_of(synthetic);
    EXPECT_TRUE(from_file == from_topo) << from_file.describe() << from_topo.describe();
    EXPECT_EQ(from_file.source(), dir_.file("tree.xml"));
    EXPECT_EQ(from_file.summary(), fmt::format("root -> {} nodes -> {} L3 groups -> {} workers ({})", nodes, 2 * nodes,
                                               8 * nodes, dir_.file("tree.xml")));
    EXPECT_EQ(per_worker(from_file, &place_tree::leaf_of_worker), per_worker(from_topo, &place_tree::leaf_of_worker));
    EXPECT_EQ(per_worker(from_file, &place_tree::node_of_worker), per_worker(from_topo, &place_tree::node_of_worker));
    expect_consistent(from_file);
  }
}

TEST_F(PlaceTreeXml, RepeatCountsUnrollLikeWrittenOutCopies) {
  const std::string written_out =
      "<HPT version=\"0.1\"><place type=\"mem\">"
      "<place><place><worker/><worker/></place><place><worker num=\"2\"/></place></place>"
      "<place><place num=\"2\"><worker num=\"1\"/><worker/></place></place>"
      "</place></HPT>";
  const auto a = load(written_out, "pack:2 numa:1 l3:2 core:2 pu:1", 8);
  const auto b = load(hippo(2), "pack:2 numa:1 l3:2 core:4 pu:1", 16);
  const auto c = tree_of("pack:2 numa:1 l3:2 core:2 pu:1");
  EXPECT_TRUE(a == c) << a.describe();
  EXPECT_FALSE(a == b);
  EXPECT_EQ(a.workers_of_leaf(3), (V{6, 7}));
}

TEST_F(PlaceTreeXml, NodesThatAreTheirOwnLeaves) {
  const auto t =
      load("<HPT><place type=\"mem\"><place num=\"4\" type=\"mem\"><worker num=\"2\"/></place></place></HPT>",
           "pack:4 numa:1 core:2 pu:1", 8);
  EXPECT_TRUE(t == tree_of("pack:4 numa:1 core:2 pu:1")) << t.describe();
  EXPECT_EQ(t.leaves(), 4u);
  EXPECT_EQ(per_worker(t, &place_tree::leaf_of_worker), (V{0, 0, 1, 1, 2, 2, 3, 3}));
}

TEST_F(PlaceTreeXml, UnevenNodesAndFewerNodesThanTheTopology) {
  // Three workers on node 0, one on node 1, none on nodes 2 and 3.
  const auto t =
      load("<HPT>\n<place>\n<place><worker num=\"3\"/></place>\n<place><worker/></place>\n</place>\n</HPT>\n",
           "pack:4 numa:1 core:2 pu:1", 4);
  EXPECT_EQ(t.nodes(), 2u);
  EXPECT_EQ(per_worker(t, &place_tree::node_of_worker), (V{0, 0, 0, 1}));
  EXPECT_EQ(t.node_of_numa(1), 1u);
  EXPECT_EQ(t.node_of_numa(2), place_tree::no_node);
  EXPECT_EQ(t.find_place(0, on_node(2)), t.leaf_place(0));
  EXPECT_EQ(t.find_place(0, on_node(1)), t.node_place(1));
  expect_consistent(t);
}

TEST_F(PlaceTreeXml, MalformedXmlNamesTheLineOfTheFirstError) {
  const std::string two = "pack:2 numa:1 core:2 pu:1";
  // The tag opened on line 3 is never closed: the mismatch is found on line 4.
  EXPECT_NE(error_at(4, "<HPT>\n<place>\n<place>\n</HPT>\n", two, 4).find("XML error"), std::string::npos);
  // Cut off inside an element.
  EXPECT_NE(error_at(3, "<HPT>\n<place>\n<place num=\"2\"", two, 4).find("XML error"), std::string::npos);
  EXPECT_NE(error_at(1, "", two, 4).find("XML error"), std::string::npos);
}

TEST_F(PlaceTreeXml, ShapeErrorsNameTheElementsLine) {
  const std::string two = "pack:2 numa:1 core:2 pu:1";
  EXPECT_NE(error_at(2, "<?xml version=\"1.0\"?>\n<hpt><place/></hpt>\n", two, 4).find("root element is <hpt>"),
            std::string::npos);
  // 2 nodes x 4 workers in the file, 4 in the runtime.
  EXPECT_NE(error_at(2,
                     "<?xml version=\"1.0\"?>\n<HPT>\n<place>\n<place num=\"2\">\n<worker num=\"4\"/>\n"
                     "</place>\n</place>\n</HPT>\n",
                     two, 4)
                .find("the file has 8 workers, the runtime has 4"),
            std::string::npos);
  EXPECT_NE(error_at(4,
                     "<HPT>\n<place>\n<place><worker num=\"2\"/></place>\n<place num=\"2\"><worker/></place>\n"
                     "</place>\n</HPT>\n",
                     two, 4)
                .find("more NUMA node places than the topology's 2 NUMA nodes"),
            std::string::npos);
  EXPECT_NE(error_at(5,
                     "<HPT>\n<place>\n<place>\n<place>\n<place><worker/></place>\n</place>\n</place>\n"
                     "</place>\n</HPT>\n",
                     two, 1)
                .find("<place> nested too deep"),
            std::string::npos);
  EXPECT_NE(error_at(3, "<HPT>\n<place>\n<worker num=\"4\"/>\n</place>\n</HPT>\n", two, 4).find("<worker> directly"),
            std::string::npos);
  EXPECT_NE(error_at(3, "<HPT>\n<place>\n<place num=\"0\"><worker num=\"4\"/></place>\n</place>\n</HPT>\n", two, 4)
                .find("<place> num=\"0\""),
            std::string::npos);
  EXPECT_NE(error_at(4, "<HPT>\n<place>\n<place>\n<worker num=\"x\"/></place>\n</place>\n</HPT>\n", two, 4)
                .find("<worker> num=\"x\""),
            std::string::npos);
  EXPECT_NE(
      error_at(3, "<HPT>\n<place>\n<place><worker num=\"-1\"/></place>\n</place>\n</HPT>\n", two, 4).find("num=\"-1\""),
      std::string::npos);
  EXPECT_NE(error_at(3, "<HPT>\n<place>\n<place><cpu/></place>\n</place>\n</HPT>\n", two, 4).find("unexpected <cpu>"),
            std::string::npos);
  EXPECT_NE(error_at(3, "<HPT>\n<place>\n<place/>\n</place>\n</HPT>\n", two, 4).find("holds no workers"),
            std::string::npos);
  EXPECT_NE(error_at(1, "<HPT/>", two, 4).find("<HPT> holds no <place>"), std::string::npos);
}

TEST_F(PlaceTreeXml, UnreadableFile) {
  const auto topo = cws::topology::synthetic("pack:2 numa:1 core:2 pu:1");
  const std::string missing = dir_.file("missing.xml");
  EXPECT_EQ(cws::test::error_of([&] { place_tree::from_xml_file(missing, topo, 4); }),
            missing + ": cannot read (No such file or directory)");
  const std::string directory = dir_.file("");
  EXPECT_EQ(cws::test::error_of([&] { place_tree::from_xml_file(directory, topo, 4); }),
            directory + ": cannot read (Is a directory)");
}

TEST_F(PlaceTreeXml, RuntimeUsesTheConfiguredFile) {
  // An uneven split the topology would never produce: 3 workers on node 0, 1 on node 1.
  const std::string path =
      write("runtime.xml", "<HPT><place><place><worker num=\"3\"/></place><place><worker/></place></place></HPT>");
  auto cfg = cws::test::config(4, cws::test::four_cores);
  cfg.hpt_file = path;
  cws::runtime rt(cfg);
  EXPECT_EQ(rt.places().source(), path);
  EXPECT_EQ(rt.places().workers_of_node(0), (V{0, 1, 2}));
  EXPECT_NE(rt.describe().find(rt.places().describe()), std::string::npos) << rt.describe();
  EXPECT_NE(rt.describe().find(fmt::format("-> 4 workers ({})", path)), std::string::npos);
  std::uint64_t result = 0;
  rt.run([&] { result = cws::test::fib(12); });
  EXPECT_EQ(result, cws::test::serial_fib(12));

  // Without the file: the topology's tree. With a wrong one: the loader's error.
  cws::runtime plain(cws::test::config(4, cws::test::four_cores));
  EXPECT_EQ(plain.places().source(), "topology");
  EXPECT_EQ(plain.places().workers_of_node(0), (V{0, 1}));
  cfg.workers = 2;
  EXPECT_EQ(cws::test::error_of([&] { cws::runtime bad(cfg); }),
            path + ":1: the file has 4 workers, the runtime has 2");
}

}  // namespace
