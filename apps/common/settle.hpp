#pragma once
// Waiting, between two timed runs, until the process's other threads have
// stopped running: the worker threads of the runtime that ran last.
//
// After a loop, libgomp's threads spin for GOMP_SPINCOUNT before they sleep
// (cws-phases measured one core kept 73 % busy through 10 ms gaps after
// OpenMP phases, against 1-2 % for TBB's workers and cws's helpers). The
// next variant's first phases then share a core with them: its helper on
// that core misses the start of its phases. A strict replay waits for it (a
// designated task has no other taker), and evolve counts the involuntary
// context switches as contention and runs under random stealing (cws-cg
// class W: 32-64 of evolve's 1 875 measured spmv phases without a wait
// between runs). So measure_variants (rounds.hpp) settles after every setup
// and run, outside the timed calls: each run starts with the threads of
// every runtime asleep, as it would in a program that uses one runtime.
//
// The rule: look at the state of every other thread of the process; settled
// after `quiet_looks` looks in a row, `interval` apart, found none running
// or waiting for a core (state R). Not the threads' CPU clocks: the kernel
// adds a running thread's time to them at its scheduler tick (every 4 ms
// here), so a 1 ms window could see a spinning thread use nothing. Only
// this process's threads count (other processes' load does not keep it
// waiting). Threads still running after `give_up` are left to run (settle
// returns false). Where /proc/self/task cannot be read, settle sleeps
// `give_up` / 10 and returns false.

#include <chrono>
#include <optional>

namespace cws_apps {

struct settle_limits {
  std::chrono::microseconds interval{1000};
  unsigned quiet_looks = 2;
  std::chrono::milliseconds give_up{200};
};

// How many threads of this process other than the calling one are running
// or ready to run (state R in /proc/self/task/*/stat); nullopt when that
// cannot be read.
std::optional<unsigned> other_threads_running();

// The rule over a look (threads running now) and a sleeper (sleeps about one
// interval and returns the seconds it slept). Returns whether `quiet_looks`
// quiet looks in a row came before `give_up`.
template <class Look, class Sleep>
bool settle_with(Look&& running_now, Sleep&& sleep_interval, const settle_limits& limits) {
  const double give_up_s = std::chrono::duration<double>(limits.give_up).count();
  unsigned quiet = 0;
  for (double waited = 0;;) {
    quiet = running_now() == 0 ? quiet + 1 : 0;
    if (quiet >= limits.quiet_looks) return true;
    if (waited >= give_up_s) return false;
    waited += sleep_interval();
  }
}

// Sleeps until no other thread of the process runs (the rule above).
// Returns false if some still did after limits.give_up, or if /proc could
// not say.
bool settle(const settle_limits& limits = {});

}  // namespace cws_apps
