// cws::touch: the entry point of declared touches (touch.hpp). Out of line so
// that the per-worker log stays private to the core; a call per leaf task is
// cheap next to the work it describes.

#include "cws/touch.hpp"

#include "cws/detail/entry.hpp"
#include "worker.hpp"

namespace cws {

void touch(const void* p, std::size_t bytes) noexcept {
  detail::worker* w = detail::tls_worker;
  if (w == nullptr || bytes == 0) return;
  try {
    w->touch(p, bytes);
  } catch (...) {
    // Out of memory for one more range: the report undercounts this range
    // rather than terminating a computation that would otherwise succeed.
  }
}

void touch_rows(const void* first_row, std::size_t rows, std::size_t row_bytes, std::size_t stride) noexcept {
  detail::worker* w = detail::tls_worker;
  if (w == nullptr) return;
  try {
    w->touch_rows(first_row, rows, row_bytes, stride);
  } catch (...) {  // as in touch(): the report undercounts this block
  }
}

}  // namespace cws
