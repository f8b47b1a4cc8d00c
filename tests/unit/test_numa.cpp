// cws::numa: node_of for every placement, the region registry, move
// semantics, and kernel placement checked with get_mempolicy / move_pages.
//
// The exact node_of answers use a synthetic 4-node topology (the intent is
// what node_of reports). The kernel checks use this machine's topology and
// hold on any node count, so they also run unchanged under numa-vm.

#include <gtest/gtest.h>
#include <numa.h>
#include <numaif.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cws/config.hpp"
#include "cws/error.hpp"
#include "cws/numa.hpp"
#include "cws/runtime.hpp"
#include "cws/topology.hpp"
#include "support/env_guard.hpp"
#include "support/error_of.hpp"
#include "support/huge_pages.hpp"

namespace numa = cws::numa;

namespace {

const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
const std::size_t per_page = page / sizeof(double);  // doubles per page

const cws::topology& four_nodes() {
  static const cws::topology t = cws::topology::synthetic("pack:4 numa:1 core:2 pu:1");
  return t;
}
const cws::topology& this_machine() {
  static const cws::topology t = cws::topology::discover();
  return t;
}

using cws::test::error_of;

TEST(NumaPlacement, Names) {
  EXPECT_EQ(numa::to_string(numa::first_touch), "first_touch");
  EXPECT_EQ(numa::to_string(numa::on_node(2)), "on_node(2)");
  EXPECT_EQ(numa::to_string(numa::interleaved), "interleaved");
  EXPECT_EQ(numa::to_string(numa::block_cyclic), "block_cyclic");
}

TEST(NumaNodeOf, OnNode) {
  auto a = numa::allocate<double>(3 * per_page + 5, numa::on_node(2), four_nodes());
  for (std::size_t i : {std::size_t{0}, per_page - 1, per_page, a.size() - 1}) EXPECT_EQ(a.node_of(i), 2) << i;
  EXPECT_EQ(a.memory()->nodes(), 4u);
  EXPECT_EQ(a.memory()->pages(), 4u);
  EXPECT_EQ(a.memory()->block_pages(), 4u);
}

TEST(NumaNodeOf, FirstTouchIsUnknown) {
  auto a = numa::allocate<double>(2 * per_page, numa::first_touch, four_nodes());
  EXPECT_EQ(a.node_of(0), -1);
  EXPECT_EQ(a.node_of(a.size() - 1), -1);
  EXPECT_FALSE(a.memory()->kernel_placed());
}

TEST(NumaNodeOf, InterleavedIsPageRoundRobin) {
  // 10 full pages and 3 elements of an 11th.
  auto a = numa::allocate<double>(10 * per_page + 3, numa::interleaved, four_nodes());
  ASSERT_EQ(a.memory()->pages(), 11u);
  EXPECT_EQ(a.memory()->block_pages(), 1u);
  EXPECT_EQ(a.node_of(0), 0);
  EXPECT_EQ(a.node_of(per_page - 1), 0);  // last element of page 0
  EXPECT_EQ(a.node_of(per_page), 1);      // first of page 1
  EXPECT_EQ(a.node_of(3 * per_page + 7), 3);
  EXPECT_EQ(a.node_of(4 * per_page), 0);  // wraps
  EXPECT_EQ(a.node_of(9 * per_page - 1), 0);
  EXPECT_EQ(a.node_of(9 * per_page), 1);
  EXPECT_EQ(a.node_of(a.size() - 1), 2);  // page 10, the partial one
  for (std::size_t i = 0; i < a.size(); i += 97) EXPECT_EQ(a.node_of(i), static_cast<int>(i / per_page % 4)) << i;
}

TEST(NumaNodeOf, BlockCyclicUsesCeilPagesOverNodes) {
  // 11 pages over 4 nodes: blocks of 3 pages -> pages 0-2, 3-5, 6-8, 9-10.
  auto a = numa::allocate<double>(10 * per_page + 3, numa::block_cyclic, four_nodes());
  ASSERT_EQ(a.memory()->pages(), 11u);
  EXPECT_EQ(a.memory()->block_pages(), 3u);
  EXPECT_EQ(a.node_of(0), 0);
  EXPECT_EQ(a.node_of(3 * per_page - 1), 0);  // last element of block 0
  EXPECT_EQ(a.node_of(3 * per_page), 1);      // first of block 1
  EXPECT_EQ(a.node_of(6 * per_page - 1), 1);
  EXPECT_EQ(a.node_of(6 * per_page), 2);
  EXPECT_EQ(a.node_of(9 * per_page - 1), 2);
  EXPECT_EQ(a.node_of(9 * per_page), 3);
  EXPECT_EQ(a.node_of(a.size() - 1), 3);  // the short last block
}

TEST(NumaNodeOf, BlockCyclicEvenAndTinySplits) {
  auto even = numa::allocate<double>(8 * per_page, numa::block_cyclic, four_nodes());
  EXPECT_EQ(even.memory()->block_pages(), 2u);
  EXPECT_EQ(even.node_of(2 * per_page - 1), 0);
  EXPECT_EQ(even.node_of(2 * per_page), 1);
  EXPECT_EQ(even.node_of(8 * per_page - 1), 3);

  // Fewer pages than nodes: one page per block, the last nodes get nothing.
  auto tiny = numa::allocate<double>(per_page + 1, numa::block_cyclic, four_nodes());
  EXPECT_EQ(tiny.memory()->pages(), 2u);
  EXPECT_EQ(tiny.memory()->block_pages(), 1u);
  EXPECT_EQ(tiny.node_of(per_page - 1), 0);
  EXPECT_EQ(tiny.node_of(per_page), 1);

  auto one = numa::allocate<char>(1, numa::block_cyclic, four_nodes());
  EXPECT_EQ(one.memory()->pages(), 1u);
  EXPECT_EQ(one.node_of(0), 0);
}

// An element straddling a page boundary belongs to the node of its first byte.
TEST(NumaNodeOf, ElementsStraddlingPages) {
  struct triple {
    double x, y, z;
  };
  static_assert(sizeof(triple) == 24);
  auto a = numa::allocate<triple>(3 * page / 24 + 10, numa::interleaved, four_nodes());
  std::size_t straddler = page / 24;  // starts before the boundary, ends after it
  ASSERT_LT(straddler * 24, page);
  ASSERT_GT((straddler + 1) * 24, page);
  EXPECT_EQ(a.node_of(straddler), 0);
  EXPECT_EQ(a.node_of(straddler + 1), 1);
  // node_of agrees with the address-level answer everywhere.
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.node_of(i), a.memory()->node_of_address(&a[i])) << i;
}

TEST(NumaNodeOf, OnNodeOutsideTheTopology) {
  std::string msg = error_of([] { numa::allocate<int>(10, numa::on_node(4), four_nodes()); });
  EXPECT_EQ(msg,
            "numa::on_node(4): the topology has 4 NUMA nodes (4 packages, 4 NUMA nodes, 4 L3 groups, 8 cores, 8 PUs)");
}

TEST(NumaArray, FreshZeroPagesUntouchedAndWritable) {
  auto a = numa::allocate<std::uint64_t>(3 * page / 8 + 1, numa::block_cyclic, four_nodes());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % page, 0u);
  for (auto x : a) ASSERT_EQ(x, 0u);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = i * 3;
  std::uint64_t sum = 0;
  for (auto x : a.span()) sum += x;
  EXPECT_EQ(sum, 3 * (a.size() * (a.size() - 1) / 2));
  EXPECT_EQ(a.end() - a.begin(), static_cast<std::ptrdiff_t>(a.size()));
}

TEST(NumaArray, EmptyAndOverflow) {
  auto e = numa::allocate<double>(0, numa::interleaved, four_nodes());
  EXPECT_TRUE(e.empty());
  EXPECT_EQ(e.data(), nullptr);
  EXPECT_EQ(e.memory(), nullptr);
  std::string msg = error_of([] { numa::allocate<double>(SIZE_MAX / 4, numa::interleaved, four_nodes()); });
  EXPECT_NE(msg.find("overflow"), std::string::npos) << msg;
  msg = error_of([] { numa::array<double>(numa::allocation(16, numa::first_touch, four_nodes()), 3); });
  EXPECT_EQ(msg, "numa::array needs 24 bytes but the allocation has 16");
}

TEST(NumaArray, MoveTransfersOwnershipAndRegistration) {
  auto a = numa::allocate<int>(5000, numa::interleaved, four_nodes());
  int* p = a.data();
  const numa::region* r = a.memory();
  a[4999] = 7;

  numa::array<int> b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.size(), 5000u);
  EXPECT_EQ(b.memory(), r);
  EXPECT_EQ(b[4999], 7);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from state is specified
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(a.memory(), nullptr);
  EXPECT_EQ(numa::find_region(p + 10), r);

  auto c = numa::allocate<int>(10, numa::first_touch, four_nodes());
  int* old = c.data();
  c = std::move(b);  // frees c's old mapping
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(numa::find_region(old), nullptr);
  EXPECT_EQ(numa::find_region(p), r);

  auto& alias = c;
  c = std::move(alias);  // self-move keeps the array
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.size(), 5000u);
}

TEST(NumaRegistry, FindsInteriorPointersOnly) {
  auto a = numa::allocate<double>(2 * per_page + 3, numa::block_cyclic, four_nodes());
  auto b = numa::allocate<char>(100, numa::on_node(1), four_nodes());
  const numa::region* ra = a.memory();
  ASSERT_NE(ra, nullptr);
  EXPECT_EQ(ra->begin(), static_cast<void*>(a.data()));
  EXPECT_EQ(ra->bytes(), a.size() * sizeof(double));
  EXPECT_EQ(ra->where(), numa::block_cyclic);
  EXPECT_EQ(ra->page_size(), page);

  EXPECT_EQ(numa::find_region(a.data()), ra);
  EXPECT_EQ(numa::find_region(&a[per_page + 1]), ra);
  EXPECT_EQ(numa::find_region(reinterpret_cast<char*>(a.data() + a.size()) - 1), ra);  // last byte
  EXPECT_NE(numa::find_region(a.data() + a.size()), ra);                               // one past the end
  EXPECT_EQ(numa::find_region(b.data() + 99), b.memory());
  EXPECT_EQ(numa::find_region(b.data() + 100), nullptr);  // rest of b's page is not b
  int local = 0;
  EXPECT_EQ(numa::find_region(&local), nullptr);
  EXPECT_EQ(numa::find_region(nullptr), nullptr);

  // Through the registry, an address's node is O(1) from its region.
  const double* x = &a[2 * per_page];
  EXPECT_EQ(numa::find_region(x)->node_of_address(x), a.node_of(2 * per_page));

  void* gone = b.data();
  b = numa::array<char>();
  EXPECT_EQ(numa::find_region(gone), nullptr);
  {
    auto scoped = numa::allocate<int>(1000, numa::interleaved, four_nodes());
    gone = scoped.data() + 500;
    EXPECT_NE(numa::find_region(gone), nullptr);
  }
  EXPECT_EQ(numa::find_region(gone), nullptr);
}

TEST(NumaRegistry, ConcurrentAllocateLookupFree) {
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&wrong, t] {
      for (int i = 0; i < 200; ++i) {
        auto a = numa::allocate<int>(100 + static_cast<std::size_t>(i + t), numa::interleaved, four_nodes());
        if (numa::find_region(&a[a.size() / 2]) != a.memory()) ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(NumaDescribe, OneLineWithTheLayout) {
  auto a = numa::allocate<double>(10 * per_page + 3, numa::block_cyclic, four_nodes());
  std::string d = numa::describe(*a.memory());
  EXPECT_EQ(d.rfind("block_cyclic over 4 nodes (3 pages per block): " + std::to_string(a.size() * 8) + " bytes at ", 0),
            0u)
      << d;
  EXPECT_NE(d.find("11 pages of " + std::to_string(page) + " bytes"), std::string::npos) << d;
  EXPECT_NE(d.find("kernel: "), std::string::npos) << d;
  EXPECT_EQ(d.find('\n'), std::string::npos) << d;
}

// ---- kernel placement on this machine ----------------------------------------

// Why kernel placement cannot be checked here, or empty when it can: libnuma
// must work and mbind be allowed (container seccomp profiles may refuse it).
std::string kernel_unavailable() {
  if (numa_available() < 0) return "libnuma: no NUMA support in this kernel";
  unsigned node0 = this_machine().numa_os_index(0);
  if (node0 >= 64) return "node numbers above 63 are beyond these tests' 64-bit masks";
  void* p = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  unsigned long mask = 1ul << node0;
  int rc = mbind(p, page, MPOL_BIND, &mask, sizeof(mask) * 8 + 1, 0);
  std::string why = rc == 0 ? "" : std::string("mbind is not permitted here: ") + std::strerror(errno);
  ::munmap(p, page);
  return why;
}
bool kernel_numa() {
  static const std::string why = kernel_unavailable();
  return why.empty();
}
#define SKIP_WITHOUT_KERNEL_NUMA() \
  if (!kernel_numa()) GTEST_SKIP() << kernel_unavailable()

// Kernel node of each page of [p, p + pages pages), as move_pages reports it
// (a negative errno for a page never touched).
std::vector<int> page_nodes(const void* p, std::size_t pages) {
  std::vector<void*> addrs(pages);
  for (std::size_t i = 0; i < pages; ++i) addrs[i] = const_cast<char*>(static_cast<const char*>(p)) + i * page;
  std::vector<int> status(pages, -12345);
  EXPECT_EQ(numa_move_pages(0, pages, addrs.data(), nullptr, status.data(), 0), 0);
  return status;
}

struct policy {
  int mode = -1;
  unsigned long mask = 0;
};
// move_pages' status for a page that was never faulted in: -ENOENT on recent
// kernels, -EFAULT on older ones (6.1).
bool untouched(int status) { return status == -ENOENT || status == -EFAULT; }

policy policy_at(const void* p) {
  policy out;
  EXPECT_EQ(get_mempolicy(&out.mode, &out.mask, sizeof(out.mask) * 8, const_cast<void*>(p), MPOL_F_ADDR), 0);
  return out;
}

TEST(NumaKernel, AllocateDoesNotTouchPages) {
  SKIP_WITHOUT_KERNEL_NUMA();
  auto a = numa::allocate<double>(4 * per_page, numa::on_node(0), this_machine());
  for (int s : page_nodes(a.data(), 4)) EXPECT_TRUE(untouched(s)) << s;
  numa::prefault_zero(a);
  for (int s : page_nodes(a.data(), 4)) EXPECT_GE(s, 0);
}

TEST(NumaKernel, OnNodeZeroIsBoundAndLandsThere) {
  SKIP_WITHOUT_KERNEL_NUMA();
  const auto& t = this_machine();
  const int node0 = static_cast<int>(t.numa_os_index(0));
  auto a = numa::allocate<double>(8 * per_page + 1, numa::on_node(0), t);
  const numa::region& r = *a.memory();
  EXPECT_TRUE(r.kernel_placed()) << r.kernel_note();
  EXPECT_EQ(r.kernel_nodes()[0], node0);
  EXPECT_EQ(r.kernel_note(), "bound to kernel node " + std::to_string(node0));
  policy pol = policy_at(a.data());
  EXPECT_EQ(pol.mode, MPOL_BIND);
  EXPECT_EQ(pol.mask, 1ul << node0);

  numa::prefault_zero(a);
  for (int s : page_nodes(a.data(), r.pages())) EXPECT_EQ(s, node0);
  for (std::size_t i = 0; i < a.size(); i += per_page / 2) ASSERT_EQ(a[i], 0.0);
}

TEST(NumaKernel, EveryNodeOfThisMachine) {
  SKIP_WITHOUT_KERNEL_NUMA();
  const auto& t = this_machine();
  for (unsigned v = 0; v < t.numa_nodes(); ++v) {
    auto a = numa::allocate<char>(3 * page, numa::on_node(v), t);
    numa::prefault_zero(a);
    for (int s : page_nodes(a.data(), 3)) EXPECT_EQ(s, static_cast<int>(t.numa_os_index(v))) << "node " << v;
  }
}

TEST(NumaKernel, BlockCyclicBlocksLandOnTheirNodes) {
  SKIP_WITHOUT_KERNEL_NUMA();
  const auto& t = this_machine();
  auto a = numa::allocate<double>(13 * per_page, numa::block_cyclic, t);
  const numa::region& r = *a.memory();
  EXPECT_TRUE(r.kernel_placed()) << r.kernel_note();
  numa::prefault_zero(a);
  auto nodes = page_nodes(a.data(), r.pages());
  for (std::size_t p = 0; p < r.pages(); ++p) {
    int v = r.node_of_page(p);
    EXPECT_EQ(nodes[p], static_cast<int>(t.numa_os_index(static_cast<unsigned>(v)))) << "page " << p;
    EXPECT_EQ(policy_at(static_cast<char*>(r.begin()) + p * page).mode, MPOL_BIND) << "page " << p;
  }
}

TEST(NumaKernel, InterleavedPagesFollowNodeOf) {
  SKIP_WITHOUT_KERNEL_NUMA();
  const auto& t = this_machine();
  auto a = numa::allocate<double>(16 * per_page, numa::interleaved, t);
  const numa::region& r = *a.memory();
  ASSERT_TRUE(r.kernel_placed()) << r.kernel_note();
  EXPECT_EQ(policy_at(a.data()).mode, MPOL_INTERLEAVE);
  EXPECT_EQ(r.kernel_nodes().size(), t.numa_nodes());
  // Where the kernel's interleave starts depends on the kernel (6.1 differs
  // from the address-based rule): only the pages' actual nodes tell.
  numa::prefault_zero(a);
  auto nodes = page_nodes(a.data(), r.pages());
  for (std::size_t p = 0; p < r.pages(); ++p)
    EXPECT_EQ(nodes[p], static_cast<int>(t.numa_os_index(static_cast<unsigned>(a.node_of(p * per_page)))))
        << "page " << p;
}

TEST(NumaKernel, FirstTouchLeavesTheDefaultPolicy) {
  SKIP_WITHOUT_KERNEL_NUMA();
  auto a = numa::allocate<double>(per_page, numa::first_touch, this_machine());
  EXPECT_EQ(policy_at(a.data()).mode, MPOL_DEFAULT);
  EXPECT_FALSE(a.memory()->kernel_placed());
  EXPECT_EQ(a.memory()->kernel_nodes(), std::vector<int>(this_machine().numa_nodes(), -1));
}

// A synthetic topology keeps its virtual layout: the kernel cannot realise it.
TEST(NumaKernel, SyntheticTopologyRecordsIntent) {
  SKIP_WITHOUT_KERNEL_NUMA();
  auto il = numa::allocate<double>(8 * per_page, numa::interleaved, four_nodes());
  EXPECT_FALSE(il.memory()->kernel_placed());
  EXPECT_EQ(il.memory()->kernel_note(), "synthetic topology: interleave recorded, not applied");
  EXPECT_EQ(policy_at(il.data()).mode, MPOL_DEFAULT);
  EXPECT_EQ(il.node_of(3 * per_page), 3);

  // Blocks are still bound, round-robin onto the kernel's nodes.
  auto bc = numa::allocate<double>(8 * per_page, numa::block_cyclic, four_nodes());
  EXPECT_FALSE(bc.memory()->kernel_placed());
  EXPECT_EQ(policy_at(bc.data()).mode, MPOL_BIND);
  EXPECT_EQ(
      bc.memory()->kernel_note().rfind("synthetic topology (virtual layout kept): blocks bound to kernel nodes ", 0),
      0u)
      << bc.memory()->kernel_note();
  for (int k : bc.memory()->kernel_nodes()) EXPECT_GE(k, 0);
  EXPECT_EQ(bc.node_of(7 * per_page), 3);
}

// Nodes this process may allocate on, counted with libnuma here rather than
// through cws (0: no NUMA support, which means one node too).
std::size_t allowed_kernel_nodes() {
  if (numa_available() < 0) return 0;
  bitmask* mems = numa_get_mems_allowed();
  const std::size_t n = mems ? numa_bitmask_weight(mems) : 0;
  if (mems) numa_free_nodemask(mems);
  return n;
}

// Transparent huge pages exactly where no page could be homed elsewhere: one
// allowed kernel node. Holds on any node count (numa-vm runs the many-node
// side in test_numa_kernel). The region is huge-page aligned, so a huge page
// fits from its first byte, and the kernel sees the request (THPeligible).
TEST(NumaHugePages, OnlyWhereThisProcessHasOneKernelNode) {
  const std::size_t huge = cws::test::thp_size();
  auto a = numa::allocate<char>(2 * huge + page, numa::first_touch, this_machine());
  const bool one_node = allowed_kernel_nodes() <= 1;
  EXPECT_EQ(a.memory()->huge_pages(), one_node);
  EXPECT_EQ(numa::describe(*a.memory()).find("transparent huge pages") != std::string::npos, one_node)
      << numa::describe(*a.memory());
  if (one_node) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % huge, 0u);
  }
  // A synthetic topology does not change what the kernel can do.
  auto synthetic = numa::allocate<char>(huge, numa::block_cyclic, four_nodes());
  EXPECT_EQ(synthetic.memory()->huge_pages(), one_node);
  // Small regions too: the request is the same, whether one fits or not.
  auto small = numa::allocate<char>(page, numa::first_touch, this_machine());
  EXPECT_EQ(small.memory()->huge_pages(), one_node);

  const std::string mode = cws::test::thp_mode();
  const std::optional<int> eligible = cws::test::thp_eligible(a.data());
  if (mode.empty() || mode == "never" || !eligible) GTEST_SKIP() << "THP mode '" << mode << "': nothing to observe";
  EXPECT_EQ(*eligible, one_node ? 1 : 0);
  // The data is right either way: every byte written reads back.
  for (std::size_t i = 0; i < a.size(); i += 4093) a[i] = static_cast<char>(i % 127);
  for (std::size_t i = 0; i < a.size(); i += 4093) ASSERT_EQ(a[i], static_cast<char>(i % 127)) << i;
}

TEST(NumaPrefault, UnalignedRangesAndFailures) {
  auto a = numa::allocate<char>(5 * page, numa::first_touch, this_machine());
  numa::prefault_zero(a.data() + page + 100, 2 * page);  // touches pages 1..3 only
  if (kernel_numa()) {
    auto s = page_nodes(a.data(), 5);
    EXPECT_TRUE(untouched(s[0])) << s[0];
    EXPECT_GE(s[1], 0);
    EXPECT_GE(s[3], 0);
    EXPECT_TRUE(untouched(s[4])) << s[4];
  }
  for (char c : a) ASSERT_EQ(c, 0);
  numa::prefault_zero(a.data(), 0);  // no-op

  void* hole = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(hole, MAP_FAILED);
  ::munmap(hole, page);
  EXPECT_THROW(numa::prefault_zero(hole, page), cws::error);
}

// ---- which topology the overload without one uses ----------------------------

using cws::test::env_guard;

TEST(NumaDefaultTopology, WithoutRuntimeUsesWhatTheRuntimeWould) {
  ASSERT_EQ(cws::runtime::current(), nullptr);
  {
    env_guard unset("CWS_TOPOLOGY", nullptr);
    auto a = numa::allocate<int>(10, numa::interleaved);
    EXPECT_EQ(a.memory()->nodes(), this_machine().numa_nodes());
  }
  env_guard synthetic("CWS_TOPOLOGY", "pack:2 numa:3 core:1 pu:1");
  auto b = numa::allocate<int>(10, numa::interleaved);
  EXPECT_EQ(b.memory()->nodes(), 6u);
}

TEST(NumaDefaultTopology, LiveRuntimeTopology) {
  cws::runtime_config cfg;
  cfg.topology = "pack:5 numa:1 core:1 pu:1";
  cfg.workers = 1;
  cfg.pin = false;
  cws::runtime rt(cfg);
  auto a = numa::allocate<int>(10, numa::block_cyclic);
  EXPECT_EQ(a.memory()->nodes(), 5u);
}

}  // namespace
