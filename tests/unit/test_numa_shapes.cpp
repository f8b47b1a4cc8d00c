// numa_shapes.hpp: 2D and 3D placed arrays, their row and plane hints, and
// the `local` placement.
//
// The central check is exhaustive on small shapes: for every element, every
// placement and 2, 4 and 8 synthetic nodes, node_of(i, j[, k]) equals both
// the page arithmetic of the placement and home_of(a hint of that single
// element), so a task hinted with one element goes where node_of says.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cws/error.hpp"
#include "cws/hint.hpp"
#include "cws/numa.hpp"
#include "cws/numa_shapes.hpp"
#include "cws/runtime.hpp"
#include "cws/spawn.hpp"
#include "cws/topology.hpp"
#include "support/error_of.hpp"
#include "support/runtime_fixture.hpp"
#include "support/synthetic_nodes.hpp"

namespace numa = cws::numa;
using cws::hint_home;
using cws::home_of;
using cws::test::error_of;

namespace {

using namespace cws::test::synthetic_nodes;

struct pair16 {
  double a, b;
};
struct triple24 {
  double a, b, c;
};
static_assert(numa::page_aligned_element<char> && numa::page_aligned_element<pair16>);
static_assert(!numa::page_aligned_element<triple24>, "a 24-byte element can straddle two pages");

std::vector<numa::placement> placements(unsigned n) {
  return {numa::first_touch, numa::on_node(0),   numa::on_node(n - 1),
          numa::interleaved, numa::block_cyclic, numa::local};
}

// The node the placement gives element `index` of a T array with `count`
// elements, from the page arithmetic alone; -1 for first touch.
template <class T>
int expected_node(const numa::region& r, std::size_t index, std::size_t count) {
  const std::size_t pages = (count * sizeof(T) + page - 1) / page, p = index * sizeof(T) / page;
  const unsigned n = r.nodes();
  switch (r.where().kind) {
    case numa::placement_kind::on_node:
      return static_cast<int>(r.where().node);
    case numa::placement_kind::interleaved:
      return static_cast<int>(p % n);
    case numa::placement_kind::block_cyclic:
      return static_cast<int>(p / ((pages + n - 1) / n));
    default:
      return -1;
  }
}

// node_of(element) against the page arithmetic and the home of a one-element hint.
template <class T, class Shape, class Index>
void expect_node_of_is_home(const Shape& a, std::size_t index, int node, Index where) {
  const numa::region& r = *a.flat().memory();
  ASSERT_EQ(node, expected_node<T>(r, index, a.size())) << where() << " " << numa::to_string(r.where());
  ASSERT_LT(node, static_cast<int>(r.nodes()));
  const hint_home h = home_of(cws::hint(a.flat(), index, index + 1));
  ASSERT_EQ(h, node < 0 ? none : on(static_cast<unsigned>(node))) << where() << " " << numa::to_string(r.where());
}

template <class T>
void exhaustive_2d(std::size_t rows, std::size_t cols) {
  for (unsigned n : {2u, 4u, 8u})
    for (numa::placement p : placements(n)) {
      auto a = numa::allocate2d<T>(rows, cols, p, nodes(n));
      ASSERT_EQ(a.size(), rows * cols);
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
          ASSERT_EQ(&a(i, j), a.data() + i * cols + j);
          expect_node_of_is_home<T>(a, a.index(i, j), a.node_of(i, j), [&] {
            return std::to_string(n) + " nodes, (" + std::to_string(i) + ", " + std::to_string(j) + ")";
          });
          if (::testing::Test::HasFatalFailure()) return;
        }
    }
}

template <class T>
void exhaustive_3d(std::size_t nx, std::size_t ny, std::size_t nz) {
  for (unsigned n : {2u, 4u, 8u})
    for (numa::placement p : placements(n)) {
      auto a = numa::allocate3d<T>(nx, ny, nz, p, nodes(n));
      ASSERT_EQ(a.size(), nx * ny * nz);
      for (std::size_t i = 0; i < nx; ++i)
        for (std::size_t j = 0; j < ny; ++j)
          for (std::size_t k = 0; k < nz; ++k) {
            ASSERT_EQ(&a(i, j, k), a.data() + (i * ny + j) * nz + k);
            expect_node_of_is_home<T>(a, a.index(i, j, k), a.node_of(i, j, k), [&] {
              return std::to_string(n) + " nodes, (" + std::to_string(i) + ", " + std::to_string(j) + ", " +
                     std::to_string(k) + ")";
            });
            if (::testing::Test::HasFatalFailure()) return;
          }
    }
}

// Shapes of about 4 to 15 pages whose page counts are mostly not multiples
// of the node count (shorter last blocks) and whose rows end mid-page.
template <class T>
void exhaustive_shapes() {
  const std::size_t e = page / sizeof(T);  // elements per page
  exhaustive_2d<T>(7, e * 3 / 5 + 1);
  exhaustive_2d<T>(11, e + e / 3 + 1);
  exhaustive_2d<T>(1, 3);
  exhaustive_3d<T>(5, 3, e / 2 + 1);
  exhaustive_3d<T>(9, 2, e / 3 + 5);
}

TEST(NumaShapes, NodeOfIsTheHomeOfEveryElementChar) { exhaustive_shapes<char>(); }
TEST(NumaShapes, NodeOfIsTheHomeOfEveryElementFloat) { exhaustive_shapes<float>(); }
TEST(NumaShapes, NodeOfIsTheHomeOfEveryElementDouble) { exhaustive_shapes<double>(); }
TEST(NumaShapes, NodeOfIsTheHomeOfEveryElementPair16) { exhaustive_shapes<pair16>(); }

// ---- row and plane hints -------------------------------------------------------

// Rows of 1.5 pages on 4 nodes, 15 pages in blocks of 4: a row range has a
// home exactly when its first and last element share a node.
TEST(NumaShapes, HintRowsBlockCyclic) {
  auto a = numa::allocate2d<double>(10, pp * 3 / 2, numa::block_cyclic, nodes(4));
  ASSERT_EQ(a.flat().memory()->block_pages(), 4u);
  EXPECT_EQ(home_of(a.hint_rows(0, 2)), on(0));   // pages [0, 3)
  EXPECT_EQ(home_of(a.hint_rows(2, 3)), spans);   // pages [3, 4.5): crosses into block 1
  EXPECT_EQ(home_of(a.hint_rows(3, 5)), on(1));   // pages [4.5, 7.5)
  EXPECT_EQ(home_of(a.hint_rows(8, 10)), on(3));  // pages [12, 15)
  EXPECT_EQ(home_of(a.hint_rows(0, 10)), spans);
  for (std::size_t r0 = 0; r0 < a.rows(); ++r0)
    for (std::size_t r1 = r0 + 1; r1 <= a.rows(); ++r1) {
      const int first = a.node_of(r0, 0), last = a.node_of(r1 - 1, a.cols() - 1);
      EXPECT_EQ(home_of(a.hint_rows(r0, r1)), first == last ? on(static_cast<unsigned>(first)) : spans)
          << "rows " << r0 << "-" << r1;
    }
}

// A row is one page: page r on node r % N, two rows span.
TEST(NumaShapes, HintRowsInterleaved) {
  for (unsigned n : {2u, 4u, 8u}) {
    auto a = numa::allocate2d<double>(12, pp, numa::interleaved, nodes(n));
    for (std::size_t r = 0; r < 12; ++r) {
      EXPECT_EQ(home_of(a.hint_rows(r, r + 1)), on(r % n)) << n << " nodes, row " << r;
      if (r + 1 < 12) {
        EXPECT_EQ(home_of(a.hint_rows(r, r + 2)), spans);
      }
    }
  }
}

TEST(NumaShapes, HintRowsOnNodeFirstTouchAndClamping) {
  auto v = numa::allocate2d<double>(10, pp / 2, numa::on_node(3), nodes(4));
  EXPECT_EQ(home_of(v.hint_rows(0, 10)), on(3));
  auto ft = numa::allocate2d<double>(10, pp / 2, numa::first_touch, nodes(4));
  EXPECT_EQ(home_of(ft.hint_rows(0, 1)), none);

  auto a = numa::allocate2d<double>(10, 7, numa::block_cyclic, nodes(4));
  const cws::touch_hint h = a.hint_rows(3, 6);
  EXPECT_EQ(h.begin, &a(3, 0));
  EXPECT_EQ(h.bytes, 3 * 7 * sizeof(double));
  EXPECT_EQ(h.region, a.flat().memory());
  const cws::touch_hint clamped = a.hint_rows(8, 100);
  EXPECT_EQ(clamped.begin, &a(8, 0));
  EXPECT_EQ(clamped.bytes, 2 * 7 * sizeof(double));
  EXPECT_EQ(a.hint_rows(8, SIZE_MAX).bytes, clamped.bytes);
  EXPECT_EQ(home_of(a.hint_rows(5, 5)), none);
  EXPECT_EQ(home_of(a.hint_rows(7, 3)), none);
  EXPECT_EQ(home_of(a.hint_rows(20, 30)), none);
}

// A plane is one page: 8 planes on 4 nodes in blocks of 2.
TEST(NumaShapes, HintPlanes) {
  auto a = numa::allocate3d<double>(8, 4, pp / 4, numa::block_cyclic, nodes(4));
  EXPECT_EQ(home_of(a.hint_planes(0, 2)), on(0));
  EXPECT_EQ(home_of(a.hint_planes(1, 3)), spans);
  EXPECT_EQ(home_of(a.hint_planes(6, 8)), on(3));
  EXPECT_EQ(home_of(a.hint_planes(5, 6)), on(2));
  EXPECT_EQ(home_of(a.hint_planes(6, 100)), on(3));
  EXPECT_EQ(home_of(a.hint_planes(4, 4)), none);
  EXPECT_EQ(a.hint_planes(2, 3).begin, &a(2, 0, 0));
  EXPECT_EQ(a.hint_planes(2, 3).bytes, page);

  auto il = numa::allocate3d<double>(8, 4, pp / 4, numa::interleaved, nodes(4));
  for (std::size_t p = 0; p < 8; ++p) EXPECT_EQ(home_of(il.hint_planes(p, p + 1)), on(p % 4)) << p;
  EXPECT_EQ(home_of(il.hint_planes(0, 2)), spans);

  // Planes of 1.5 pages (9 pages, blocks of 3): a plane range has a home exactly when its ends share a node.
  auto b = numa::allocate3d<double>(6, 3, pp / 2, numa::block_cyclic, nodes(4));
  ASSERT_EQ(b.flat().memory()->block_pages(), 3u);
  EXPECT_EQ(home_of(b.hint_planes(0, 2)), on(0));
  EXPECT_EQ(home_of(b.hint_planes(2, 3)), on(1));
  EXPECT_EQ(home_of(b.hint_planes(1, 3)), spans);
  for (std::size_t p0 = 0; p0 < b.nx(); ++p0)
    for (std::size_t p1 = p0 + 1; p1 <= b.nx(); ++p1) {
      const int first = b.node_of(p0, 0, 0), last = b.node_of(p1 - 1, b.ny() - 1, b.nz() - 1);
      EXPECT_EQ(home_of(b.hint_planes(p0, p1)), first == last ? on(static_cast<unsigned>(first)) : spans);
    }
}

// ---- layout and ownership ------------------------------------------------------

TEST(NumaShapes, RowMajorLayoutThroughFlatAndRows) {
  auto a = numa::allocate2d<int>(3, 5, numa::interleaved, nodes(2));
  EXPECT_EQ(a.rows(), 3u);
  EXPECT_EQ(a.cols(), 5u);
  EXPECT_EQ(a.data(), a.flat().data());
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 5; ++j) a(i, j) = static_cast<int>(10 * i + j);
  EXPECT_EQ(a.flat()[7], 12);
  EXPECT_EQ(a.row(2)[4], 24);
  EXPECT_EQ(a.row(1).size(), 5u);

  auto v = numa::allocate3d<int>(2, 3, 4, numa::on_node(1), nodes(2));
  EXPECT_EQ(v.size(), 24u);
  v(1, 2, 3) = 7;
  EXPECT_EQ(v.flat()[(1 * 3 + 2) * 4 + 3], 7);
  EXPECT_EQ(v.node_of(1, 2, 3), 1);
}

TEST(NumaShapes, MovesLeaveTheSourceEmpty) {
  auto a = numa::allocate2d<double>(4, 4, numa::on_node(1), nodes(2));
  const double* data = a.data();
  numa::array2d<double> b = std::move(a);
  EXPECT_EQ(b.data(), data);
  EXPECT_EQ(b.rows(), 4u);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_EQ(a.rows(), 0u);
  EXPECT_EQ(home_of(a.hint_rows(0, 4)), none);

  auto v = numa::allocate3d<double>(2, 2, 2, numa::on_node(1), nodes(2));
  numa::array3d<double> w;
  w = std::move(v);
  EXPECT_EQ(w.nx(), 2u);
  EXPECT_EQ(v.nx(), 0u);  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(v.empty());
}

TEST(NumaShapes, ZeroExtentsOverflowAndMismatchedShapes) {
  EXPECT_TRUE(numa::allocate2d<double>(0, 5, numa::block_cyclic, nodes(4)).empty());
  EXPECT_TRUE(numa::allocate3d<double>(3, 0, 2, numa::block_cyclic, nodes(4)).empty());
  EXPECT_NE(
      error_of([] { (void)numa::allocate2d<double>(SIZE_MAX / 2, 3, numa::interleaved, nodes(2)); }).find("overflow"),
      std::string::npos);
  EXPECT_NE(error_of([] {
              (void)numa::allocate3d<double>(2, SIZE_MAX / 4, 3, numa::interleaved, nodes(2));
            }).find("overflow"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              numa::array2d<double> a(numa::allocate<double>(10, numa::first_touch, nodes(2)), 3, 4);
            }).find("has 10 elements but the shape needs 12"),
            std::string::npos);
}

TEST(NumaShapes, PrefaultKeepsTheZeros) {
  auto a = numa::allocate2d<double>(4, pp / 2, numa::block_cyclic, nodes(2));
  numa::prefault_zero(a);
  EXPECT_EQ(a(3, pp / 2 - 1), 0.0);
}

// ---- numa::local ---------------------------------------------------------------

TEST(NumaLocal, NameAndResolutionOutsideAPhase) {
  EXPECT_EQ(numa::to_string(numa::local), "local");
  // A synthetic topology's nodes have no real CPUs: node 0, where the caller runs a phase as worker 0.
  auto a = numa::allocate<double>(10, numa::local, nodes(4));
  EXPECT_EQ(a.memory()->where(), numa::on_node(0));
  auto g = numa::allocate2d<float>(4, 4, numa::local, nodes(8));
  EXPECT_EQ(g.flat().memory()->where(), numa::on_node(0));
  EXPECT_EQ(g.node_of(3, 3), 0);
  // On this machine: the node of the CPU the thread runs on.
  const cws::topology here = cws::topology::discover();
  const unsigned node = numa::caller_node(here);
  EXPECT_LT(node, here.numa_nodes());
  auto h = numa::allocate<double>(10, numa::local, here);
  EXPECT_EQ(h.memory()->where().kind, numa::placement_kind::on_node);
  EXPECT_LT(h.memory()->where().node, here.numa_nodes());
}

// Four tasks held until all four run: each is on its own worker, one per node,
// and each allocates on its worker's node.
TEST(NumaLocal, InsideAPhaseTheWorkersNode) {
  cws::runtime rt(cws::test::config(4, "pack:4 numa:1 core:1 pu:1"));
  struct seen {
    unsigned worker;
    numa::placement where;
    int node_of_2d;
    std::string mismatch_error;
  };
  std::mutex mutex;
  std::vector<seen> all;
  std::atomic<unsigned> arrived{0};
  std::atomic<bool> all_arrived{true};
  auto body = [&] {
    const unsigned w = cws::this_worker();
    auto a = numa::allocate<double>(16, numa::local);
    auto g = numa::allocate2d<double>(2, 8, numa::local, rt.topology());
    std::string mismatch;
    if (rt.placement()[w].numa_node >= 2) {
      try {
        (void)numa::allocate<double>(16, numa::local, nodes(2));
      } catch (const cws::error& e) {
        mismatch = e.what();
      }
    }
    arrived.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (arrived.load() < 4)
      if (std::chrono::steady_clock::now() > deadline) {
        all_arrived.store(false);
        break;
      } else {
        std::this_thread::yield();
      }
    std::lock_guard lock(mutex);
    all.push_back({w, a.memory()->where(), g.node_of(1, 7), std::move(mismatch)});
  };
  rt.run([&] {
    for (int t = 0; t < 3; ++t) cws::spawn(body);
    body();
    cws::sync();
  });
  ASSERT_TRUE(all_arrived.load()) << "the four tasks never ran at once";
  ASSERT_EQ(all.size(), 4u);
  std::vector<bool> node_seen(4, false);
  for (const seen& s : all) {
    const unsigned node = rt.placement()[s.worker].numa_node;
    EXPECT_EQ(s.where, numa::on_node(node)) << "worker " << s.worker;
    EXPECT_EQ(s.node_of_2d, static_cast<int>(node));
    node_seen[node] = true;
    if (node >= 2) {
      EXPECT_NE(s.mismatch_error.find("NUMA node " + std::to_string(node)), std::string::npos) << s.mismatch_error;
    }
  }
  EXPECT_EQ(node_seen, std::vector<bool>(4, true));
}

}  // namespace
