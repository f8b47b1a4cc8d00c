#pragma once
// The runtime's one timestamp: steady_clock in nanoseconds (a vDSO read, no
// system call), shared by the workers' idle accounting and the recorder's
// phase start so their times come from the same clock.

#include <chrono>
#include <cstdint>

namespace cws::detail {

// A steady_clock reading in the same nanoseconds as now_ns().
inline std::uint64_t ns_of(std::chrono::steady_clock::time_point t) noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

inline std::uint64_t now_ns() noexcept { return ns_of(std::chrono::steady_clock::now()); }

}  // namespace cws::detail
