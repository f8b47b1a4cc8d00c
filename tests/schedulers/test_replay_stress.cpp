// Replay under contention, for ThreadSanitizer: mailboxes racing take-backs
// (relws), ordered and unordered replay, designations, evolve switching,
// many seeds and worker counts.

#include <gtest/gtest.h>

#include <string>

#include "schedulers/replay_support.hpp"

namespace {

struct stress_case {
  std::string_view policy;
  unsigned workers;
};

class replay_stress : public ::testing::TestWithParam<stress_case> {};

TEST_P(replay_stress, many_iterations_many_seeds_stay_correct) {
  const auto [policy, workers] = GetParam();
  const std::string topo = workers == 2 ? "" : workers == 4 ? cws::test::four_cores : cws::test::eight_cores;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    cws::runtime_config cfg = cws::test::config(workers, topo);
    cfg.seed = seed;
    cws::runtime rt(cfg);
    auto& s = rt.schedule("fib", policy);
    cws::test::heat_grid grid(64), serial(64);
    auto& h = rt.schedule("heat", policy);
    for (int it = 0; it < 100; ++it) {
      std::uint64_t result = 0;
      const cws::run_report& r = rt.run(s, [&] { result = cws::test::fib(16); });
      ASSERT_EQ(result, cws::test::serial_fib(16)) << "seed " << seed << ", iteration " << it;
      EXPECT_FALSE(r.diverged()) << "seed " << seed << ", iteration " << it << ": " << r.reason;
      rt.run(h, [&] { grid.step(2); });
      serial.serial_step();
    }
    EXPECT_EQ(grid.a, serial.a) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(policies, replay_stress,
                         ::testing::Values(stress_case{"relws", 2}, stress_case{"relws", 4}, stress_case{"relws", 8},
                                           stress_case{"stows", 4}, stress_case{"stuws", 8}, stress_case{"evolve", 4}),
                         [](const auto& p) {
                           return std::string(p.param.policy) + "_" + std::to_string(p.param.workers);
                         });

// Take-back races: every designated task is contested by its spawner's sync.
TEST(take_back, spawner_and_thief_race_for_every_designated_task) {
  cws::runtime rt(cws::test::config(4, cws::test::four_cores));
  auto& s = rt.schedule("contested", cws::policy::relws);
  std::uint64_t total_taken_back = 0, total_designated = 0;
  for (int it = 0; it < 2000; ++it) {
    std::uint64_t result = 0;
    rt.run(s, [&] { result = cws::test::fib(14); });
    ASSERT_EQ(result, cws::test::serial_fib(14));
    const auto& r = s.history().back();
    total_taken_back += r.taken_back();
    total_designated += r.designated();
  }
  // Both outcomes are legal; the sums are printed for the record.
  std::printf("relws fib(14) x2000: %llu designated steals, %llu taken back\n",
              static_cast<unsigned long long>(total_designated), static_cast<unsigned long long>(total_taken_back));
}

}  // namespace

namespace {

// Every tree relws records (take-backs and extra steals included) is a valid
// template: replayed under stows it reproduces its steal points without
// diverging. A taken-back task must therefore run in the place it would have
// had on the deque.
TEST(relws_trees, replay_exactly_under_stows) {
  for (unsigned workers : {2u, 4u, 8u}) {
    const std::string topo = workers == 2 ? "" : workers == 4 ? cws::test::four_cores : cws::test::eight_cores;
    cws::runtime rt(cws::test::config(workers, topo));
    auto& relws = rt.schedule("relws", cws::policy::relws);
    auto& stows = rt.schedule("stows", cws::policy::stows);
    std::uint64_t taken_back = 0;
    for (int it = 0; it < 60; ++it) {
      std::uint64_t result = 0;
      rt.run(relws, [&] { result = cws::test::fib(16); });
      ASSERT_EQ(result, cws::test::serial_fib(16));
      taken_back += relws.history().back().taken_back();
      const cws::steal_tree::tree recorded = cws::steal_tree::recorder_of(rt)->latest("relws")->steals;
      cws::schedulers::store_of(rt).seed("stows", recorded, "the relws run");
      rt.run(stows, [&] { result = cws::test::fib(16); });
      ASSERT_EQ(result, cws::test::serial_fib(16));
      const auto& r = stows.history().back();
      ASSERT_FALSE(r.diverged()) << workers << " workers, iteration " << it << ": " << r.reason;
      cws::test::expect_same_steal_points(recorded, cws::steal_tree::recorder_of(rt)->latest("stows")->steals);
    }
    std::printf("%u workers: %llu tasks taken back over 60 relws runs\n", workers,
                static_cast<unsigned long long>(taken_back));
  }
}

}  // namespace
