// spawn / sync / finish / scope / parallel_for: results against serial
// computations, exactly-once execution, exception propagation.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "cws/cws.hpp"
#include "support/leaf_order.hpp"
#include "support/runtime_fixture.hpp"

namespace {

using cws::test::config;

struct spawn_test : ::testing::TestWithParam<unsigned> {};

std::uint64_t unbalanced(std::uint64_t n) {
  // Node n spawns a quarter and keeps three quarters: a skewed tree whose
  // depth grows like log_{4/3} n, with many small stolen subtrees.
  if (n < 4) return 1;
  std::uint64_t left = 0;
  cws::spawn([&left, n] { left = unbalanced(n / 4); });
  std::uint64_t right = unbalanced(n - n / 4);
  cws::sync();
  return 1 + left + right;
}
std::uint64_t unbalanced_serial(std::uint64_t n) {
  return n < 4 ? 1 : 1 + unbalanced_serial(n / 4) + unbalanced_serial(n - n / 4);
}

// A chain 3000 deep where every level spawns a leaf: deep frames, long deque.
std::uint64_t comb(unsigned depth, std::atomic<std::uint64_t>& leaves) {
  if (depth == 0) return 0;
  cws::spawn([&leaves] { leaves.fetch_add(1, std::memory_order_relaxed); });
  return 1 + comb(depth - 1, leaves);
}

TEST_P(spawn_test, fib_matches_serial) {
  cws::runtime rt(config(GetParam()));
  for (unsigned n : {0u, 1u, 2u, 10u, 22u}) {
    std::uint64_t result = 0;
    rt.run([&] { result = cws::test::fib(n); });
    EXPECT_EQ(result, cws::test::serial_fib(n)) << "fib(" << n << ")";
  }
}

TEST_P(spawn_test, unbalanced_recursion_matches_serial) {
  cws::runtime rt(config(GetParam()));
  std::uint64_t nodes = 0;
  rt.run([&] { nodes = unbalanced(200000); });
  EXPECT_EQ(nodes, unbalanced_serial(200000));
}

TEST_P(spawn_test, deep_comb_runs_every_leaf) {
  cws::runtime rt(config(GetParam()));
  std::atomic<std::uint64_t> leaves{0};
  std::uint64_t depth = 0;
  rt.run([&] { depth = comb(3000, leaves); });
  EXPECT_EQ(depth, 3000u);
  EXPECT_EQ(leaves.load(), 3000u);  // the root's implicit sync waited for all of them
}

TEST_P(spawn_test, parallel_for_runs_every_index_exactly_once) {
  cws::runtime rt(config(GetParam()));
  for (std::size_t n : {0ul, 1ul, 7ul, 1000ul, 100003ul}) {
    for (std::size_t grain : {0ul, 1ul, 13ul, 4096ul}) {
      std::vector<std::atomic<int>> hits(n);
      rt.run([&] {
        cws::parallel_for(
            0, n, [&](std::size_t i) { hits[i].fetch_add(1); }, grain);
      });
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "n=" << n << " grain=" << grain << " i=" << i;
    }
  }
}

TEST_P(spawn_test, parallel_for_range_covers_offset_range) {
  cws::runtime rt(config(GetParam()));
  std::vector<std::atomic<int>> hits(500);
  rt.run([&] {
    cws::parallel_for_range(
        100, 400,
        [&](std::size_t lo, std::size_t hi) {
          for (std::size_t i = lo; i < hi; ++i) hits[i].fetch_add(1);
        },
        7);
  });
  for (std::size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i].load(), i >= 100 && i < 400 ? 1 : 0) << i;
}

TEST_P(spawn_test, nested_parallel_for) {
  cws::runtime rt(config(GetParam()));
  std::vector<std::atomic<int>> hits(64 * 64);
  rt.run([&] {
    cws::parallel_for(
        0, 64,
        [&](std::size_t i) {
          cws::parallel_for(
              0, 64, [&](std::size_t j) { hits[i * 64 + j].fetch_add(1); }, 4);
        },
        1);
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST_P(spawn_test, finish_waits_for_what_it_spawned) {
  cws::runtime rt(config(GetParam()));
  rt.run([&] {
    for (int round = 0; round < 50; ++round) {
      std::atomic<int> done{0};
      cws::finish([&] {
        for (int i = 0; i < 20; ++i)
          cws::spawn([&done] {
            cws::spawn([&done] { done.fetch_add(1); });
            done.fetch_add(1);
          });
      });
      ASSERT_EQ(done.load(), 40) << "finish returned before its tasks ended (round " << round << ")";
    }
  });
}

TEST_P(spawn_test, scope_destructor_syncs) {
  cws::runtime rt(config(GetParam()));
  rt.run([&] {
    std::atomic<int> done{0};
    {
      cws::scope s;
      for (int i = 0; i < 100; ++i) cws::spawn([&done] { done.fetch_add(1); });
    }
    EXPECT_EQ(done.load(), 100);
  });
}

TEST_P(spawn_test, sync_rethrows_child_exception_and_runtime_recovers) {
  cws::runtime rt(config(GetParam()));
  for (int round = 0; round < 20; ++round) {
    bool caught = false;
    rt.run([&] {
      try {
        for (int i = 0; i < 8; ++i)
          cws::spawn([i] {
            if (i == 5) throw std::runtime_error("child 5 failed");
          });
        cws::sync();
      } catch (const std::runtime_error& e) {
        caught = std::string(e.what()) == "child 5 failed";
      }
    });
    EXPECT_TRUE(caught) << "round " << round;
  }
  std::uint64_t r = 0;
  rt.run([&] { r = cws::test::fib(18); });
  EXPECT_EQ(r, cws::test::serial_fib(18));
}

TEST_P(spawn_test, exception_escaping_the_phase_is_rethrown_by_run) {
  cws::runtime rt(config(GetParam()));
  std::atomic<int> finished{0};
  EXPECT_THROW(rt.run([&] {
    for (int i = 0; i < 16; ++i)
      cws::spawn([&finished, i] {
        cws::scope s;  // joins the child on the way out: an exception must not leave a task with children pending
        cws::spawn([&finished] { finished.fetch_add(1); });  // siblings still complete
        if (i % 4 == 0) throw std::logic_error("deep failure");
      });
  }),
               std::logic_error);
  EXPECT_EQ(finished.load(), 16);
  auto& s = rt.schedule("default");
  EXPECT_EQ(s.iterations(), 1u);
  std::uint64_t r = 0;
  rt.run([&] { r = cws::test::fib(15); });
  EXPECT_EQ(r, cws::test::serial_fib(15));
}

TEST_P(spawn_test, finish_rethrows_and_waits_even_when_body_throws) {
  cws::runtime rt(config(GetParam()));
  rt.run([&] {
    std::atomic<int> done{0};
    EXPECT_THROW(cws::finish([&] {
                   for (int i = 0; i < 10; ++i) cws::spawn([&done] { done.fetch_add(1); });
                   throw std::out_of_range("body");
                 }),
                 std::out_of_range);
    EXPECT_EQ(done.load(), 10);
  });
}

INSTANTIATE_TEST_SUITE_P(workers, spawn_test, ::testing::Values(1u, 2u),
                         [](const auto& p) { return std::to_string(p.param) + "_workers"; });

TEST(spawn_synthetic, fib_on_four_and_eight_virtual_cores) {
  for (const auto& topo : {cws::test::four_cores, cws::test::eight_cores}) {
    cws::runtime rt(config(0, topo));
    std::uint64_t r = 0;
    rt.run([&] { r = cws::test::fib(20); });
    EXPECT_EQ(r, cws::test::serial_fib(20)) << topo;
  }
}

TEST(spawn_outside_phase, is_the_serial_elision) {
  int x = 0;
  cws::spawn([&] { x = 42; });
  EXPECT_EQ(x, 42);  // ran at once
  cws::sync();       // no-op
  EXPECT_EQ(cws::this_worker(), 0u);
  EXPECT_EQ(cws::num_workers(), 1u);
  EXPECT_EQ(cws::test::fib(12), cws::test::serial_fib(12));
}

// The leaves parallel_for_range(0, n, ..., 1) gave each worker, in the order it ran them.
std::vector<std::vector<std::size_t>> leaf_order(std::size_t n, unsigned workers) {
  std::vector<std::vector<std::size_t>> order(workers);
  cws::parallel_for_range(
      0, n,
      [&](std::size_t lo, std::size_t hi) {
        for (std::size_t i = lo; i < hi; ++i) order[cws::this_worker()].push_back(i);  // each its own worker's
      },
      1);
  return order;
}

// A worker runs the leaves it keeps from the lowest index up, as a serial
// loop does (parallel_for.hpp): its unstolen right halves run newest first.
// The old split (left half spawned) ran one worker's 100 leaves from 99 down.
TEST(parallel_for_order, one_worker_runs_the_leaves_left_to_right) {
  cws::runtime rt(config(1));
  std::vector<std::vector<std::size_t>> order;
  rt.run([&] { order = leaf_order(100, 1); });
  EXPECT_EQ(order.at(0), cws::test::ascending(100));
}

// Outside a phase spawn is a call that runs the child first, which would
// visit each right half before its left one; the leaves still run in order.
TEST(parallel_for_order, outside_a_phase_the_leaves_run_left_to_right) {
  EXPECT_EQ(leaf_order(100, 1).at(0), cws::test::ascending(100));
}

// Two workers: each runs the leaves of every range it took from the lowest
// index up (support/leaf_order.hpp), and every leaf runs once.
TEST(parallel_for_order, each_worker_runs_its_leaves_left_to_right_between_steals) {
  cws::runtime rt(config(2));
  for (int round = 0; round < 50; ++round) {
    std::vector<std::vector<std::size_t>> order;
    const cws::run_report& r = rt.run([&] { order = leaf_order(256, 2); });
    SCOPED_TRACE("round " + std::to_string(round));
    cws::test::expect_left_to_right(order, r, 256);
  }
}

TEST(spawn_storage, large_captures_are_boxed_and_destroyed) {
  cws::runtime rt(config(2));
  static std::atomic<int> alive{0};
  struct big {
    std::array<char, 512> payload{};
    big() { alive.fetch_add(1); }
    big(const big& o) : payload(o.payload) { alive.fetch_add(1); }
    ~big() { alive.fetch_sub(1); }
  };
  std::atomic<int> sum{0};
  rt.run([&] {
    for (int i = 0; i < 100; ++i) {
      big b;
      b.payload[0] = static_cast<char>(i % 7);
      cws::spawn([b, &sum] { sum.fetch_add(b.payload[0]); });
    }
  });
  int expect = 0;
  for (int i = 0; i < 100; ++i) expect += i % 7;
  EXPECT_EQ(sum.load(), expect);
  EXPECT_EQ(alive.load(), 0);
}

}  // namespace
