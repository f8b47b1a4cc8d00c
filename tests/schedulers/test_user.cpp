// User mappings: designate_after_next_spawn under the `user` policy, the
// parallel_for_owned mapping built on it, and designations nested inside
// designated (stolen) tasks.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "schedulers/replay_support.hpp"

namespace {

namespace st = cws::steal_tree;

// Two levels of designations: the root hands task i to worker i % P, and each
// of those hands its own children to (i + k) % P. Every task checks where it
// runs; the audited tree agrees.
TEST(user_policy, designations_are_honoured_including_nested_ones) {
  for (unsigned workers : {2u, 4u, 8u}) {
    cws::runtime rt(cws::test::audited(workers, workers == 2   ? ""
                                                : workers == 4 ? cws::test::four_cores
                                                               : cws::test::eight_cores));
    auto& s = rt.schedule("user", cws::policy::user);
    const unsigned p = rt.workers();
    constexpr unsigned outer = 6, inner = 5;
    std::vector<unsigned> ran(outer * (inner + 1), 99);
    for (int it = 0; it < 8; ++it) {
      std::fill(ran.begin(), ran.end(), 99);
      rt.run(s, [&] {
        for (unsigned i = 0; i < outer; ++i) {
          cws::designateAfterNextSpawn(i % p);
          cws::spawn([&, i] {
            ran[i * (inner + 1)] = cws::this_worker();
            for (unsigned k = 0; k < inner; ++k) {
              cws::designate_after_next_spawn((i + k + 1) % p);
              cws::spawn([&, i, k] { ran[i * (inner + 1) + k + 1] = cws::this_worker(); });
            }
          });
        }
      });
      for (unsigned i = 0; i < outer; ++i) {
        EXPECT_EQ(ran[i * (inner + 1)], i % p) << "outer task " << i << ", " << p << " workers";
        for (unsigned k = 0; k < inner; ++k)
          EXPECT_EQ(ran[i * (inner + 1) + k + 1], (i + k + 1) % p)
              << "task " << i << "." << k << ", " << p << " workers";
      }
      const auto& r = s.history().back();
      EXPECT_EQ(r.ran_as, cws::ran_as::user);
      EXPECT_EQ(r.extra_steals(), 0u) << "user runs like stuws: nothing moves undesignated";
      EXPECT_FALSE(r.diverged()) << r.reason;
    }
    // The audit agrees with what the tasks saw, and the designations are the template.
    const st::tree& t = st::recorder_of(rt)->latest("user")->steals;
    for (const st::audit_record& a : t.audit) EXPECT_EQ(a.worker, t.segments[a.segment].worker);
    const auto& state = cws::schedulers::store_of(rt).at("user");
    ASSERT_TRUE(state.templ);
    EXPECT_EQ(state.templ->segments.size(), t.segments.size());
  }
}

// A designation belongs to the task that made it: children that run (and
// spawn) before its next spawn do not consume it; a finish scope opened
// before the spawn carries it in.
TEST(user_policy, designation_applies_to_the_calling_tasks_next_spawn) {
  cws::runtime rt(cws::test::config(2));
  auto& s = rt.schedule("user", cws::policy::user);
  for (int it = 0; it < 20; ++it) {
    std::atomic<unsigned> grandchild_worker{99}, designated_worker{99}, in_finish_worker{99};
    rt.run(s, [&] {
      cws::spawn([&] {  // a local child that spawns its own child
        cws::spawn([&] { grandchild_worker = cws::this_worker(); });
      });
      cws::designate_after_next_spawn(1);
      cws::sync();  // runs the child above, whose spawn must not take the designation
      cws::spawn([&] { designated_worker = cws::this_worker(); });
      cws::sync();
      cws::designate_after_next_spawn(1);
      cws::finish([&] { cws::spawn([&] { in_finish_worker = cws::this_worker(); }); });
    });
    EXPECT_EQ(grandchild_worker.load(), 0u) << "iteration " << it;
    EXPECT_EQ(designated_worker.load(), 1u) << "iteration " << it;
    EXPECT_EQ(in_finish_worker.load(), 1u) << "iteration " << it;
  }
}

TEST(user_policy, parallel_for_owned_gives_openmp_static_ownership) {
  cws::runtime rt(cws::test::config(4, cws::test::four_cores));
  auto& s = rt.schedule("owned", cws::policy::user);
  const unsigned p = rt.workers();
  for (std::size_t blocks : {std::size_t{3}, std::size_t{4}, std::size_t{7}, std::size_t{32}, std::size_t{55}}) {
    const std::size_t n = 1000;
    std::vector<unsigned> owner(n, 99);
    std::vector<std::atomic<int>> hits(n);
    rt.run(s, [&] {
      cws::parallel_for_owned(
          0, n,
          [&](std::size_t i) {
            owner[i] = cws::this_worker();
            hits[i].fetch_add(1);
          },
          blocks);
    });
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(hits[i].load(), 1) << i;
      // Index i lies in block b = the largest b with first(b) <= i, first(b) = n * b / blocks.
      std::size_t b = 0;
      while (b + 1 < blocks && n * (b + 1) / blocks <= i) ++b;
      ASSERT_EQ(owner[i], b * p / blocks) << "index " << i << ", " << blocks << " blocks";
    }
  }
}

// Every owner gets its blocks before any block runs: block 0's leaf waits
// until every worker has started a block of its own. The wait is bounded (10 s)
// and only a loop that ran its owners one after the other runs out of it.
// That is what halving the block range did: with 55 blocks on 2 workers the
// middle block is worker 0's, so the first spawned half went undesignated
// into worker 0's deque. Under `user` no other worker may take it, and worker
// 1's blocks waited until worker 0 had run all of its own.
TEST(user_policy, parallel_for_owned_hands_every_owner_its_blocks_before_running_any) {
  using clock = std::chrono::steady_clock;
  for (unsigned workers : {2u, 4u}) {
    cws::runtime rt(cws::test::config(workers, workers == 4 ? cws::test::four_cores : ""));
    auto& s = rt.schedule("owned", cws::policy::user);
    for (std::size_t blocks : {std::size_t{55}, std::size_t{7}, std::size_t{64}}) {
      std::vector<std::atomic<bool>> started(workers);
      std::atomic<bool> all_started{false};
      rt.run(s, [&] {
        cws::parallel_for_range_owned(
            0, blocks,
            [&](std::size_t lo, std::size_t) {
              started[cws::this_worker()].store(true);
              if (lo != 0) return;
              for (const auto until = clock::now() + std::chrono::seconds(10); clock::now() < until;
                   std::this_thread::yield())
                if (std::all_of(started.begin(), started.end(), [](const auto& b) { return b.load(); })) {
                  all_started = true;
                  return;
                }
            },
            blocks);
      });
      EXPECT_TRUE(all_started) << workers << " workers, " << blocks << " blocks: block 0 finished before "
                               << "every owner had started a block";
    }
  }
}

TEST(user_policy, parallel_for_owned_is_a_plain_loop_under_other_policies_and_outside_phases) {
  std::vector<int> v(100, 0);
  cws::parallel_for_owned(0, v.size(), [&](std::size_t i) { v[i] += 1; });
  cws::runtime rt(cws::test::config(2));
  rt.run([&] {
    cws::parallel_for_owned(
        0, v.size(), [&](std::size_t i) { v[i] += 1; }, 10);
  });
  for (int x : v) EXPECT_EQ(x, 2);
}

TEST(user_policy, designating_a_missing_worker_is_an_error) {
  cws::runtime rt(cws::test::config(2));
  auto& s = rt.schedule("bad", cws::policy::user);
  try {
    rt.run(s, [] { cws::designate_after_next_spawn(7); });
    FAIL() << "no error";
  } catch (const cws::error& e) {
    EXPECT_STREQ(e.what(), "cws::designate_after_next_spawn(7): no such worker (this runtime has 2)");
  }
  std::uint64_t result = 0;
  rt.run(s, [&] { result = cws::test::fib(12); });  // still usable
  EXPECT_EQ(result, cws::test::serial_fib(12));
}

}  // namespace
