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
// between runs, 0 with this one). So measure_variants
// (rounds.hpp) settles after every run, outside the timed calls: each run
// starts with the threads of every runtime idle, as it would in a program
// that uses one runtime.
//
// The rule: sleep in windows of `window`; settled when, over one window,
// the CPU time of every thread but the caller's grew by less than
// `busy_share` of the window. Only this process's threads count (other
// processes' load does not keep it waiting). A run whose threads are still
// busy after `give_up` is followed anyway (settle returns false).

#include <chrono>

namespace cws_apps {

struct settle_limits {
  std::chrono::microseconds window{1000};
  double busy_share = 0.05;
  std::chrono::milliseconds give_up{200};
};

// CPU seconds used so far by the threads of this process other than the calling one.
double other_threads_cpu_s();

// The rule over a sampler (other threads' CPU seconds) and a sleeper (sleeps
// about one window and returns the seconds it slept). Returns whether a quiet
// window came before `give_up`.
template <class Sample, class Sleep>
bool settle_with(Sample&& other_cpu_s, Sleep&& sleep_window, const settle_limits& limits) {
  const double give_up_s = std::chrono::duration<double>(limits.give_up).count();
  double before = other_cpu_s();
  for (double waited = 0; waited < give_up_s;) {
    const double slept = sleep_window();
    const double after = other_cpu_s();
    if (after - before < limits.busy_share * slept) return true;
    waited += slept;
    before = after;
  }
  return false;
}

// Sleeps until the process's other threads are idle (the rule above, with
// the process and thread CPU clocks). Returns false if they were still busy
// after limits.give_up.
bool settle(const settle_limits& limits = {});

}  // namespace cws_apps
