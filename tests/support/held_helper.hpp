#pragma once
// A helper thread held where no scheduling can free it, for tests of what the
// caller does while a helper cannot run (it is absent from the phases: see
// docs/scheduler.md, Joining). A SIGUSR1 handler on the helper's thread spins
// until release(), or until a watchdog releases it after wait_for's deadline
// (a phase that waited for the held helper would otherwise hang the test: it
// fails on watchdog_fired() instead).
//
// Not for ThreadSanitizer builds: TSan defers asynchronous signals to its own
// safe points, which a helper spinning in its wait for the next phase may not
// reach. One held_helper at a time (the handler's flags are process-wide).

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"

namespace cws::test {

// The thread of the worker that ran a phase's only child, which only another
// worker can run: the root does not reach its sync before someone started
// the child. `stolen` is false when nobody came within wait_for's deadline.
struct stolen_child {
  bool stolen = false;
  pthread_t thread{};
  std::uint64_t helper_segments = 0;  // worker 1's, from the phase's report
  unsigned workers_joined = 0;        // from the phase's report
};

inline stolen_child run_phase_needing_a_helper(cws::runtime& rt, cws::schedule& s) {
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
  return {came, thread, r.per_worker.at(1).segments, r.workers_joined};
}

class held_helper {
 public:
  held_helper() = default;
  held_helper(const held_helper&) = delete;
  held_helper& operator=(const held_helper&) = delete;
  ~held_helper() {
    release();
    if (watchdog_.joinable()) watchdog_.join();
    if (installed_) sigaction(SIGUSR1, &previous_, nullptr);
  }

  // Sends the signal to `thread` and waits until it runs the handler; false
  // when the handler could not be installed or the thread never got there.
  bool hold(pthread_t thread) {
    held().store(false);
    released().store(false);
    struct sigaction action {};
    action.sa_handler = &spin_here;
    sigemptyset(&action.sa_mask);
    if (!installed_ && sigaction(SIGUSR1, &action, &previous_) != 0) return false;
    installed_ = true;
    if (pthread_kill(thread, SIGUSR1) != 0) return false;
    if (!wait_for([] { return held().load(); })) return false;
    watchdog_ = std::thread([this] {
      if (wait_for([] { return released().load(); })) return;
      fired_.store(true);
      release();
    });
    return true;
  }
  static void release() noexcept { released().store(true); }
  // Whether the watchdog had to let the helper go.
  bool watchdog_fired() const noexcept { return fired_.load(); }

 private:
  static std::atomic<bool>& held() noexcept {  // the helper is inside the handler
    static std::atomic<bool> flag{false};
    return flag;
  }
  static std::atomic<bool>& released() noexcept {  // the handler may return
    static std::atomic<bool> flag{false};
    return flag;
  }
  static void spin_here(int) {
    held().store(true);
    while (!released().load()) {
    }
  }

  struct sigaction previous_ {};
  bool installed_ = false;
  std::atomic<bool> fired_{false};
  std::thread watchdog_;
};

}  // namespace cws::test
