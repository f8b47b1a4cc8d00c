// How the calling thread of rt.run() is pinned (CWS_PIN_CALLER): pinned as
// worker 0 during every phase; sticky costs one binding call for a whole run
// of phases; and whatever the program does between phases -- start a
// std::thread, an OpenMP team, a TBB arena, or ask for its affinity -- sees
// the CPU set the thread had before cws pinned it.
//
// The OpenMP and TBB checks run in a forked child: their thread pools are
// created once per process, so they must meet cws in a fresh one.

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#ifdef CWS_TEST_HAVE_OPENMP
#include <omp.h>
#endif
#ifdef CWS_TEST_HAVE_TBB
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#endif

#include "caller_binding.hpp"
#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"

namespace {

using cws::test::config;

// The kernel's view, bypassing the interposed sched_getaffinity (which would
// give the pin back): what the thread is bound to right now.
int raw_cpu_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (syscall(SYS_sched_getaffinity, 0, sizeof set, &set) < 0) return -1;
  return CPU_COUNT(&set);
}

int cpu_count_via_libc() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
}

cws::runtime_config with_mode(cws::caller_pinning mode) {
  auto cfg = config(2);
  cfg.pin = true;
  cfg.pin_caller = mode;
  cfg.record = false;
  return cfg;
}

TEST(caller_binding, sticky_pins_once_for_a_run_of_phases) {
  const int full = raw_cpu_count();
  cws::runtime rt(with_mode(cws::caller_pinning::sticky));
  const std::uint64_t before = cws::detail::caller_binding_syscalls();
  int during = 0;
  for (int i = 0; i < 1000; ++i) rt.run([&] { during = raw_cpu_count(); });
  EXPECT_EQ(during, 1) << "worker 0 runs pinned to one PU";
  EXPECT_EQ(raw_cpu_count(), 1) << "sticky: still pinned between phases";
  EXPECT_EQ(cws::detail::caller_binding_syscalls() - before, 1u) << "one pin for 1000 phases";
  (void)full;
}

TEST(caller_binding, phase_mode_pins_and_restores_every_phase) {
  const int full = raw_cpu_count();
  cws::runtime rt(with_mode(cws::caller_pinning::phase));
  const std::uint64_t before = cws::detail::caller_binding_syscalls();
  int during = 0;
  for (int i = 0; i < 10; ++i) rt.run([&] { during = raw_cpu_count(); });
  EXPECT_EQ(during, 1);
  EXPECT_EQ(raw_cpu_count(), full) << "restored after the phase";
  EXPECT_EQ(cws::detail::caller_binding_syscalls() - before, 20u) << "a pin and a restore per phase";
}

TEST(caller_binding, off_never_pins) {
  const int full = raw_cpu_count();
  cws::runtime rt(with_mode(cws::caller_pinning::off));
  const std::uint64_t before = cws::detail::caller_binding_syscalls();
  int during = 0;
  rt.run([&] { during = raw_cpu_count(); });
  EXPECT_EQ(during, full);
  EXPECT_EQ(cws::detail::caller_binding_syscalls(), before);
}

TEST(caller_binding, a_thread_started_between_phases_gets_the_full_cpu_set) {
  const int full = raw_cpu_count();
  cws::runtime rt(with_mode(cws::caller_pinning::sticky));
  rt.run([] {});
  ASSERT_EQ(raw_cpu_count(), 1);
  int child = 0;
  std::thread([&] { child = raw_cpu_count(); }).join();
  EXPECT_EQ(child, full) << "a std::thread inherited worker 0's one-PU binding";
  EXPECT_EQ(raw_cpu_count(), full) << "creating a thread gives the pin back";
  int during = 0;
  rt.run([&] { during = raw_cpu_count(); });
  EXPECT_EQ(during, 1) << "the next phase pins again";
}

TEST(caller_binding, asking_for_the_affinity_sees_the_original_set) {
  const int full = raw_cpu_count();
  cws::runtime rt(with_mode(cws::caller_pinning::sticky));
  rt.run([] {});
  EXPECT_EQ(cpu_count_via_libc(), full);
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof set, &set), 0);
  EXPECT_EQ(CPU_COUNT(&set), full);
}

TEST(caller_binding, the_pin_moves_with_the_calling_thread_and_ends_with_the_runtime) {
  const int full = raw_cpu_count();
  {
    cws::runtime rt(with_mode(cws::caller_pinning::sticky));
    rt.run([] {});
    ASSERT_EQ(raw_cpu_count(), 1);
    int other_during = 0, other_after = 0;
    // Started by a pinned thread: the interposer gives the pin back first.
    std::thread([&] {
      rt.run([&] { other_during = raw_cpu_count(); });
      other_after = raw_cpu_count();
    }).join();
    EXPECT_EQ(other_during, 1);
    EXPECT_EQ(other_after, 1) << "the other thread keeps the sticky pin until it exits";
    rt.run([] {});
    EXPECT_EQ(raw_cpu_count(), 1);
  }
  EXPECT_EQ(raw_cpu_count(), full) << "destroying the runtime restores the caller";
}

// Runs `body` in a forked child; it returns true for success.
void in_child(const std::function<bool()>& body) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) _exit(body() ? 0 : 1);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "see the child's lines above";
}

TEST(caller_binding, an_openmp_team_started_between_phases_spans_every_cpu) {
#ifndef CWS_TEST_HAVE_OPENMP
  GTEST_SKIP() << "built without OpenMP";
#else
  in_child([] {
    const int full = raw_cpu_count();
    cws::runtime rt(with_mode(cws::caller_pinning::sticky));
    for (int i = 0; i < 10; ++i) rt.run([] {});
    std::mutex m;
    std::set<int> counts;
    int team = 0;
#pragma omp parallel
    {
#pragma omp single
      team = omp_get_num_threads();
      const int c = raw_cpu_count();
      std::lock_guard lock(m);
      counts.insert(c);
    }
    const bool ok = team == std::max(1, full) && counts == std::set<int>{full};
    if (!ok)
      std::printf("OpenMP team of %d threads (want %d), CPU counts seen: %zu distinct, first %d\n", team, full,
                  counts.size(), counts.empty() ? -1 : *counts.begin());
    rt.run([] {});
    return ok;
  });
#endif
}

TEST(caller_binding, a_tbb_arena_started_between_phases_spans_every_cpu) {
#ifndef CWS_TEST_HAVE_TBB
  GTEST_SKIP() << "built without TBB";
#else
  in_child([] {
    const int full = raw_cpu_count();
    cws::runtime rt(with_mode(cws::caller_pinning::sticky));
    for (int i = 0; i < 10; ++i) rt.run([] {});
    const int concurrency = tbb::this_task_arena::max_concurrency();
    std::mutex m;
    std::set<int> counts;
    tbb::parallel_for(tbb::blocked_range<int>(0, 1 << 16, 16), [&](const tbb::blocked_range<int>&) {
      const int c = raw_cpu_count();
      std::lock_guard lock(m);
      counts.insert(c);
    });
    const bool ok = concurrency == full && counts == std::set<int>{full};
    if (!ok)
      std::printf("TBB concurrency %d (want %d), CPU counts seen: %zu distinct, first %d\n", concurrency, full,
                  counts.size(), counts.empty() ? -1 : *counts.begin());
    rt.run([] {});
    return ok;
  });
#endif
}

}  // namespace
