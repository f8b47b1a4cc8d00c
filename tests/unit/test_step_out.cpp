// A helper that finds nothing to steal anywhere steps out of its phase
// (scheduler.hpp, Stepping out): it stops asking its policy for work, comes
// back in when work shows up, and the phase's report still counts all it
// did, its touches sorted, and the time it spent out as idle time.
//
// The test policy neither routes nor places (so its helpers may step out),
// lets worker 1 steal from worker 0 only, and counts each worker's calls of
// find_work. Each phase the root spawns X and waits until the helper ran it,
// then holds the phase for a window with nothing in any deque.

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "cws/cws.hpp"
#include "support/own_policy.hpp"
#include "support/runtime_fixture.hpp"

namespace {

using cws::test::wait_for;
constexpr auto window = std::chrono::milliseconds(20);
constexpr double window_s = 0.020;

class counting_stealer final : public cws::scheduling_policy {
 public:
  std::string_view name() const noexcept override { return "test-counting-stealer"; }
  cws::task_handle find_work(cws::worker_view& v) override {
    calls[v.self()].fetch_add(1, std::memory_order_relaxed);
    return v.self() == 1 ? v.steal(0) : nullptr;
  }
  std::array<std::atomic<std::uint64_t>, 2> calls{};
};

struct fixture {
  cws::runtime rt{cws::test::config(2)};
  cws::test::own_policy_schedule<counting_stealer> own =
      cws::test::schedule_under_own_policy<counting_stealer>(rt, "step-out", "test-counting-stealer");
  std::vector<char> buffer = std::vector<char>(4 * 4096);
  const char* page(int i) const { return buffer.data() + i * 4096; }
};

TEST(step_out, an_idle_helper_stops_asking_for_work_and_comes_back_when_work_shows_up) {
  fixture f;
  for (int run = 0; run < 5; ++run) {
    std::atomic<int> x_on{-1}, y_on{-1};
    bool x_ran = false, y_on_helper = false;
    std::uint64_t calls_in_window = 0;
    const cws::run_report& r = f.rt.run(f.own.schedule, [&] {
      cws::spawn([&] {
        cws::touch(f.page(2), 4096);
        x_on = static_cast<int>(cws::this_worker());
      });
      x_ran = wait_for([&] { return x_on.load() >= 0; });
      const std::uint64_t before = f.own.policy.calls[1].load();
      std::this_thread::sleep_for(window);  // no deque holds anything meanwhile
      calls_in_window = f.own.policy.calls[1].load() - before;
      cws::spawn([&] {
        cws::touch(f.page(0), 4096);  // below X's page and not next to it: the log must be sorted again
        y_on = static_cast<int>(cws::this_worker());
      });
      y_on_helper = wait_for([&] { return y_on.load() >= 0; });  // the caller does not take Y back
      cws::sync();
    });
    ASSERT_TRUE(x_ran) << "run " << run << ": no helper took X";
    ASSERT_EQ(x_on.load(), 1) << "run " << run;
    // Its last look found nothing: it was out for the whole window (at most
    // the one failed pass of a look that began before X ended).
    EXPECT_LE(calls_in_window, 1u) << "run " << run << ": the helper kept asking for work while nothing was there";
    EXPECT_TRUE(y_on_helper) << "run " << run << ": the helper did not come back in for Y";
    EXPECT_EQ(y_on.load(), 1) << "run " << run;
    ASSERT_EQ(r.per_worker.size(), 2u);
    EXPECT_EQ(r.workers_joined, 2u) << "run " << run;
    EXPECT_EQ(r.per_worker[1].segments, 2u) << "run " << run << ": X and Y";
    EXPECT_EQ(r.per_worker[1].steals, 2u) << "run " << run;
    EXPECT_GE(r.per_worker[1].idle_s, window_s) << "run " << run << ": the window out counts as idle time";
    EXPECT_LE(r.per_worker[1].idle_s, r.wall_s) << "run " << run;
    const auto& touched = f.own.schedule.touches().per_worker.at(1);
    const std::vector<cws::byte_range> expected{
        {reinterpret_cast<std::uintptr_t>(f.page(0)), reinterpret_cast<std::uintptr_t>(f.page(1))},
        {reinterpret_cast<std::uintptr_t>(f.page(2)), reinterpret_cast<std::uintptr_t>(f.page(3))}};
    EXPECT_EQ(touched, expected) << "run " << run << ": Y's page, then X's, sorted";
  }
}

TEST(step_out, a_phase_that_ends_with_its_helper_out_counts_the_rest_as_idle) {
  fixture f;
  for (int run = 0; run < 5; ++run) {
    std::atomic<int> x_on{-1};
    bool x_ran = false;
    const cws::run_report& r = f.rt.run(f.own.schedule, [&] {
      cws::spawn([&] { x_on = static_cast<int>(cws::this_worker()); });
      x_ran = wait_for([&] { return x_on.load() >= 0; });
      std::this_thread::sleep_for(window);
    });
    ASSERT_TRUE(x_ran) << "run " << run;
    ASSERT_EQ(x_on.load(), 1) << "run " << run;
    EXPECT_EQ(r.workers_joined, 2u) << "run " << run;
    EXPECT_EQ(r.per_worker[1].segments, 1u) << "run " << run;
    EXPECT_EQ(r.per_worker[1].tasks, 1u) << "run " << run;
    EXPECT_GE(r.per_worker[1].idle_s, window_s) << "run " << run << ": the end of the phase spent out is idle time";
    EXPECT_LE(r.per_worker[1].idle_s, r.wall_s) << "run " << run;
  }
}

}  // namespace
