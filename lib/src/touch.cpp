// cws::touch: the entry point of declared touches (touch.hpp). Out of line so
// that the per-worker log stays private to the core; a call per leaf task is
// cheap next to the work it describes.

#include "cws/touch.hpp"

#include "cws/detail/entry.hpp"
#include "worker.hpp"

namespace cws {

namespace {
// `add(worker)` records into the calling worker's log; outside a phase
// nothing is recorded. Out of memory for one more entry, the report
// undercounts it rather than terminating a computation that would otherwise
// succeed.
template <class Add>
void record(Add add) noexcept {
  detail::worker* w = detail::tls_worker;
  if (w == nullptr) return;
  try {
    add(*w);
  } catch (...) {
  }
}
}  // namespace

void touch(const void* p, std::size_t bytes) noexcept {
  if (bytes != 0) record([&](detail::worker& w) { w.touch(p, bytes); });
}

void touch_rows(const void* first_row, std::size_t rows, std::size_t row_bytes, std::size_t stride) noexcept {
  record([&](detail::worker& w) { w.touch_rows(first_row, rows, row_bytes, stride); });
}

}  // namespace cws
