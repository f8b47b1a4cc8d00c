#pragma once
// Per-worker recycling of task blocks, so that spawn does not call malloc in
// steady state.
//
// Protocol: only the owning worker calls allocate() and takes blocks from
// `local_`. Any worker may give a block back: the owner pushes it on `local_`,
// others push it on the owner's `remote_` list (lock-free LIFO, CAS push with
// release). The owner drains `remote_` with one exchange(acquire) when
// `local_` runs dry, so there is no ABA: nobody pops single nodes from
// `remote_`. Blocks are carved from chunks owned by the pool and freed with it.

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "cws/detail/task.hpp"

namespace cws::detail {

class task_pool {
 public:
  task_pool() = default;
  task_pool(const task_pool&) = delete;
  task_pool& operator=(const task_pool&) = delete;
  ~task_pool();

  task* allocate() {
    task* t = local_;
    if (t == nullptr) [[unlikely]]
      t = refill();
    local_ = t->next_free;
    return t;
  }

  // Called by the worker that finished with `t` (any worker).
  void release(task* t) noexcept {
    if (t->home == this) {
      t->next_free = local_;
      local_ = t;
    } else {
      t->home->release_remote(t);
    }
  }

 private:
  static constexpr std::size_t tasks_per_chunk = 64;
  void release_remote(task* t) noexcept;
  task* refill();

  task* local_ = nullptr;
  alignas(64) std::atomic<task*> remote_{nullptr};
  std::vector<std::unique_ptr<task[]>> chunks_;
};

}  // namespace cws::detail
