// Black-box (public headers only): the random policy actually steals.
//
// Nothing here depends on how the OS schedules the workers. A phase whose
// root waits until its child has started can only finish when worker 1 steals
// that child, so every count of it is exact (worker 1 gets a CPU eventually,
// however loaded the machine). Without work stealing that phase never ends
// (ctest's timeout). The fib(25) phases check that the per-phase figures
// agree with each other, whether or not their runs happened to steal.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "cws/core.hpp"
#include "support/runtime_fixture.hpp"

namespace {

TEST(steals_happen, a_task_only_a_thief_can_start_is_stolen) {
  cws::runtime rt(cws::test::config(2));
  ASSERT_EQ(rt.workers(), 2u);
  auto& s = rt.schedule("forced", cws::policy::random);
  for (int run = 0; run < 3; ++run) {
    std::atomic<bool> started{false};
    std::atomic<unsigned> ran_on{99};
    const cws::phase_stats& st = rt.run(s, [&] {
      cws::spawn([&] {
        ran_on = cws::this_worker();
        started = true;
      });
      while (!started.load()) std::this_thread::yield();  // worker 0 is busy here: only a thief can start it
      cws::sync();
    });
    EXPECT_EQ(ran_on.load(), 1u) << "run " << run;
    EXPECT_EQ(st.steals(), 1u) << "run " << run;
    EXPECT_EQ(st.per_worker.at(1).steals, 1u) << "run " << run;
    EXPECT_EQ(st.per_worker.at(1).tasks, 1u) << "run " << run;
    EXPECT_EQ(st.segments(), 2u) << "the root's segment and the stolen one";
    EXPECT_EQ(st.tasks(), 2u);
    EXPECT_EQ(st.designated(), 0u);
  }
}

TEST(steals_happen, fib_phases_count_their_steals_consistently) {
  cws::runtime rt(cws::test::config(2));
  auto& s = rt.schedule("fib", cws::policy::random);
  const std::uint64_t expected = cws::test::serial_fib(25);
  for (int run = 0; run < 5; ++run) {
    std::uint64_t result = 0;
    const cws::phase_stats& st = rt.run(s, [&] { result = cws::test::fib(25); });
    ASSERT_EQ(result, expected) << "run " << run;
    // One segment per steal plus the root's (random policy: no mailboxes).
    EXPECT_EQ(st.segments(), st.steals() + 1) << "run " << run;
    EXPECT_EQ(st.designated(), 0u);
    EXPECT_EQ(st.tasks(), cws::test::fib_spawns(25) + 1) << "every spawn and the root ran once";
    EXPECT_EQ(st.per_worker.at(1).tasks > 0, st.per_worker.at(1).steals > 0)
        << "worker 1 runs tasks exactly when it stole (run " << run << ")";
  }
}

}  // namespace
