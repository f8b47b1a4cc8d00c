#pragma once
// How often the kernel took a core from this process: the involuntary
// context switches of all its threads (getrusage RUSAGE_SELF, ru_nivcsw).
// evolve's probe reads it around each of its rounds: a round in which it
// moved was run on a machine busy with other work, where a strict replay
// waits for a descheduled thief that random stealing does without, so its
// times are no evidence against the template (evolve_controller.hpp).
//
// One system call per read; read only between the phases of a probe.

#include <sys/resource.h>

#include <cstdint>

namespace cws::schedulers::detail {

using switch_counter = std::uint64_t (*)() noexcept;

inline std::uint64_t involuntary_switches() noexcept {
  rusage u{};
  if (::getrusage(RUSAGE_SELF, &u) != 0) return 0;
  return static_cast<std::uint64_t>(u.ru_nivcsw);
}

}  // namespace cws::schedulers::detail
