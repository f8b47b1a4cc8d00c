#pragma once
// A joinable thread with a chosen stack size (std::thread cannot set one).
// The helpers' stack is runtime_config::stack_kib (CWS_STACK_KIB), with a
// 64 KiB guard so a large frame cannot jump over it (stack_guard.hpp).

#include <pthread.h>

#include <cstddef>
#include <functional>

namespace cws::detail {

class os_thread {
 public:
  // Starts `body` on a new thread. Throws cws::error naming the stack size
  // when the system refuses.
  os_thread(std::size_t stack_bytes, std::function<void()> body);
  ~os_thread();  // joins
  os_thread(const os_thread&) = delete;
  os_thread& operator=(const os_thread&) = delete;
  void join() noexcept;

 private:
  static void* start(void* self) noexcept;
  std::function<void()> body_;
  pthread_t thread_{};
  bool joinable_ = false;
};

}  // namespace cws::detail
