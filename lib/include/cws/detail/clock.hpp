#pragma once
// The runtime's one timestamp: steady_clock in nanoseconds (a vDSO read, no
// system call), shared by the workers' idle accounting and the recorder's
// phase start so their times come from the same clock.

#include <chrono>
#include <cstdint>

namespace cws::detail {

inline std::uint64_t now_ns() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace cws::detail
