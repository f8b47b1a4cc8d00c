// Black-box (public headers only): RELWS takes a designated task back.
//
// The scenario is scripted so that the outcome does not depend on timing.
// A hand-built template sends the phase root's two spawns, A = (1, 0) and
// B = (1, 1), to worker 1's mailbox; under relws both are reclaimable. A spins
// until B has run. Worker 1 can therefore start at most one of them, A (its
// mailbox is taken oldest first, and once it runs A it is busy until B ran),
// so B is always still in worker 1's mailbox when the root reaches sync, and
// the root must take it back and run it itself: taken_back >= 1, B ran on
// worker 0, and every routed task was either started by its thief
// (designated) or taken back. If the root reaches sync before worker 1 took
// anything, it takes both back (newest first, so B releases A before A runs).
//
// Why it fails without the feature: with no take-back the root would wait at
// sync for B while worker 1 spins in A waiting for B. A gives up after a
// deadline (so the test fails instead of hanging), worker 1 then runs B from
// its mailbox, and the test sees taken_back() == 0, B on worker 1 and A's
// timeout.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"
#include "support/steal_tree_builders.hpp"

namespace {

namespace st = cws::steal_tree;

// Root segment (worker 0) spawns (1, 0) and (1, 1); the template gives both to
// worker 1, as two segments of one task each.
st::tree both_spawns_to_worker_1() {
  st::tree t;
  t.workers = 2;
  t.segments.push_back(cws::test::segment_of(0, st::no_parent, 0, 0, 0, 100, 1,
                                             {st::steal_point{1, 0, 1, 1}, st::steal_point{1, 1, 1, 2}}));
  t.segments.push_back(cws::test::segment_of(1, 0, 1, 0, 10, 90, 1));
  t.segments.push_back(cws::test::segment_of(1, 0, 1, 1, 20, 95, 1));
  t.worker_segments = {{0}, {1, 2}};
  return t;
}

struct outcome {
  std::uint64_t a = 0, b = 0;
  unsigned a_worker = ~0u, b_worker = ~0u;
  bool a_timed_out = false;
};

// The program the template was written for: two spawns from the root, then sync.
outcome two_spawns() {
  outcome out;
  std::atomic<bool> b_done{false};
  cws::spawn([&] {  // A: holds its worker until B has run
    out.a_worker = cws::this_worker();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!b_done.load(std::memory_order_acquire)) {
      if (std::chrono::steady_clock::now() > deadline) {
        out.a_timed_out = true;
        break;
      }
      std::this_thread::yield();
    }
    out.a = cws::test::serial_fib(20);
  });
  cws::spawn([&] {  // B
    out.b_worker = cws::this_worker();
    out.b = cws::test::fib(18);
    b_done.store(true, std::memory_order_release);
  });
  cws::sync();
  return out;
}

TEST(relws_take_back, spawner_reaching_sync_takes_back_the_task_its_busy_thief_has_not_started) {
  cws::runtime rt(cws::test::config(2));
  ASSERT_EQ(rt.workers(), 2u);
  auto& store = cws::schedulers::store_of(rt);
  auto& s = rt.schedule("take_back", "relws");
  const st::tree templ = both_spawns_to_worker_1();

  constexpr int runs = 50;
  int thief_started_a = 0;
  for (int run = 0; run < runs; ++run) {
    // relws makes every run the next template: put the scripted one back.
    store.seed("take_back", templ, "hand-built: both spawns to worker 1");
    outcome out;
    const cws::phase_stats& stats = rt.run(s, [&] { out = two_spawns(); });

    ASSERT_FALSE(out.a_timed_out) << "run " << run << ": B never ran while A held worker 1 (no take-back)";
    EXPECT_EQ(out.a, cws::test::serial_fib(20)) << "run " << run;
    EXPECT_EQ(out.b, cws::test::serial_fib(18)) << "run " << run;
    EXPECT_EQ(out.b_worker, 0u) << "run " << run << ": B must be taken back by its spawner";
    EXPECT_GE(stats.taken_back(), 1u) << "run " << run;
    EXPECT_EQ(stats.per_worker.at(0).taken_back, stats.taken_back()) << "only the spawner takes back";
    // Each routed task was started by its thief or taken back, never both.
    EXPECT_EQ(stats.designated() + stats.taken_back(), 2u) << "run " << run;
    EXPECT_EQ(stats.extra_steals(), 0u) << "run " << run << ": worker 1 had planned segments left";
    if (out.a_worker == 1) {
      ++thief_started_a;
      EXPECT_EQ(stats.taken_back(), 1u);
      EXPECT_EQ(stats.per_worker.at(1).designated, 1u);
    } else {
      EXPECT_EQ(stats.taken_back(), 2u);
    }
    const auto& report = s.history().back();
    EXPECT_EQ(report.taken_back(), stats.taken_back()) << "run " << run;
    EXPECT_FALSE(report.diverged()) << report.reason;
  }
  // Informational: how often the thief got to A before the root reached sync.
  std::printf("relws take-back: worker 1 started A in %d of %d runs\n", thief_started_a, runs);
}

}  // namespace
