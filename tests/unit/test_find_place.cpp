// PufferFish's find_place in cws: the home of hinted data (home_of, for one
// hint and for several) and the place a spawn goes to from it
// (place_tree::find_place), with exact answers on synthetic 2-, 4- and
// 8-node topologies.
//
// Arrays here are mapped but never touched: home_of reads the placement, not
// the pages, so even the paper's 2^22-double example costs nothing.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "cws/hint.hpp"
#include "cws/numa.hpp"
#include "cws/place_tree.hpp"
#include "cws/runtime.hpp"
#include "cws/topology.hpp"
#include "support/runtime_fixture.hpp"
#include "support/synthetic_nodes.hpp"

namespace numa = cws::numa;
using cws::hint;
using cws::hint_home;
using cws::home_of;
using cws::touch_hint;

namespace {

using namespace cws::test::synthetic_nodes;

numa::array<double> doubles(std::size_t n, numa::placement p, unsigned node_count) {
  return numa::allocate<double>(n, p, nodes(node_count));
}

// Elements [first page, first page + count pages) of a.
touch_hint page_range(const numa::array<double>& a, std::size_t first, std::size_t count) {
  return hint(a, first * pp, (first + count) * pp);
}

hint_home home(std::initializer_list<touch_hint> hints, unsigned own) {
  const std::vector<touch_hint> v(hints);
  return home_of(v, own);
}

// ---- one hint ------------------------------------------------------------------

// Research note 6.9: 2^22 doubles block-cyclic on 4 nodes, 2^20 per node.
TEST(HomeOf, PaperExampleBlockCyclic) {
  const std::size_t per_node = std::size_t{1} << 20;
  auto a = doubles(4 * per_node, numa::block_cyclic, 4);
  ASSERT_EQ(a.memory()->block_pages() * pp, per_node);
  for (unsigned b = 0; b < 4; ++b) EXPECT_EQ(home_of(hint(a, b * per_node, (b + 1) * per_node)), on(b)) << b;
  EXPECT_EQ(home_of(hint(a, per_node - 1, per_node + 1)), spans);
  EXPECT_EQ(home_of(hint(a, per_node - 1, per_node)), on(0));
  EXPECT_EQ(home_of(hint(a, per_node, per_node + 1)), on(1));
  EXPECT_EQ(home_of(hint(a, 0, a.size())), spans);
}

// Blocks of 3 pages: the last element of block b is on b, one more element spans.
TEST(HomeOf, BlockCyclicBoundariesOnTwoFourEightNodes) {
  for (unsigned n : {2u, 4u, 8u}) {
    auto a = doubles(3 * n * pp, numa::block_cyclic, n);
    ASSERT_EQ(a.memory()->block_pages(), 3u);
    const std::size_t block = 3 * pp;
    for (unsigned b = 0; b < n; ++b) {
      const std::size_t lo = b * block, hi = lo + block;
      EXPECT_EQ(home_of(hint(a, lo, hi)), on(b)) << n << " nodes, block " << b;
      EXPECT_EQ(home_of(hint(a, lo, lo + 1)), on(b));
      EXPECT_EQ(home_of(hint(a, hi - 1, hi)), on(b));
      EXPECT_EQ(home_of(hint(a, lo + pp - 1, lo + pp + 1)), on(b)) << "a page boundary inside a block";
      if (b + 1 < n) {
        EXPECT_EQ(home_of(hint(a, lo, hi + 1)), spans) << n << " nodes, block " << b;
        EXPECT_EQ(home_of(hint(a, hi - 1, hi + 1)), spans);
      }
      if (b > 0) {
        EXPECT_EQ(home_of(hint(a, lo - 1, hi)), spans);
      }
    }
  }
}

// Page counts that are not a multiple of the node count: blocks of
// ceil(pages / N) pages, the last block shorter, and no node past the last block.
TEST(HomeOf, BlockCyclicRemainders) {
  {  // 4 nodes, 10 pages (the last one partial): blocks of 3, node 3 holds page 9 only
    auto a = doubles(9 * pp + 7, numa::block_cyclic, 4);
    ASSERT_EQ(a.memory()->pages(), 10u);
    ASSERT_EQ(a.memory()->block_pages(), 3u);
    EXPECT_EQ(home_of(hint(a, 6 * pp, 9 * pp)), on(2));
    EXPECT_EQ(home_of(hint(a, 9 * pp, a.size())), on(3));
    EXPECT_EQ(home_of(hint(a, a.size() - 1, a.size())), on(3));
    EXPECT_EQ(home_of(hint(a, 9 * pp - 1, 9 * pp + 1)), spans);
    EXPECT_EQ(home_of(hint(a, 6 * pp, a.size())), spans);
  }
  {  // 4 nodes, 5 pages: blocks of 2 on nodes 0, 0, 1, 1, 2; node 3 gets nothing
    auto a = doubles(5 * pp, numa::block_cyclic, 4);
    ASSERT_EQ(a.memory()->block_pages(), 2u);
    EXPECT_EQ(home_of(hint(a, 0, 2 * pp)), on(0));
    EXPECT_EQ(home_of(hint(a, 2 * pp, 4 * pp)), on(1));
    EXPECT_EQ(home_of(hint(a, 4 * pp, 5 * pp)), on(2));
    EXPECT_EQ(home_of(hint(a, a.size() - 1, a.size())), on(2));
    EXPECT_EQ(home_of(hint(a, 4 * pp - 1, 4 * pp + 1)), spans);
  }
  {  // 8 nodes, 3 pages: one page per block, nodes 0, 1, 2
    auto a = doubles(3 * pp, numa::block_cyclic, 8);
    for (unsigned p = 0; p < 3; ++p) EXPECT_EQ(home_of(page_range(a, p, 1)), on(p)) << p;
  }
  {  // 2 nodes, 7 pages: blocks of 4, the second block 3 pages
    auto a = doubles(7 * pp, numa::block_cyclic, 2);
    EXPECT_EQ(home_of(hint(a, 0, 4 * pp)), on(0));
    EXPECT_EQ(home_of(hint(a, 4 * pp, 7 * pp)), on(1));
    EXPECT_EQ(home_of(hint(a, 4 * pp - 1, 4 * pp)), on(0));
    EXPECT_EQ(home_of(hint(a, 4 * pp - 1, 4 * pp + 1)), spans);
  }
  {  // less than a page on 4 nodes: one page, on node 0
    auto a = doubles(10, numa::block_cyclic, 4);
    EXPECT_EQ(home_of(hint(a, 0, 10)), on(0));
  }
}

// Page p on node p % N: a hint within one page has a home, two pages or more span,
// including N + 1 pages, whose first and last page are on the same node.
TEST(HomeOf, InterleavedSinglePageVsSeveral) {
  for (unsigned n : {2u, 4u, 8u}) {
    auto a = doubles(12 * pp, numa::interleaved, n);
    for (unsigned p = 0; p < 12; ++p) {
      EXPECT_EQ(home_of(page_range(a, p, 1)), on(p % n)) << n << " nodes, page " << p;
      EXPECT_EQ(home_of(hint(a, p * pp + 3, p * pp + 9)), on(p % n));
      if (p + 1 < 12) {
        EXPECT_EQ(home_of(page_range(a, p, 2)), spans) << n << " nodes, pages " << p << "-" << p + 1;
        EXPECT_EQ(home_of(hint(a, (p + 1) * pp - 1, (p + 1) * pp + 1)), spans);
      }
      if (p + n < 12) {
        EXPECT_EQ(home_of(page_range(a, p, n + 1)), spans) << n << " nodes, " << n + 1 << " pages";
      }
    }
  }
}

TEST(HomeOf, InterleavedOnOneNodeIsThatNode) {
  const cws::topology one = cws::topology::synthetic("pack:1 numa:1 core:1 pu:1");
  auto a = numa::allocate<double>(5 * pp, numa::interleaved, one);
  EXPECT_EQ(home_of(hint(a, 0, a.size())), on(0));
}

TEST(HomeOf, OnNodeIsThatNodeForAnyRange) {
  for (unsigned n : {2u, 4u, 8u})
    for (unsigned v = 0; v < n; ++v) {
      auto a = doubles(3 * pp + 5, numa::on_node(v), n);
      EXPECT_EQ(home_of(hint(a, 0, a.size())), on(v)) << n << " nodes, node " << v;
      EXPECT_EQ(home_of(hint(a, pp - 1, pp + 1)), on(v));
      EXPECT_EQ(home_of(hint(a, a.size() - 1, a.size())), on(v));
    }
}

TEST(HomeOf, FirstTouchUnregisteredAndEmptyHaveNone) {
  auto ft = doubles(4 * pp, numa::first_touch, 4);
  EXPECT_EQ(home_of(hint(ft, 0, 1)), none);
  EXPECT_EQ(home_of(hint(ft, 0, ft.size())), none);

  std::vector<double> plain(64);
  EXPECT_EQ(home_of(touch_hint{plain.data(), 64 * sizeof(double), nullptr}), none);
  auto a = doubles(4 * pp, numa::on_node(1), 4);
  EXPECT_EQ(home_of(touch_hint{plain.data(), 8, a.memory()}), none) << "a range outside the region it names";
  EXPECT_EQ(home_of(touch_hint{}), none);

  EXPECT_EQ(home_of(hint(a, 5, 5)), none);
  EXPECT_EQ(home_of(hint(a, 7, 3)), none);
  EXPECT_EQ(home_of(hint(a, a.size() + 1, a.size() + 9)), none);
  numa::array<double> empty = doubles(0, numa::on_node(1), 4);
  EXPECT_EQ(home_of(hint(empty, 0, 10)), none);
}

TEST(HomeOf, HintsAreClampedToTheArray) {
  auto a = doubles(9 * pp + 7, numa::block_cyclic, 4);  // last block: page 9 on node 3
  const touch_hint tail = hint(a, a.size() - 1, a.size() + 100);
  EXPECT_EQ(tail.bytes, sizeof(double));
  EXPECT_EQ(home_of(tail), on(3));
  EXPECT_EQ(home_of(hint(a, 9 * pp, SIZE_MAX)), on(3));
  EXPECT_EQ(home_of(hint(a, 6 * pp, SIZE_MAX)), spans);
  // A hand-made hint running past the region ends at its last byte.
  EXPECT_EQ(home_of(touch_hint{a.data() + 9 * pp, 1u << 30, a.memory()}), on(3));
}

// ---- several hints ---------------------------------------------------------------

class HomeOfHints : public ::testing::Test {
 protected:
  // 4 nodes, 8 pages per block.
  numa::array<double> a = doubles(32 * pp, numa::block_cyclic, 4);
  touch_hint pages_on(unsigned node, std::size_t count) { return page_range(a, node * 8, count); }
  touch_hint spanning(unsigned from_node) { return page_range(a, from_node * 8 + 7, 2); }
};

TEST_F(HomeOfHints, NoneEmptyAndOne) {
  EXPECT_EQ(home_of(std::span<const touch_hint>{}, 0), none);
  auto ft = doubles(pp, numa::first_touch, 4);
  EXPECT_EQ(home({hint(ft, 0, 1), hint(a, 3, 3)}, 2), none);
  EXPECT_EQ(home({spanning(1)}, 0), spans);
  EXPECT_EQ(home({pages_on(2, 1)}, 0), on(2));
}

TEST_F(HomeOfHints, MoreThanHalfSpanningSpans) {
  EXPECT_EQ(home({spanning(0), spanning(1), pages_on(3, 8)}, 3), spans) << "2 of 3";
  EXPECT_EQ(home({spanning(0), spanning(1), spanning(2), pages_on(3, 1), pages_on(3, 1)}, 3), spans) << "3 of 5";
  EXPECT_EQ(home({spanning(0), pages_on(3, 1)}, 0), on(3)) << "1 of 2 is not more than half";
  EXPECT_EQ(home({spanning(0), spanning(1), pages_on(2, 1), pages_on(3, 2)}, 0), on(3)) << "2 of 4";
  // Hints without a home do not count: 1 spanning of 1 homed.
  auto ft = doubles(pp, numa::first_touch, 4);
  EXPECT_EQ(home({spanning(0), hint(ft, 0, 1), hint(a, 0, 0)}, 0), spans);
  EXPECT_EQ(home({hint(ft, 0, 1), pages_on(1, 1), hint(ft, 0, 1)}, 0), on(1));
}

TEST_F(HomeOfHints, PageCountsPickTheNode) {
  // Node 2's two hints hold 4 pages, more than node 1's single larger hint.
  EXPECT_EQ(home({pages_on(1, 3), pages_on(2, 2), page_range(a, 18, 2)}, 1), on(2));
  // Spanning hints' pages are not counted.
  EXPECT_EQ(home({page_range(a, 7, 9), pages_on(2, 1), pages_on(2, 1)}, 1), on(2));
  // Partial pages count whole: two elements across a page boundary are 2 pages.
  EXPECT_EQ(home({hint(a, 8 * pp + pp - 1, 8 * pp + pp + 1), pages_on(3, 1)}, 3), on(1));
  // Hints on other placements count the same way.
  auto v = doubles(5 * pp, numa::on_node(0), 4);
  EXPECT_EQ(home({hint(v, 0, v.size()), pages_on(1, 4)}, 1), on(0));
  auto il = doubles(8 * pp, numa::interleaved, 4);
  EXPECT_EQ(home({page_range(il, 6, 1), pages_on(3, 1), page_range(il, 2, 1)}, 3), on(2));
}

TEST_F(HomeOfHints, TiesGoToTheOwnNodeThenTheLowest) {
  for (bool reversed : {false, true}) {
    const touch_hint one = pages_on(1, 2), three = pages_on(3, 2);
    auto tie = [&](unsigned own) { return reversed ? home({three, one}, own) : home({one, three}, own); };
    EXPECT_EQ(tie(3), on(3)) << "reversed " << reversed;
    EXPECT_EQ(tie(1), on(1));
    EXPECT_EQ(tie(0), on(1));
    EXPECT_EQ(tie(2), on(1));
  }
  // A one-element hint is one page: ties with a full page.
  EXPECT_EQ(home({pages_on(2, 1), hint(a, 24 * pp + 5, 24 * pp + 6)}, 3), on(3));
  EXPECT_EQ(home({pages_on(2, 1), hint(a, 24 * pp + 5, 24 * pp + 6)}, 0), on(2));
  // Three-way tie, own in the middle.
  EXPECT_EQ(home({pages_on(3, 1), pages_on(0, 1), pages_on(2, 1)}, 2), on(2));
  EXPECT_EQ(home({pages_on(3, 1), pages_on(2, 1), pages_on(0, 1)}, 1), on(0));
  // The own node loses when it holds fewer pages.
  EXPECT_EQ(home({pages_on(3, 1), pages_on(0, 2)}, 3), on(0));
}

// ---- find_place ----------------------------------------------------------------

void expect_own_leaf(const cws::place_tree& t, unsigned w, unsigned id) {
  const auto& p = t.at(id);
  EXPECT_TRUE(p.what == cws::place_tree::kind::leaf || (p.what == cws::place_tree::kind::node && p.children.empty()));
  EXPECT_NE(std::find(p.workers.begin(), p.workers.end(), w), p.workers.end()) << "worker " << w << ", place " << id;
}

void expect_node_place(const cws::place_tree& t, unsigned numa, unsigned id) {
  EXPECT_EQ(t.at(id).what, cws::place_tree::kind::node) << "place " << id;
  EXPECT_EQ(t.at(id).numa_node, numa) << "place " << id;
}

// From a worker on every node, to every home: the own node goes to the
// worker's own leaf (on_node arrays too: cws treats the own node as local),
// another node to that node's place, spanning data to the root.
TEST(FindPlace, EveryNodeToEveryHome) {
  for (unsigned n : {2u, 4u, 8u}) {
    cws::runtime rt(cws::test::config(n, "pack:" + std::to_string(n) + " numa:1 core:1 pu:1"));
    const cws::place_tree& t = rt.places();
    ASSERT_EQ(t.nodes(), n);
    for (unsigned w = 0; w < n; ++w) {
      const unsigned own = rt.placement()[w].numa_node;
      EXPECT_EQ(own, w);
      EXPECT_EQ(t.find_place(w, spans), cws::place_tree::root);
      expect_own_leaf(t, w, t.find_place(w, none));
      for (unsigned m = 0; m < n; ++m) {
        const unsigned id = t.find_place(w, on(m));
        if (m == own)
          expect_own_leaf(t, w, id);
        else
          expect_node_place(t, m, id);
      }
      auto local = numa::allocate<double>(pp, numa::on_node(own), rt.topology());
      expect_own_leaf(t, w, t.find_place(w, home_of(hint(local, 0, pp))));
    }
  }
}

// The 6.9 cases on a 4-node runtime: [0, 2^20) from a node-0 worker stays on
// its leaf, from a node-2 worker goes to node 0's place, a range across the
// first boundary goes to the root.
TEST(FindPlace, PaperExample) {
  cws::runtime rt(cws::test::config(4, "pack:4 numa:1 core:1 pu:1"));
  const cws::place_tree& t = rt.places();
  const std::size_t per_node = std::size_t{1} << 20;
  auto a = numa::allocate<double>(4 * per_node, numa::block_cyclic, rt.topology());
  const hint_home first = home_of(hint(a, 0, per_node));
  ASSERT_EQ(first, on(0));
  expect_own_leaf(t, 0, t.find_place(0, first));
  expect_node_place(t, 0, t.find_place(2, first));
  EXPECT_EQ(t.find_place(2, first), t.node_place(t.node_of_numa(0)));
  for (unsigned w = 0; w < 4; ++w)
    EXPECT_EQ(t.find_place(w, home_of(hint(a, per_node - 1, per_node + 1))), cws::place_tree::root);
  auto il = numa::allocate<double>(8 * pp, numa::interleaved, rt.topology());
  for (unsigned p = 0; p < 8; ++p) {
    const unsigned id = t.find_place(1, home_of(page_range(il, p, 1)));
    if (p % 4 == 1)
      expect_own_leaf(t, 1, id);
    else
      expect_node_place(t, p % 4, id);
  }
}

// Two L3 groups per node: the own node goes to the worker's own L3 leaf, not
// its sibling's, and another node to the node place above its leaves.
TEST(FindPlace, OwnLeafInsideATwoLeafNode) {
  cws::runtime rt(cws::test::config(4, "pack:2 numa:1 l3:2 core:1 pu:1"));
  const cws::place_tree& t = rt.places();
  ASSERT_EQ(t.nodes(), 2u);
  ASSERT_EQ(t.leaves(), 4u);
  for (unsigned w = 0; w < 4; ++w) {
    const unsigned own = rt.placement()[w].numa_node;
    const unsigned id = t.find_place(w, on(own));
    EXPECT_EQ(t.at(id).what, cws::place_tree::kind::leaf);
    EXPECT_EQ(t.at(id).workers, std::vector<unsigned>{w});
    const unsigned other = t.find_place(w, on(1 - own));
    expect_node_place(t, 1 - own, other);
    EXPECT_EQ(t.at(other).children.size(), 2u);
  }
}

// A home on a node where no worker runs stays on the spawner's own leaf.
TEST(FindPlace, NodeWithoutWorkersStaysLocal) {
  cws::runtime rt(cws::test::config(2, "pack:4 numa:1 core:1 pu:1"));
  const cws::place_tree& t = rt.places();
  ASSERT_EQ(t.nodes(), 2u);
  EXPECT_EQ(t.node_of_numa(3), cws::place_tree::no_node);
  for (unsigned w = 0; w < 2; ++w) {
    expect_own_leaf(t, w, t.find_place(w, on(3)));
    expect_own_leaf(t, w, t.find_place(w, on(2)));
    expect_node_place(t, 1 - w, t.find_place(w, on(1 - w)));
  }
}

}  // namespace
