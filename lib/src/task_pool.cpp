#include "cws/detail/task_pool.hpp"

namespace cws::detail {

task_pool::~task_pool() = default;

void task_pool::release_remote(task* t) noexcept {
  task* head = remote_.load(std::memory_order_relaxed);
  do {
    t->next_free = head;
  } while (!remote_.compare_exchange_weak(head, t, std::memory_order_release, std::memory_order_relaxed));
}

task* task_pool::refill() {
  // Blocks other workers finished with come back first; a new chunk only when
  // more tasks are alive at once than ever before.
  if (task* returned = remote_.exchange(nullptr, std::memory_order_acquire)) return returned;
  auto chunk = std::make_unique<task[]>(tasks_per_chunk);
  for (std::size_t i = 0; i < tasks_per_chunk; ++i) {
    chunk[i].home = this;
    chunk[i].next_free = i + 1 < tasks_per_chunk ? &chunk[i + 1] : nullptr;
  }
  task* first = &chunk[0];
  chunks_.push_back(std::move(chunk));
  return first;
}

}  // namespace cws::detail
