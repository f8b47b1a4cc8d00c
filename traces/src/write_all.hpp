#pragma once
// write(2) until every byte is written: a write may write less than asked,
// or be interrupted by a signal. Used by the safe files and the trace stream.

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string_view>

namespace cws::traces::detail {

// Returns 0, or the errno of the failure.
inline int write_all(int fd, std::string_view bytes) noexcept {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace cws::traces::detail
