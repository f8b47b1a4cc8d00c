#include "cws/platform/runtime_hooks.hpp"

namespace cws::platform {

namespace {
// Written once, before main (the core's static initializer), read afterwards:
// no synchronization is needed. Function-local so that a static initializer
// elsewhere that allocates NUMA memory sees it constructed.
runtime_hooks& installed() noexcept {
  static runtime_hooks h;
  return h;
}
}  // namespace

void install(const runtime_hooks& h) noexcept { installed() = h; }
const runtime_hooks& hooks() noexcept { return installed(); }

}  // namespace cws::platform
