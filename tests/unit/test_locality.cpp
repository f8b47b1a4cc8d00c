// The pure locality computations (locality.hpp) and the simulated page-home
// backend (page_homes.hpp), with exact expected answers: coalescing, per-page
// per-node bytes for ranges that straddle pages, the desired-node majority
// and its ties, locality shares, relocation plans, and the backend's homes
// for every placement, first touch, moves, loose memory and reused addresses.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "cws/locality.hpp"
#include "cws/numa.hpp"
#include "cws/page_homes.hpp"
#include "cws/topology.hpp"

namespace numa = cws::numa;
using cws::byte_range;

namespace {

constexpr std::uintptr_t P = 4096;  // page size of the pure tests (any power of two works)
constexpr std::uintptr_t base = 0x100000;

const std::size_t system_page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

const cws::topology& two_nodes() {
  static const cws::topology t = cws::topology::synthetic("pack:2 numa:1 core:1 pu:1");
  return t;
}

std::vector<std::uintptr_t> pages_of(const void* p, std::size_t n) {
  std::vector<std::uintptr_t> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(reinterpret_cast<std::uintptr_t>(p) + i * system_page);
  return out;
}

}  // namespace

TEST(Coalesce, MergesOverlappingAndAdjacentRangesAndDropsEmptyOnes) {
  std::vector<byte_range> r = {{300, 400}, {0, 100}, {100, 150}, {120, 130}, {500, 500}, {390, 450}, {600, 700}};
  cws::coalesce(r);
  EXPECT_EQ(r, (std::vector<byte_range>{{0, 150}, {300, 450}, {600, 700}}));
}

TEST(PageUsage, RangesStraddlingPagesSplitTheirBytesExactly) {
  // Worker 0 (node 0): 96 bytes at the end of page 0 and 104 at the start of page 1.
  // Worker 1 (node 1): the second half of page 1 and all of page 2.
  cws::touch_map t;
  t.per_worker = {{{base + P - 96, base + P + 104}}, {{base + P + P / 2, base + 3 * P}}};
  const std::vector<unsigned> node_of_worker = {0, 1};
  const cws::page_usage u = cws::usage_of(t, node_of_worker, 2, P);
  ASSERT_EQ(u.pages, (std::vector<std::uintptr_t>{base, base + P, base + 2 * P}));
  EXPECT_EQ(u.bytes_of(0, 0), 96u);
  EXPECT_EQ(u.bytes_of(0, 1), 0u);
  EXPECT_EQ(u.bytes_of(1, 0), 104u);
  EXPECT_EQ(u.bytes_of(1, 1), P / 2);
  EXPECT_EQ(u.bytes_of(2, 0), 0u);
  EXPECT_EQ(u.bytes_of(2, 1), P);
  EXPECT_EQ(u.total_of(1), 104 + P / 2);
}

TEST(PageUsage, TwoWorkersOfOneNodeAddUpAndGapsLeaveNoPages) {
  // Workers 0 and 1 on node 0 both touch page 0; worker 2 (node 1) touches page 5 only.
  cws::touch_map t;
  t.per_worker = {{{base, base + 100}}, {{base + 50, base + 250}}, {{base + 5 * P + 8, base + 5 * P + 16}}};
  const std::vector<unsigned> node_of_worker = {0, 0, 1};
  const cws::page_usage u = cws::usage_of(t, node_of_worker, 2, P);
  ASSERT_EQ(u.pages, (std::vector<std::uintptr_t>{base, base + 5 * P}));
  EXPECT_EQ(u.bytes_of(0, 0), 300u);  // a byte two workers touched counts for each
  EXPECT_EQ(u.bytes_of(1, 1), 8u);
}

TEST(DesiredNode, MajorityOfBytesWinsAndTiesKeepTheHome) {
  cws::touch_map t;
  // Page 0: node 0 touches 1000 bytes, node 1 3000. Page 1: 2048 each (a tie).
  t.per_worker = {{{base, base + 1000}, {base + P, base + P + 2048}},
                  {{base + 1000, base + 4000}, {base + P + 2048, base + 2 * P}}};
  const std::vector<unsigned> node_of_worker = {0, 1};
  const cws::page_usage u = cws::usage_of(t, node_of_worker, 2, P);
  ASSERT_EQ(u.pages.size(), 2u);
  EXPECT_EQ(cws::desired_node(u, 0, 0), 1u);
  EXPECT_EQ(cws::desired_node(u, 0, cws::unknown_home), 1u);
  EXPECT_EQ(cws::desired_node(u, 1, 1), 1u);  // tied: stay
  EXPECT_EQ(cws::desired_node(u, 1, 0), 0u);
  EXPECT_EQ(cws::desired_node(u, 1, cws::unknown_home), 0u);  // tied, no home: lowest node
  EXPECT_EQ(cws::desired_node(u, 1, 3), 0u);                  // a home outside the usage's nodes
}

TEST(Locality, SharesPerNodeAndUnknownBytesAreExact) {
  // An array shared by two nodes: pages 0-1 used by node 0, pages 2-3 by node 1,
  // page 1 also read by node 1 (a halo).
  cws::touch_map t;
  t.per_worker = {{{base, base + 2 * P}}, {{base + P + P / 4, base + 4 * P}}};
  const std::vector<unsigned> node_of_worker = {0, 1};
  const cws::page_usage u = cws::usage_of(t, node_of_worker, 2, P);
  ASSERT_EQ(u.pages.size(), 4u);
  // Homes: page 0 on node 0, page 1 on node 1, page 2 unknown, page 3 on node 1.
  const std::vector<int> homes = {0, 1, cws::unknown_home, 1};
  const cws::locality_report r = cws::measure_locality(u, homes);
  EXPECT_EQ(r.pages, 4u);
  EXPECT_EQ(r.per_node[0].touched_bytes, 2 * P);
  EXPECT_EQ(r.per_node[0].local_bytes, P);
  EXPECT_EQ(r.per_node[1].touched_bytes, 3 * P - P / 4);
  EXPECT_EQ(r.per_node[1].local_bytes, (P - P / 4) + P);
  EXPECT_EQ(r.touched_bytes, 2 * P + 3 * P - P / 4);
  EXPECT_EQ(r.local_bytes, P + (P - P / 4) + P);
  EXPECT_EQ(r.unknown_bytes, P);
  EXPECT_DOUBLE_EQ(r.share(), static_cast<double>(r.local_bytes) / static_cast<double>(r.touched_bytes));
  EXPECT_DOUBLE_EQ(cws::locality_report{}.share(), 1.0);

  // The plan: page 1 (node 0: P bytes, node 1: 3P/4) goes to node 0; page 2
  // has no home and stays; pages 0 and 3 are where they belong.
  EXPECT_EQ(cws::plan_relocation(u, homes), (std::vector<cws::page_move>{{base + P, 1, 0}}));
}

TEST(SimulatedPages, RegionsStartWithTheirPlacementsHomes) {
  auto homes = numa::make_simulated_page_homes(two_nodes());
  EXPECT_EQ(homes->name(), "simulated");
  EXPECT_EQ(homes->page_size(), system_page);
  const std::size_t n = 5 * system_page;  // 5 pages: block_cyclic blocks of 3
  numa::allocation bc(n, numa::block_cyclic, two_nodes());
  numa::allocation il(n, numa::interleaved, two_nodes());
  numa::allocation on(n, numa::on_node(1), two_nodes());
  numa::allocation ft(n, numa::first_touch, two_nodes());
  std::vector<int> h(5);
  homes->query(pages_of(bc.data(), 5), h);
  EXPECT_EQ(h, (std::vector<int>{0, 0, 0, 1, 1}));
  homes->query(pages_of(il.data(), 5), h);
  EXPECT_EQ(h, (std::vector<int>{0, 1, 0, 1, 0}));
  homes->query(pages_of(on.data(), 5), h);
  EXPECT_EQ(h, (std::vector<int>{1, 1, 1, 1, 1}));
  homes->query(pages_of(ft.data(), 5), h);
  EXPECT_EQ(h, std::vector<int>(5, cws::unknown_home));
}

TEST(SimulatedPages, FirstTouchSetsOnlyUnknownHomesAndMovesRewriteThem) {
  auto homes = numa::make_simulated_page_homes(two_nodes());
  numa::allocation ft(4 * system_page, numa::first_touch, two_nodes());
  const auto pages = pages_of(ft.data(), 4);
  std::vector<int> h = {cws::unknown_home, cws::unknown_home, 0, cws::unknown_home};
  const std::vector<unsigned> toucher = {1, 0, 1, 1};
  homes->first_touch(pages, toucher, h);
  EXPECT_EQ(h, (std::vector<int>{1, 0, 0, 1}));  // page 2 was already known to the caller: untouched
  std::vector<int> now(4);
  homes->query(pages, now);
  EXPECT_EQ(now, (std::vector<int>{1, 0, cws::unknown_home, 1}));

  // A later first touch does not override a home, even when the caller
  // passes it as unknown; it only places page 2.
  std::vector<int> again(4, cws::unknown_home);
  homes->first_touch(pages, std::vector<unsigned>{0, 1, 0, 0}, again);
  EXPECT_EQ(again, (std::vector<int>{1, 0, 0, 1}));
  homes->query(pages, now);
  EXPECT_EQ(now, (std::vector<int>{1, 0, 0, 1}));

  // Moves: pages already on their target do not count.
  const numa::move_outcome m = homes->move(pages, std::vector<unsigned>{0, 0, 1, 1});
  EXPECT_EQ(m.moved, 2u);  // pages 0 and 2
  EXPECT_EQ(m.failed, 0u);
  homes->query(pages, now);
  EXPECT_EQ(now, (std::vector<int>{0, 0, 1, 1}));
}

TEST(SimulatedPages, PagesWithoutAHomeCannotMove) {
  auto homes = numa::make_simulated_page_homes(two_nodes());
  numa::allocation ft(2 * system_page, numa::first_touch, two_nodes());
  const numa::move_outcome m = homes->move(pages_of(ft.data(), 2), std::vector<unsigned>{1, 1});
  EXPECT_EQ(m.moved, 0u);
  EXPECT_EQ(m.failed, 2u);
}

TEST(SimulatedPages, MemoryOutsideRegionsIsTrackedFromItsFirstTouch) {
  auto homes = numa::make_simulated_page_homes(two_nodes());
  std::vector<char> loose(3 * system_page);
  const std::uintptr_t first = (reinterpret_cast<std::uintptr_t>(loose.data()) + system_page - 1) & ~(system_page - 1);
  const std::vector<std::uintptr_t> pages = {first, first + system_page};
  std::vector<int> h(2);
  homes->query(pages, h);
  EXPECT_EQ(h, std::vector<int>(2, cws::unknown_home));
  homes->first_touch(pages, std::vector<unsigned>{1, 0}, h);
  homes->query(pages, h);
  EXPECT_EQ(h, (std::vector<int>{1, 0}));
  EXPECT_EQ(homes->move(pages, std::vector<unsigned>{0, 0}).moved, 1u);
  homes->query(pages, h);
  EXPECT_EQ(h, (std::vector<int>{0, 0}));
}

TEST(SimulatedPages, ANewRegionAtAReusedAddressStartsAfresh) {
  auto homes = numa::make_simulated_page_homes(two_nodes());
  // Free and re-map until the kernel hands out the same address again (it
  // usually does at once); the new region must not inherit the old homes.
  numa::allocation a(3 * system_page, numa::on_node(1), two_nodes());
  const void* where = a.data();
  std::vector<int> h(3);
  homes->query(pages_of(a.data(), 3), h);
  ASSERT_EQ(h, std::vector<int>(3, 1));
  bool reused = false;
  for (int attempt = 0; attempt < 8 && !reused; ++attempt) {
    a = numa::allocation();
    a = numa::allocation(3 * system_page, numa::first_touch, two_nodes());
    reused = a.data() == where;
  }
  if (!reused) GTEST_SKIP() << "the kernel never reused the address";
  homes->query(pages_of(a.data(), 3), h);
  EXPECT_EQ(h, std::vector<int>(3, cws::unknown_home));
}
