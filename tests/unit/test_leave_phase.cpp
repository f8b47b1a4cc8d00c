// A helper its policy lets leave a phase (scheduling_policy::lets_leave)
// leaves at once: it takes no more work in that phase, whatever is left is
// run by the caller, and it joins the next phase as usual.
//
// The policy steals at random and lets a helper leave once it has ended one
// segment. Each phase the root spawns X and waits until a helper has run X
// and been let go; then it spawns four more tasks and leaves them on its
// deque for 2 ms before its sync. A helper that stayed would steal them (it
// spins on that deque meanwhile); one that left cannot, so the caller runs
// all four.

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "cws/cws.hpp"
#include "support/own_policy.hpp"
#include "support/runtime_fixture.hpp"

namespace {

class leaves_after_one_segment final : public cws::scheduling_policy {
 public:
  std::string_view name() const noexcept override { return "test-leaves-after-one-segment"; }
  void begin_phase(const cws::phase_info&) override {
    for (auto& n : ended) n.store(0, std::memory_order_relaxed);
    let_go.store(false);
  }
  bool routes_spawns() const noexcept override { return true; }  // the core asks lets_leave only then
  void segment_end(unsigned worker) override { ended[worker].fetch_add(1, std::memory_order_relaxed); }
  bool lets_leave(unsigned worker) noexcept override {
    if (ended[worker].load(std::memory_order_relaxed) == 0) return false;
    let_go.store(true);
    return true;
  }
  cws::task_handle find_work(cws::worker_view& v) override {
    const unsigned victim = static_cast<unsigned>(v.random() % v.workers());
    return victim == v.self() ? nullptr : v.steal(victim);
  }
  std::array<std::atomic<unsigned>, 2> ended{};
  std::atomic<bool> let_go{false};
};

TEST(leave_phase, a_helper_let_go_takes_no_more_work_and_joins_the_next_phase) {
  cws::runtime rt(cws::test::config(2));
  auto [s, own] =
      cws::test::schedule_under_own_policy<leaves_after_one_segment>(rt, "leave", "test-leaves-after-one-segment");
  leaves_after_one_segment* const policy = &own;

  for (int run = 0; run < 20; ++run) {
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<bool> x_done{false};
    std::atomic<int> late_on_helper{0}, late_ran{0};
    bool x_stolen = false, helper_let_go = false;
    const cws::run_report& r = rt.run(s, [&] {
      cws::spawn([&] { x_done = std::this_thread::get_id() != caller; });
      x_stolen = cws::test::wait_for([&] { return x_done.load(); });
      helper_let_go = x_stolen && cws::test::wait_for([&] { return policy->let_go.load(); });
      for (int k = 0; k < 4; ++k)
        cws::spawn([&] {
          ++late_ran;
          if (std::this_thread::get_id() != caller) ++late_on_helper;
        });
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      cws::sync();
    });
    ASSERT_TRUE(x_stolen) << "run " << run << ": no helper ran X";
    ASSERT_TRUE(helper_let_go) << "run " << run << ": the helper that ran X was never asked whether it may leave";
    EXPECT_EQ(late_ran.load(), 4) << "run " << run;
    EXPECT_EQ(late_on_helper.load(), 0) << "run " << run << ": a helper let go of the phase stole from it";
    EXPECT_EQ(r.per_worker.at(1).segments, 1u) << "run " << run << ": X only";
    EXPECT_EQ(r.workers_joined, 2u) << "run " << run;
  }
}

}  // namespace
