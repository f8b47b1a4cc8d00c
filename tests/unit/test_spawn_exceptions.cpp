// An exception leaving a function is a return: children that use its locals
// must be joined on that path too. cws::scope (and cws::finish) join on the
// way out; an exception that leaves a task while children it spawned are
// still pending stops the program with one line naming the rule (it used to
// hang, or corrupt the runtime and be reported as a stack overflow).
//
// Nothing here depends on timing: a "stolen" child is one the parent waits to
// see running before it throws, a "not stolen" one runs on a 1-worker runtime,
// and a child that must still be pending at the throw waits for a flag that
// only comes after it.

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"

namespace {

using cws::test::config;

struct boom : std::runtime_error {
  boom() : std::runtime_error("continuation failed") {}
};

// Set by a child once it runs; the "stolen" cases wait for it before throwing.
std::atomic<bool> child_running{false};
// Set just before a throw; a stolen child waits for it, so it is still
// running (and then uses the local) while the exception unwinds.
std::atomic<bool> throwing{false};

void reset_flags() {
  child_running = false;
  throwing = false;
}

void fail() { throw boom{}; }  // the call in `spawn(...); f(); sync();` that throws

// The README pattern made safe: the scope, opened before the locals the child
// uses, joins it while the exception passes, so `local` is alive until the
// child has written it. `stolen`: the child runs on another worker meanwhile.
void scoped_continuation_throws(bool stolen, std::atomic<int>& completed) {
  cws::scope s;
  int local = 0;
  cws::spawn([&local, &completed, stolen] {
    child_running = true;
    if (stolen)
      while (!throwing.load()) std::this_thread::yield();
    local = 42;
    completed.fetch_add(local == 42 ? 1 : 100);
  });
  if (stolen)
    while (!child_running.load()) std::this_thread::yield();
  throwing = true;
  fail();
  s.wait();  // not reached: the destructor joins instead
}

struct spawn_exceptions : ::testing::TestWithParam<unsigned> {};

TEST_P(spawn_exceptions, scope_joins_the_child_when_the_continuation_throws) {
  const bool stolen = GetParam() > 1;
  cws::runtime rt(config(GetParam()));
  for (int round = 0; round < 10; ++round) {
    reset_flags();
    std::atomic<int> completed{0};
    EXPECT_THROW(rt.run([&] { scoped_continuation_throws(stolen, completed); }), boom);
    EXPECT_EQ(completed.load(), 1) << "round " << round;
  }
  std::uint64_t r = 0;
  rt.run([&] { r = cws::test::fib(18); });
  EXPECT_EQ(r, cws::test::serial_fib(18));
}

// The same from a task that is not the root: the exception reaches the sync
// that waits for that task, and the phase goes on.
TEST_P(spawn_exceptions, scope_in_a_child_task_hands_the_exception_to_sync) {
  const bool stolen = GetParam() > 1;
  cws::runtime rt(config(GetParam()));
  reset_flags();
  std::atomic<int> completed{0};
  bool caught = false;
  rt.run([&] {
    cws::scope outer;
    cws::spawn([&] { scoped_continuation_throws(stolen, completed); });
    try {
      outer.wait();
    } catch (const boom&) {
      caught = true;
    }
  });
  EXPECT_TRUE(caught);
  EXPECT_EQ(completed.load(), 1);
}

// Scopes nested in two functions: each joins its own children on the way
// out, innermost first; a child's own exception met during the unwinding is
// dropped, the first one goes on.
void inner(std::atomic<int>& completed) {
  cws::scope s;
  int local = 0;
  cws::spawn([&] {
    local = 1;
    completed.fetch_add(local);
  });
  cws::spawn([] { throw std::logic_error("second failure"); });
  fail();
}
void outer(std::atomic<int>& completed) {
  cws::scope s;
  int local = 0;
  cws::spawn([&] {
    local = 10;
    completed.fetch_add(local);
  });
  {
    cws::scope mid;
    cws::spawn([&] { completed.fetch_add(100); });
    inner(completed);
  }
}

TEST_P(spawn_exceptions, nested_scopes_join_everything_and_the_first_exception_goes_on) {
  cws::runtime rt(config(GetParam()));
  for (int round = 0; round < 10; ++round) {
    std::atomic<int> completed{0};
    EXPECT_THROW(rt.run([&] { outer(completed); }), boom);
    EXPECT_EQ(completed.load(), 111) << "round " << round;
  }
}

// finish is the other safe form: it catches the body's exception, joins, rethrows.
TEST_P(spawn_exceptions, finish_joins_the_child_when_its_body_throws) {
  cws::runtime rt(config(GetParam()));
  std::atomic<int> completed{0};
  EXPECT_THROW(rt.run([&] {
    int local = 0;
    cws::finish([&] {
      cws::spawn([&] {
        local = 7;
        completed.fetch_add(1);
      });
      throw boom{};
    });
  }),
               boom);
  EXPECT_EQ(completed.load(), 1);
}

// parallel_for joins the halves a leaf's task spawned before the body threw.
TEST_P(spawn_exceptions, a_parallel_for_body_exception_reaches_run) {
  cws::runtime rt(config(GetParam()));
  for (int round = 0; round < 5; ++round)
    EXPECT_THROW(rt.run([&] {
      cws::parallel_for(
          0, 4096, [](std::size_t) { throw boom{}; }, 1);
    }),
                 boom);
  std::uint64_t r = 0;
  rt.run([&] { r = cws::test::fib(15); });
  EXPECT_EQ(r, cws::test::serial_fib(15));
}

INSTANTIATE_TEST_SUITE_P(workers, spawn_exceptions, ::testing::Values(1u, 2u),
                         [](const auto& p) { return std::to_string(p.param) + "_workers"; });

// ---------------------------------------------------------------- without a scope

constexpr const char* rule_line =
    "cws: error: an exception left a task while 1 of the children it spawned was still pending; a function whose "
    "children use its locals must join them on every path out, exceptions included: use cws::scope";

// The README's first example before the fix: spawn, a throwing call, sync.
// A stolen child spins until the throw (and so is pending at the task
// boundary); a child on a 1-worker runtime sits in the deque.
void bare_continuation_throws(bool stolen) {
  int local = 0;
  cws::spawn([&local, stolen] {
    child_running = true;
    if (stolen)
      while (true) std::this_thread::yield();  // pending for good: the process ends first
    local = 42;
  });
  if (stolen)
    while (!child_running.load()) std::this_thread::yield();
  fail();
  cws::sync();  // not reached
}

class spawn_exceptions_death : public ::testing::TestWithParam<unsigned> {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_P(spawn_exceptions_death, the_root_task_throwing_with_a_pending_child_names_the_rule) {
  const bool stolen = GetParam() > 1;
  EXPECT_DEATH(
      {
        cws::runtime rt(config(GetParam()));
        rt.run([&] { bare_continuation_throws(stolen); });
      },
      rule_line);
}

TEST_P(spawn_exceptions_death, a_child_task_throwing_with_a_pending_child_names_the_rule) {
  const bool stolen = GetParam() > 1;
  EXPECT_DEATH(
      {
        cws::runtime rt(config(GetParam()));
        rt.run([&] {
          cws::spawn([stolen] { bare_continuation_throws(stolen); });
          cws::sync();
        });
      },
      rule_line);
}

// Children that capture only values are no exception to the rule: whether one
// is still pending when the exception passes is timing, so it is joined on
// that path too (here it is pending for sure: 1 worker, never synced).
TEST(spawn_exceptions_death_rule, holds_for_children_that_capture_values) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        cws::runtime rt(config(1));
        rt.run([] {
          cws::spawn([] {});
          cws::spawn([] {});
          throw boom{};
        });
      },
      "an exception left a task while 2 of the children it spawned were still pending.*"
      "\\[the exception: continuation failed\\]");
}

INSTANTIATE_TEST_SUITE_P(workers, spawn_exceptions_death, ::testing::Values(1u, 2u),
                         [](const auto& p) { return std::to_string(p.param) + "_workers"; });

// ---------------------------------------------------------------- the stack guard

// A fault in the guard zone of a worker's stack while the stack pointer is
// far above it is a wild pointer, not an overflow: the guard passes it on
// (the default action: SIGSEGV) instead of blaming the stack and CWS_STACK_KIB.
// This is how the corrupted runtime above used to be reported as "stack
// overflow at task nesting depth 1". The old report ended in SIGABRT; now the
// process dies of the fault itself (or of a sanitizer's report of it).
constexpr std::size_t guard_bytes = 64 * 1024;
constexpr std::size_t stack_bytes = 4 * 1024 * 1024;

void* fault_in_guard_zone(void*) {
  cws::runtime rt(config(1));  // worker 0: this thread
  rt.run([] {
    pthread_attr_t attr;
    void* lo = nullptr;
    std::size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    pthread_attr_getstack(&attr, &lo, &size);
    pthread_attr_destroy(&attr);
    *(static_cast<volatile char*>(lo) - 16) = 1;  // our guard page; the stack pointer is megabytes above
  });
  return nullptr;
}

TEST(stack_guard, a_wild_write_below_a_shallow_stack_is_not_called_an_overflow) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        // A stack of our own with a PROT_NONE guard right below it, so the
        // faulting address is known to lie in the guard zone.
        void* mem =
            mmap(nullptr, guard_bytes + stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED || mprotect(mem, guard_bytes, PROT_NONE) != 0) std::_Exit(0);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstack(&attr, static_cast<char*>(mem) + guard_bytes, stack_bytes);
        pthread_t t;
        if (pthread_create(&t, &attr, fault_in_guard_zone, nullptr) == 0) pthread_join(t, nullptr);
        std::_Exit(0);  // not reached
      },
      [](int status) { return status != 0 && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT); }, "");
}

}  // namespace
