// A task chain 100 000 deep (each task spawns one child; the implicit sync at
// its end runs it): it completes when the stacks are large enough, and with a
// small one the process dies with one line naming the knob and the nesting
// depth reached (then the usual abort), never a bare SIGSEGV.
//
// Each case runs in a forked child whose stderr is captured; the phases run
// on a thread the child creates with a chosen stack size, since worker 0 is
// the calling thread and keeps that thread's stack.

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"

namespace {

constexpr unsigned chain_depth = 100000;
std::atomic<unsigned> deepest{0};

void chain(unsigned depth) {
  if (depth == chain_depth) {
    deepest.store(depth, std::memory_order_relaxed);
    return;
  }
  cws::spawn([depth] { chain(depth + 1); });
}

struct child_case {
  unsigned workers;
  std::size_t helper_stack_kib;
  std::size_t caller_stack_kib;
  bool on_helper = false;  // hand the whole chain to worker 1 (policy user: no other stealing)
};

struct child_result {
  bool exited = false;
  int code = -1;
  int signal = 0;
  std::string err;
};

void* run_chain(void* arg) {
  const child_case& c = *static_cast<const child_case*>(arg);
  auto cfg = cws::test::config(c.workers);
  cfg.stack_kib = c.helper_stack_kib;
  cfg.record = c.on_helper;  // the user policy records (its designations form a steal tree)
  cws::runtime rt(cfg);
  if (c.on_helper) {
    rt.run(rt.schedule("chain", "user"), [] {
      cws::designate_after_next_spawn(1);
      cws::spawn([] { chain(1); });
    });
  } else {
    rt.run([] { chain(0); });
  }
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(deepest.load() == chain_depth ? 0 : 1));
}

child_result run_in_child(child_case c) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return {};
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], 2);
    close(pipe_fds[0]);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, c.caller_stack_kib * 1024);
    pthread_t t;
    if (pthread_create(&t, &attr, run_chain, &c) != 0) _exit(3);
    void* rc = nullptr;
    pthread_join(t, &rc);
    _exit(static_cast<int>(reinterpret_cast<std::uintptr_t>(rc)));
  }
  close(pipe_fds[1]);
  child_result r;
  char buf[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;) r.err.append(buf, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exited = WIFEXITED(status);
  r.code = r.exited ? WEXITSTATUS(status) : -1;
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return r;
}

TEST(deep_recursion, a_100000_deep_chain_completes_with_large_stacks) {
  for (const bool on_helper : {false, true})
    for (unsigned workers : {1u, 2u}) {
      if (on_helper && workers < 2) continue;
      // 1 GiB stacks (reserved, not touched).
      const child_result r = run_in_child({workers, 1024 * 1024, 1024 * 1024, on_helper});
      EXPECT_TRUE(r.exited) << workers << " workers: died of signal " << r.signal << ": " << r.err;
      EXPECT_EQ(r.code, 0) << workers << " workers: " << r.err;
    }
}

TEST(deep_recursion, overflowing_the_calling_thread_names_the_depth_and_the_knob) {
  const child_result r = run_in_child({1, 8192, 512});
  EXPECT_EQ(r.signal, SIGABRT) << "want the usual abort after the message; stderr: " << r.err;
  EXPECT_NE(r.err.find("cws: stack overflow on worker 0 at task nesting depth "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("CWS_STACK_KIB"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ulimit -s"), std::string::npos) << r.err;
  // One line, and the depth is a real figure: somewhere in the chain.
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  const auto at = r.err.find("depth ") + 6;
  const unsigned long depth = std::strtoul(r.err.c_str() + at, nullptr, 10);
  EXPECT_GT(depth, 100u);
  EXPECT_LT(depth, chain_depth + 2);
}

TEST(deep_recursion, overflowing_a_helper_names_the_knob) {
  // The chain designated to worker 1 (a helper with a 128 KiB stack) under
  // the user policy, which lets nobody steal from it: it overflows there.
  const child_result r = run_in_child({2, 128, 1024 * 1024, true});
  EXPECT_EQ(r.signal, SIGABRT) << r.err;
  EXPECT_NE(r.err.find("cws: stack overflow on worker 1 at task nesting depth "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("CWS_STACK_KIB=128"), std::string::npos) << r.err;
}

}  // namespace
