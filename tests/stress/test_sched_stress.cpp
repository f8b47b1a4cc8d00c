// The scheduler under stress: many phases with different seeds, idle modes,
// worker counts (including 4 and 8 virtual cores on this 2-core machine),
// mixing recursion, parallel_for, finish and exceptions; results must always
// match the serial ones.

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"

namespace {

struct stress_case {
  const char* name;
  unsigned workers;
  std::string topology;
  cws::idle_mode idle;
};

class sched_stress : public ::testing::TestWithParam<stress_case> {};

TEST_P(sched_stress, mixed_workload_many_phases_and_seeds) {
  const stress_case& c = GetParam();
  for (std::uint64_t seed : {1ull, 2ull, 0xdeadbeefull}) {
    auto cfg = cws::test::config(c.workers, c.topology);
    cfg.idle = c.idle;
    cfg.seed = seed;
    cws::runtime rt(cfg);
    auto& s = rt.schedule("mixed");
    for (int phase = 0; phase < 300; ++phase) {
      const unsigned n = 12 + static_cast<unsigned>(phase % 9);
      std::uint64_t f = 0;
      std::vector<std::atomic<int>> hits(3000 + phase);
      std::atomic<int> caught{0};
      rt.run(s, [&] {
        cws::spawn([&] { f = cws::test::fib(n); });
        cws::parallel_for(
            0, hits.size(), [&](std::size_t i) { hits[i].fetch_add(1); }, 1 + phase % 17);
        cws::finish([&] {
          cws::spawn([&] {
            try {
              cws::spawn([] { throw std::runtime_error("boom"); });
              cws::sync();
            } catch (const std::runtime_error&) {
              caught.fetch_add(1);
            }
          });
        });
      });
      ASSERT_EQ(f, cws::test::serial_fib(n)) << c.name << " seed " << seed << " phase " << phase;
      for (auto& h : hits) ASSERT_EQ(h.load(), 1) << c.name << " seed " << seed << " phase " << phase;
      ASSERT_EQ(caught.load(), 1);
    }
    EXPECT_EQ(s.iterations(), 300u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    configs, sched_stress,
    ::testing::Values(stress_case{"two_adaptive", 2, "", cws::idle_mode::adaptive},
                      stress_case{"two_sleep", 2, "", cws::idle_mode::sleep},
                      stress_case{"two_spin", 2, "", cws::idle_mode::spin},
                      stress_case{"four_virtual", 0, cws::test::four_cores, cws::idle_mode::adaptive},
                      stress_case{"eight_virtual", 0, cws::test::eight_cores, cws::idle_mode::sleep}),
    [](const auto& p) { return std::string(p.param.name); });

TEST(sched_stress, many_short_phases_back_to_back) {
  cws::runtime rt(cws::test::config(0, cws::test::four_cores));
  std::uint64_t total = 0;
  for (int i = 0; i < 20000; ++i) rt.run([&] { total += cws::test::fib(8); });
  EXPECT_EQ(total, 20000 * cws::test::serial_fib(8));
}

}  // namespace
