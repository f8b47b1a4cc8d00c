#pragma once
// What cws_traces_stream_child reports to its parent test over a pipe: one
// fixed-size message per finished phase run and per relocalization, written
// after rt.run / rt.relocalize returned (so after the streamer wrote the
// record). 32 bytes: a pipe write this small is atomic, a kill never tears it.
#include <cstdint>

namespace cws::test {

struct child_message {
  std::uint32_t kind = 0;      // 1 phase run finished, 2 relocalization finished
  std::uint32_t schedule = 0;  // index into child_schedules
  std::uint64_t iteration = 0;
  std::uint64_t tasks = 0;      // phase: tasks of the run (sum over workers)
  std::uint64_t wall_bits = 0;  // phase: wall_s as its bit pattern; relocalization: pages examined
};
static_assert(sizeof(child_message) == 32);

inline constexpr const char* child_schedules[] = {"fib", "touch"};

}  // namespace cws::test
