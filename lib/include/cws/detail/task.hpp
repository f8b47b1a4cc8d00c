#pragma once
// A spawned task: a fixed-size, cache-line aligned block holding the callable
// inline (small-buffer storage) plus the scheduler's bookkeeping. Callables
// too large or over-aligned for the buffer are boxed on the heap.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "cws/observer.hpp"

namespace cws::detail {

struct frame;
class task_pool;

struct alignas(64) task {
  static constexpr std::size_t size = 128;
  static constexpr std::size_t header = 64;
  static constexpr std::size_t capacity = size - header;

  void (*invoke)(task*) = nullptr;  // runs the callable and destroys it (also when it throws)
  frame* parent = nullptr;          // frame of the spawning task; told when this task completes
  task_tag tag;                     // (segment, level, step) of the spawn
  unsigned spawner = 0;             // worker that spawned it
  std::uint32_t note = ~0u;         // routing policies: spawn_target::note of a mailboxed task
  task_pool* home = nullptr;        // pool the block returns to
  task* next_free = nullptr;        // free-list link while the block is unused
  std::uint32_t rank = 0;           // index among the spawns of its parent task (its pedigree entry)
  std::uint32_t plan_node = ~0u;    // serial elision: its node in the segment's elision plan (policy.hpp)
  alignas(16) std::byte storage[capacity];

  template <class F>
  void emplace(F&& f);
};
static_assert(sizeof(task) == task::size);
static_assert(offsetof(task, storage) == task::header);

template <class F>
void task::emplace(F&& f) {
  using fn_t = std::decay_t<F>;
  if constexpr (sizeof(fn_t) <= capacity && alignof(fn_t) <= 16 && std::is_nothrow_move_constructible_v<fn_t>) {
    ::new (static_cast<void*>(storage)) fn_t(std::forward<F>(f));
    invoke = [](task* t) {
      fn_t* fn = std::launder(reinterpret_cast<fn_t*>(t->storage));
      struct destroy_on_exit {
        fn_t* fn;
        ~destroy_on_exit() { fn->~fn_t(); }
      } guard{fn};
      (*fn)();
    };
  } else {
    ::new (static_cast<void*>(storage)) fn_t*(new fn_t(std::forward<F>(f)));
    invoke = [](task* t) {
      std::unique_ptr<fn_t> fn(*std::launder(reinterpret_cast<fn_t**>(t->storage)));
      (*fn)();
    };
  }
}

}  // namespace cws::detail
