#include "cws/platform/os_thread.hpp"

#include <cstring>

#include <fmt/format.h>

#include "cws/error.hpp"

namespace cws::detail {

namespace {
constexpr std::size_t guard_bytes = 64 * 1024;
}

os_thread::os_thread(std::size_t stack_bytes, std::function<void()> body) : body_(std::move(body)) {
  pthread_attr_t attr;
  if (int e = ::pthread_attr_init(&attr); e != 0)
    throw error(fmt::format("cannot start a worker thread: pthread_attr_init: {}", std::strerror(e)));
  int e = ::pthread_attr_setstacksize(&attr, stack_bytes);
  if (e == 0) e = ::pthread_attr_setguardsize(&attr, guard_bytes);
  if (e == 0) e = ::pthread_create(&thread_, &attr, &os_thread::start, this);
  ::pthread_attr_destroy(&attr);
  if (e != 0)
    throw error(fmt::format("cannot start a worker thread with a {} KiB stack (CWS_STACK_KIB): {}", stack_bytes / 1024,
                            std::strerror(e)));
  joinable_ = true;
}

os_thread::~os_thread() { join(); }

void os_thread::join() noexcept {
  if (!joinable_) return;
  ::pthread_join(thread_, nullptr);
  joinable_ = false;
}

void* os_thread::start(void* self) noexcept {
  static_cast<os_thread*>(self)->body_();  // bodies catch their own exceptions
  return nullptr;
}

}  // namespace cws::detail
