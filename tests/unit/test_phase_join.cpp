// A helper takes part in a phase only if it joins while the phase is open
// (scheduler.hpp, Joining): a phase the caller finishes alone does not wait
// for a helper the OS has not run, that helper reports nothing for it, and it
// joins later phases again.
//
// The helper is held where no scheduling can free it: a signal handler on its
// thread spins until the test lets it go. While it is held, the caller runs
// phases alone; with the old protocol (the caller waits for every helper to
// pass through each phase) the first of them would never return, so a
// watchdog lets the helper go after a deadline and the test fails instead of
// hanging.
//
// Not in the tsan label: ThreadSanitizer defers asynchronous signals to its
// own safe points, which a helper spinning in its wait for the next phase may
// not reach.

#include <gtest/gtest.h>

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"

namespace {

using cws::test::wait_for;

std::atomic<bool> held{false};     // the helper is inside the handler
std::atomic<bool> release{false};  // the handler may return

void hold_here(int) {
  held.store(true);
  while (!release.load()) {
  }
}

// A phase whose child only worker 1 can run: the root does not reach its
// sync before another worker started the child. Returns that worker's
// thread, or nothing when no other worker came within the deadline.
struct stolen_child {
  bool stolen = false;
  pthread_t thread{};
  std::uint64_t helper_segments = 0;  // worker 1's, from the phase's report
};
stolen_child run_phase_needing_a_helper(cws::runtime& rt, cws::schedule& s) {
  std::atomic<bool> started{false};
  pthread_t thread{};
  bool came = false;
  const cws::run_report& r = rt.run(s, [&] {
    cws::spawn([&] {
      thread = pthread_self();
      started = true;
    });
    came = wait_for([&] { return started.load(); });
    cws::sync();
  });
  return {came, thread, r.per_worker.at(1).segments};
}

TEST(PhaseJoin, ACallerFinishesItsPhasesAloneWhileAHelperCannotRunAndTheHelperJoinsLater) {
  cws::runtime rt(cws::test::config(2));
  auto& s = rt.schedule("join");
  const stolen_child first = run_phase_needing_a_helper(rt, s);
  ASSERT_TRUE(first.stolen) << "worker 1 never took the child";
  ASSERT_EQ(first.helper_segments, 1u);

  struct sigaction action {};
  action.sa_handler = &hold_here;
  sigemptyset(&action.sa_mask);
  struct sigaction previous {};
  ASSERT_EQ(sigaction(SIGUSR1, &action, &previous), 0);
  held = false;
  release = false;
  ASSERT_EQ(pthread_kill(first.thread, SIGUSR1), 0);
  ASSERT_TRUE(wait_for([] { return held.load(); })) << "the helper never ran the signal handler";

  // The watchdog frees the helper if the phases below wait for it.
  std::atomic<bool> phases_done{false};
  std::atomic<bool> watchdog_fired{false};
  std::thread watchdog([&] {
    if (!wait_for([&] { return phases_done.load(); })) {
      watchdog_fired = true;
      release = true;
    }
  });
  constexpr int alone = 50;
  int helper_segments = 0;
  std::uint64_t caller_tasks = 0;
  for (int i = 0; i < alone; ++i) {
    const cws::run_report& r = rt.run(s, [] {
      for (int k = 0; k < 8; ++k) cws::spawn([] {});
      cws::sync();
    });
    helper_segments += static_cast<int>(r.per_worker.at(1).segments + r.per_worker.at(1).tasks);
    caller_tasks += r.per_worker.at(0).tasks;
  }
  phases_done = true;
  watchdog.join();
  EXPECT_FALSE(watchdog_fired) << "a phase waited for a helper that could not run";
  EXPECT_EQ(helper_segments, 0) << "a helper that never ran reported work";
  EXPECT_EQ(caller_tasks, alone * 9u) << "the caller ran the root and its 8 children in every phase";

  release = true;
  // The helper, free again, joins the next phase that needs it.
  const stolen_child after = run_phase_needing_a_helper(rt, s);
  EXPECT_TRUE(after.stolen) << "the helper did not join a phase after it was held";
  EXPECT_EQ(after.helper_segments, 1u);
  ASSERT_EQ(sigaction(SIGUSR1, &previous, nullptr), 0);
}

}  // namespace
