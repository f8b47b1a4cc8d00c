// The kernel side of data placement on a machine with >= 2 real NUMA nodes
// (a NUMA host, or numa-vm): cws::numa placements land exactly where
// region::node_of_page says, and the kernel page-home backend reads and moves
// page homes exactly, with each page_mover. Skipped on fewer than 2 nodes.

#include <gtest/gtest.h>
#include <numa.h>
#include <numaif.h>
#include <unistd.h>

#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "cws/error.hpp"
#include "cws/locality.hpp"
#include "cws/numa.hpp"
#include "cws/page_homes.hpp"
#include "cws/topology.hpp"
#include "support/error_of.hpp"
#include "support/huge_pages.hpp"

namespace numa = cws::numa;

namespace {

const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));

const cws::topology& machine() {
  static const cws::topology t = cws::topology::discover();
  return t;
}

// Memory-only nodes are not nodes of the topology, so count both.
#define REQUIRE_NUMA_NODES()                                                                 \
  if (numa_available() < 0 || numa_num_configured_nodes() < 2 || machine().numa_nodes() < 2) \
  GTEST_SKIP() << "needs >= 2 NUMA nodes with CPUs (ctest label numa-vm runs this in numa-vm)"

std::vector<std::uintptr_t> pages_of(const numa::region& r) {
  std::vector<std::uintptr_t> out(r.pages());
  for (std::size_t p = 0; p < out.size(); ++p) out[p] = reinterpret_cast<std::uintptr_t>(r.begin()) + p * page;
  return out;
}

// Kernel node of every page of r, straight from move_pages (no cws code).
std::vector<int> kernel_nodes_of(const numa::region& r) {
  std::vector<std::uintptr_t> addrs = pages_of(r);
  std::vector<void*> ptrs(addrs.size());
  for (std::size_t p = 0; p < addrs.size(); ++p) ptrs[p] = reinterpret_cast<void*>(addrs[p]);
  std::vector<int> status(addrs.size(), -1);
  EXPECT_EQ(numa_move_pages(0, ptrs.size(), ptrs.data(), nullptr, status.data(), 0), 0);
  return status;
}

int kernel_number(int logical) { return static_cast<int>(machine().numa_os_index(static_cast<unsigned>(logical))); }

std::uint64_t checksum(const numa::array<std::uint64_t>& a) {
  std::uint64_t s = 0;
  for (std::uint64_t v : a) s = s * 1099511628211ull + v;
  return s;
}

// An odd page count, so that block_cyclic's last block is short.
constexpr std::size_t test_pages = 301;

std::vector<numa::placement> placements() {
  std::vector<numa::placement> out = {numa::interleaved, numa::block_cyclic};
  for (unsigned v = 0; v < machine().numa_nodes(); ++v) out.push_back(numa::on_node(v));
  return out;
}

TEST(NumaVmPlacement, EveryPageWhereNodeOfPageSays) {
  REQUIRE_NUMA_NODES();
  for (const numa::placement& where : placements()) {
    auto a = numa::allocate<char>(test_pages * page - 100, where, machine());
    const numa::region& r = *a.memory();
    ASSERT_TRUE(r.kernel_placed()) << numa::describe(r);
    numa::prefault_zero(a);
    std::vector<int> got = kernel_nodes_of(r);
    std::size_t wrong = 0;
    for (std::size_t p = 0; p < r.pages(); ++p)
      if (got[p] != kernel_number(r.node_of_page(p)) && wrong++ < 5)
        ADD_FAILURE() << numa::describe(r) << ": page " << p << " on kernel node " << got[p] << ", expected "
                      << kernel_number(r.node_of_page(p));
    EXPECT_EQ(wrong, 0u) << numa::to_string(where);
  }
}

// With pages that can live on different nodes, every placement maps base
// pages: homes are tracked and moved a page at a time, and a huge page would
// take 512 of them along. (One node: test_numa's NumaHugePages.)
TEST(NumaVmPlacement, NoHugePagesWherePagesCanBeOnDifferentNodes) {
  REQUIRE_NUMA_NODES();
  std::vector<numa::placement> all = placements();
  all.push_back(numa::first_touch);
  for (const numa::placement& p : all) {
    auto a = numa::allocate<char>(2 * cws::test::thp_size() + page, p, machine());
    EXPECT_FALSE(a.memory()->huge_pages()) << numa::to_string(p);
    EXPECT_EQ(numa::describe(*a.memory()).find("huge"), std::string::npos) << numa::describe(*a.memory());
    if (const std::optional<int> eligible = cws::test::thp_eligible(a.data())) {
      EXPECT_EQ(*eligible, 0) << numa::to_string(p);
    }
  }
}

TEST(NumaVmKernelHomes, RefusesSyntheticTopology) {
  auto synthetic = cws::topology::synthetic("pack:2 numa:1 core:1 pu:1");
  std::string msg = cws::test::error_of([&] { numa::make_kernel_page_homes(synthetic); });
  EXPECT_NE(msg.find("synthetic"), std::string::npos) << msg;
}

TEST(NumaVmKernelHomes, Names) {
  REQUIRE_NUMA_NODES();
  EXPECT_EQ(numa::make_kernel_page_homes(machine(), numa::page_mover::move_pages)->name(), "kernel (move_pages)");
  EXPECT_EQ(numa::make_kernel_page_homes(machine(), numa::page_mover::mbind)->name(), "kernel (mbind)");
  EXPECT_EQ(numa::make_kernel_page_homes(machine())->name(), "kernel (auto)");
  EXPECT_EQ(numa::make_kernel_page_homes(machine())->page_size(), page);
}

TEST(NumaVmKernelHomes, QueryAgreesWithPlacement) {
  REQUIRE_NUMA_NODES();
  auto homes = numa::make_kernel_page_homes(machine());
  for (const numa::placement& where : placements()) {
    auto a = numa::allocate<char>(test_pages * page, where, machine());
    numa::prefault_zero(a);
    const numa::region& r = *a.memory();
    std::vector<int> got(r.pages(), -7);
    homes->query(pages_of(r), got);
    for (std::size_t p = 0; p < r.pages(); ++p)
      ASSERT_EQ(got[p], r.node_of_page(p)) << numa::describe(r) << " page " << p;
  }
}

TEST(NumaVmKernelHomes, PagesNotFaultedInHaveNoHomeAndFirstTouchKeepsThem) {
  REQUIRE_NUMA_NODES();
  auto homes = numa::make_kernel_page_homes(machine());
  auto a = numa::allocate<char>(8 * page, numa::first_touch, machine());
  numa::prefault_zero(a.data() + 2 * page, 3 * page);  // pages 2, 3, 4 only
  std::vector<std::uintptr_t> pages = pages_of(*a.memory());
  std::vector<int> got(pages.size());
  homes->query(pages, got);
  for (std::size_t p = 0; p < pages.size(); ++p) EXPECT_EQ(got[p] == cws::unknown_home, p < 2 || p > 4) << p;
  std::vector<int> before = got;
  homes->first_touch(pages, std::vector<unsigned>(pages.size(), 1), got);
  EXPECT_EQ(got, before);  // the kernel decides at first write; nothing to record
  homes->query(pages, got);
  EXPECT_EQ(got, before);
}

TEST(NumaVmKernelHomes, RejectsBadArguments) {
  REQUIRE_NUMA_NODES();
  auto homes = numa::make_kernel_page_homes(machine());
  auto a = numa::allocate<char>(page, numa::on_node(0), machine());
  std::vector<std::uintptr_t> pages = pages_of(*a.memory());
  std::vector<unsigned> nowhere = {machine().numa_nodes()};
  EXPECT_NE(cws::test::error_of([&] { homes->move(pages, nowhere); }).find("node"), std::string::npos);
  std::vector<int> two(2);
  EXPECT_FALSE(cws::test::error_of([&] { homes->query(pages, two); }).empty());
}

class NumaVmKernelMove : public ::testing::TestWithParam<numa::page_mover> {};

// The first half of the pages to the last node (one run of 1500 pages) and
// every 3rd page of the second half to node p % N (runs of one page), skipping
// pages already there so that every listed page really moves; for each mover.
TEST_P(NumaVmKernelMove, MovesExactlyTheListedPagesAndKeepsTheData) {
  REQUIRE_NUMA_NODES();
  const unsigned nodes = machine().numa_nodes();
  auto homes = numa::make_kernel_page_homes(machine(), GetParam());
  const std::size_t pages_n = 3000, block_hi = 1500;
  auto a = numa::allocate<std::uint64_t>(pages_n * page / sizeof(std::uint64_t), numa::block_cyclic, machine());
  numa::prefault_zero(a);
  std::iota(a.begin(), a.end(), std::uint64_t{12345});
  const std::uint64_t sum = checksum(a);
  const numa::region& r = *a.memory();
  std::vector<std::uintptr_t> all = pages_of(r);

  std::vector<int> expected(pages_n);
  std::vector<std::uintptr_t> moving;
  std::vector<unsigned> targets;
  for (std::size_t p = 0; p < pages_n; ++p) {
    expected[p] = r.node_of_page(p);
    int to = p < block_hi ? static_cast<int>(nodes - 1) : p % 3 == 0 ? static_cast<int>(p % nodes) : -1;
    if (to < 0 || to == expected[p]) continue;
    moving.push_back(all[p]);
    targets.push_back(static_cast<unsigned>(to));
    expected[p] = to;
  }
  ASSERT_GE(moving.size(), 1500u + 500u / nodes);

  numa::move_outcome m = homes->move(moving, targets);
  EXPECT_EQ(m.moved, moving.size()) << homes->name();
  EXPECT_EQ(m.failed, 0u) << homes->name();
  std::vector<int> got(pages_n);
  homes->query(all, got);
  EXPECT_EQ(got, expected) << homes->name();
  std::vector<int> kernel = kernel_nodes_of(r);
  for (std::size_t p = 0; p < pages_n; ++p) ASSERT_EQ(kernel[p], kernel_number(expected[p])) << "page " << p;
  EXPECT_EQ(checksum(a), sum) << "data changed by " << homes->name();

  // Moving them again is a no-op that still counts every page as on target.
  m = homes->move(moving, targets);
  EXPECT_EQ(m.moved, moving.size());
  EXPECT_EQ(m.failed, 0u);
}

// Pages that were never faulted in cannot move: counted as failed, not as moved.
TEST_P(NumaVmKernelMove, PagesNotFaultedInFail) {
  REQUIRE_NUMA_NODES();
  auto homes = numa::make_kernel_page_homes(machine(), GetParam());
  auto a = numa::allocate<char>(4 * page, numa::first_touch, machine());
  numa::prefault_zero(a.data(), 2 * page);  // pages 0 and 1
  std::vector<std::uintptr_t> pages = pages_of(*a.memory());
  std::vector<int> got(4);
  homes->query(pages, got);
  unsigned other = got[0] == 0 ? 1 : 0;
  numa::move_outcome m = homes->move(pages, std::vector<unsigned>(4, other));
  EXPECT_EQ(m.moved + m.failed, 4u);
  homes->query(pages, got);
  EXPECT_EQ(got[0], static_cast<int>(other));
  EXPECT_EQ(got[1], static_cast<int>(other));
  // mbind may leave its node policy on pages 2 and 3 but they stay unfaulted.
  EXPECT_EQ(got[2], cws::unknown_home);
  EXPECT_EQ(got[3], cws::unknown_home);
  EXPECT_EQ(m.moved, 2u);
  EXPECT_EQ(m.failed, 2u);
}

INSTANTIATE_TEST_SUITE_P(Movers, NumaVmKernelMove,
                         ::testing::Values(numa::page_mover::move_pages, numa::page_mover::mbind,
                                           numa::page_mover::automatic),
                         [](const auto& p) { return std::string(numa::to_string(p.param)); });

}  // namespace
