// The scheduler under stress: many phases with different seeds, idle modes,
// worker counts (including 4 and 8 virtual cores on this 2-core machine),
// mixing recursion, parallel_for, finish and exceptions; results must always
// match the serial ones.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
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

// Helpers step out of a phase when nothing is left to steal and back in when
// work shows up (scheduler.hpp, Stepping out): the root spawns its tasks a
// few microseconds apart, so that they do so many times a phase, and the
// report must still count every task once and every declared touch, with
// no helper idle for longer than the phase.
TEST(sched_stress, reports_stay_whole_while_helpers_step_out_and_back_in) {
  cws::runtime rt(cws::test::config(0, cws::test::four_cores));
  auto& s = rt.schedule("trickle");
  constexpr std::size_t slot = 128, declared = 64;  // declared ranges never meet
  std::vector<char> buffer(32 * slot);
  const auto at = [&](std::size_t i) { return reinterpret_cast<std::uintptr_t>(buffer.data() + i * slot); };
  for (int phase = 0; phase < 2000; ++phase) {
    const std::size_t k = 1 + static_cast<std::size_t>(phase) % 24;
    std::vector<std::atomic<int>> hits(k);
    const cws::run_report& r = rt.run(s, [&] {
      for (std::size_t i = 0; i < k; ++i) {
        cws::spawn([&, i] {
          cws::touch(buffer.data() + i * slot, declared);
          hits[i].fetch_add(1);
        });
        cws::test::spin_for(std::chrono::microseconds(phase % 4), i);
      }
      cws::sync();
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1) << "phase " << phase;
    std::uint64_t tasks = 0;
    for (const cws::worker_stats& w : r.per_worker) {
      tasks += w.tasks;
      ASSERT_GE(w.idle_s, 0.0) << "phase " << phase;
      ASSERT_LE(w.idle_s, r.wall_s + 1e-6) << "phase " << phase;
    }
    ASSERT_EQ(tasks, k + 1) << "phase " << phase << ": the root and its children, each counted once";
    std::vector<cws::byte_range> all;
    for (const auto& ranges : s.touches().per_worker) {
      for (std::size_t j = 1; j < ranges.size(); ++j)
        ASSERT_LT(ranges[j - 1].end, ranges[j].begin) << "phase " << phase << ": a log left unsorted";
      all.insert(all.end(), ranges.begin(), ranges.end());
    }
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
    ASSERT_EQ(all.size(), k) << "phase " << phase;
    for (std::size_t i = 0; i < k; ++i)
      ASSERT_EQ(all[i], (cws::byte_range{at(i), at(i) + declared})) << "phase " << phase;
  }
}

}  // namespace
