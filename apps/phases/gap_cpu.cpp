#include "phases/gap_cpu.hpp"

#include <sys/resource.h>
#include <time.h>

namespace phases {

namespace {

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; }

}  // namespace

cpu_times cpu_now() {
  // Read one right after the other: the caller's time between the two
  // readings is about the same at both ends of a measurement and cancels.
  timespec thread{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &thread);
  rusage self{};
  ::getrusage(RUSAGE_SELF, &self);
  return {seconds(self.ru_utime) + seconds(self.ru_stime),
          static_cast<double>(thread.tv_sec) + static_cast<double>(thread.tv_nsec) * 1e-9};
}

void busy_wait(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace phases
