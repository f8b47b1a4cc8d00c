#include "common/settle.hpp"

#include <ctime>
#include <thread>

namespace cws_apps {

namespace {
double clock_s(clockid_t id) {
  timespec t{};
  if (clock_gettime(id, &t) != 0) return 0;  // cannot fail for these two clocks
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}
}  // namespace

// The two clocks are read one after the other, so the difference can be
// off by what the other threads ran in between: nanoseconds.
double other_threads_cpu_s() { return clock_s(CLOCK_PROCESS_CPUTIME_ID) - clock_s(CLOCK_THREAD_CPUTIME_ID); }

bool settle(const settle_limits& limits) {
  using clock = std::chrono::steady_clock;
  return settle_with(other_threads_cpu_s,
                     [&] {
                       const auto t0 = clock::now();
                       std::this_thread::sleep_for(limits.window);
                       return std::chrono::duration<double>(clock::now() - t0).count();
                     },
                     limits);
}

}  // namespace cws_apps
