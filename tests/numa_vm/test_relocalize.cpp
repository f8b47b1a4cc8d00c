// End-to-end relocalization on real NUMA nodes (a NUMA host, or numa-vm): a
// runtime on the machine's topology with the kernel page-home backend; the
// main thread first-touches an array on node 0, a phase's workers declare
// (cws::touch) and write blocks of it, and runtime::relocalize must leave
// every touched page on its toucher's node, the data intact, and have nothing
// left to move the second time. Skipped on fewer than 2 nodes.

#include <gtest/gtest.h>
#include <numa.h>
#include <numaif.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "cws/cws.hpp"

namespace numa = cws::numa;

namespace {

const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
const std::size_t per_page = page / sizeof(std::uint64_t);
constexpr std::size_t block_pages = 48;  // pages per worker

// Memory-only nodes are not nodes of the topology, so count both.
bool two_nodes() {
  static const bool yes =
      numa_available() >= 0 && numa_num_configured_nodes() >= 2 && cws::topology::discover().numa_nodes() >= 2;
  return yes;
}
#define REQUIRE_NUMA_NODES() \
  if (!two_nodes()) GTEST_SKIP() << "needs >= 2 NUMA nodes with CPUs (ctest label numa-vm runs this in numa-vm)"

std::uint64_t checksum(const numa::array<std::uint64_t>& a) {
  std::uint64_t s = 0;
  for (std::uint64_t v : a) s = s * 1099511628211ull + v;
  return s;
}

cws::runtime_config kernel_config(numa::page_mover mover) {
  cws::runtime_config c;  // one worker per core, pinned: workers sit on every node
  c.pages = cws::page_backend::kernel;
  c.page_mover = mover;
  // Emulated vCPUs stand still for long stretches: designations are kept
  // however late a worker comes (CWS_REPLAY_GRACE_US).
  cws::schedulers::knobs_of(c).replay.grace_us = 0;
  return c;
}

// An array of `pages` pages, written by this thread while it runs on node 0
// (so first touch puts every page there), filled with a pattern.
numa::array<std::uint64_t> on_node_zero(cws::runtime& rt, std::size_t pages) {
  auto a = numa::allocate<std::uint64_t>(pages * per_page, numa::first_touch, rt.topology());
  EXPECT_EQ(numa_run_on_node(static_cast<int>(rt.topology().numa_os_index(0))), 0);
  numa::prefault_zero(a);
  std::iota(a.begin(), a.end(), std::uint64_t{99});
  numa_run_on_node(-1);
  return a;
}

std::vector<std::uintptr_t> pages_of(const numa::array<std::uint64_t>& a) {
  std::vector<std::uintptr_t> out(a.memory()->pages());
  for (std::size_t p = 0; p < out.size(); ++p) out[p] = reinterpret_cast<std::uintptr_t>(a.data()) + p * page;
  return out;
}

// Node of the worker whose declared ranges cover each page of a, -1 where
// none does. Requires every page to be touched by at most one worker.
std::vector<int> toucher_nodes(const cws::runtime& rt, const cws::touch_map& t, const numa::array<std::uint64_t>& a) {
  const auto base = reinterpret_cast<std::uintptr_t>(a.data());
  std::vector<int> out(a.memory()->pages(), -1);
  for (std::size_t w = 0; w < t.per_worker.size(); ++w)
    for (const cws::byte_range& r : t.per_worker[w])
      for (std::uintptr_t p = (r.begin - base) / page; p * page + base < r.end; ++p) {
        EXPECT_EQ(out[p], -1) << "page " << p << " touched by two workers";
        out[p] = static_cast<int>(rt.placement()[w].numa_node);
      }
  return out;
}

// Relocalizes s and checks the outcome against `want` (desired node per page).
void relocalize_and_check(cws::runtime& rt, cws::schedule& s, numa::array<std::uint64_t>& a,
                          const std::vector<int>& want) {
  std::uint64_t touched = 0, expected_moves = 0;
  for (int v : want) touched += v >= 0, expected_moves += v > 0;  // everything starts on node 0
  ASSERT_GT(expected_moves, 0u) << "no page was touched off node 0: nothing to test";
  const std::uint64_t sum = checksum(a);

  const cws::relocalization_report r = rt.relocalize(s);
  EXPECT_EQ(r.schedule, s.name());
  EXPECT_EQ(r.backend, rt.page_homes().name());
  EXPECT_EQ(r.pages_examined, touched);
  EXPECT_EQ(r.pages_moved, expected_moves);
  EXPECT_EQ(r.pages_failed, 0u);
  EXPECT_EQ(r.bytes_moved, expected_moves * page);
  EXPECT_EQ(checksum(a), sum) << "relocalization changed the data";

  // Straight from the kernel: touched pages on their toucher's node, the rest still on node 0.
  std::vector<std::uintptr_t> pages = pages_of(a);
  std::vector<void*> ptrs(pages.size());
  for (std::size_t p = 0; p < pages.size(); ++p) ptrs[p] = reinterpret_cast<void*>(pages[p]);
  std::vector<int> status(pages.size(), -1);
  ASSERT_EQ(numa_move_pages(0, ptrs.size(), ptrs.data(), nullptr, status.data(), 0), 0);
  for (std::size_t p = 0; p < pages.size(); ++p)
    ASSERT_EQ(status[p], static_cast<int>(rt.topology().numa_os_index(static_cast<unsigned>(std::max(want[p], 0)))))
        << "page " << p;

  const cws::relocalization_report again = rt.relocalize(s);
  EXPECT_EQ(again.pages_examined, touched);
  EXPECT_EQ(again.pages_moved, 0u) << "a second relocalization found pages to move";
  EXPECT_EQ(again.pages_failed, 0u);
}

class NumaVmRelocalize : public ::testing::TestWithParam<numa::page_mover> {};

// Worker w (by designation, `user` policy) declares and writes block w.
TEST_P(NumaVmRelocalize, DesignatedBlocksMoveToTheirWorkersNode) {
  REQUIRE_NUMA_NODES();
  cws::runtime rt(kernel_config(GetParam()));
  EXPECT_EQ(rt.page_homes().name(), "kernel (" + std::string(numa::to_string(GetParam())) + ")");
  const unsigned workers = rt.workers();
  auto a = on_node_zero(rt, workers * block_pages + 5);  // 5 pages nobody touches
  auto block = [&](unsigned w) {
    std::uint64_t* p = a.data() + w * block_pages * per_page;
    cws::touch(p, block_pages * page);
    for (std::size_t i = 0; i < block_pages * per_page; ++i) p[i] += w + 1;
  };
  auto& s = rt.schedule("blocks", cws::policy::user);
  rt.run(s, [&] {
    for (unsigned w = 1; w < workers; ++w) {
      cws::designate_after_next_spawn(w);
      cws::spawn([&block, w] { block(w); });
    }
    block(0);
  });
  const cws::touch_map& t = s.touches();
  ASSERT_EQ(t.per_worker.size(), workers);
  for (unsigned w = 0; w < workers; ++w) {
    auto begin = reinterpret_cast<std::uintptr_t>(a.data() + w * block_pages * per_page);
    EXPECT_EQ(t.per_worker[w], (std::vector<cws::byte_range>{{begin, begin + block_pages * page}})) << "worker " << w;
  }
  relocalize_and_check(rt, s, a, toucher_nodes(rt, t, a));
}

// A random-policy parallel_for with one-page leaves: whoever ran a leaf owns its page.
TEST_P(NumaVmRelocalize, ParallelForLeavesMoveToWhoeverRanThem) {
  REQUIRE_NUMA_NODES();
  cws::runtime rt(kernel_config(GetParam()));
  const std::size_t pages = rt.workers() * block_pages;
  auto a = on_node_zero(rt, pages);
  auto& s = rt.schedule("leaves", cws::policy::random);
  std::vector<int> want;
  // Stealing decides who runs what; retry until some page ran off node 0.
  for (int attempt = 0; attempt < 20; ++attempt) {
    rt.run(s, [&] {
      cws::parallel_for_range(
          0, pages,
          [&](std::size_t lo, std::size_t hi) {
            cws::touch(a.data() + lo * per_page, (hi - lo) * page);
            for (std::size_t i = lo * per_page; i < hi * per_page; ++i) a[i] ^= 0x5a5a;
          },
          1);
    });
    want = toucher_nodes(rt, s.touches(), a);
    if (std::any_of(want.begin(), want.end(), [](int v) { return v > 0; })) break;
  }
  relocalize_and_check(rt, s, a, want);
}

INSTANTIATE_TEST_SUITE_P(Movers, NumaVmRelocalize,
                         ::testing::Values(numa::page_mover::move_pages, numa::page_mover::mbind,
                                           numa::page_mover::automatic),
                         [](const auto& p) { return std::string(numa::to_string(p.param)); });

// Without CWS_PAGES the runtime picks the kernel backend on a real NUMA machine.
TEST(NumaVmRuntime, AutomaticBackendIsTheKernel) {
  REQUIRE_NUMA_NODES();
  cws::runtime_config c;
  cws::runtime rt(c);
  EXPECT_EQ(rt.page_homes().name(), "kernel (auto)");
}

}  // namespace
