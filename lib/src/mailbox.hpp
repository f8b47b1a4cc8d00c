#pragma once
// A worker's mailbox: tasks handed to this worker by a routing policy (replay
// of a template, designations). Many producers (spawners), one consumer (the
// owner). Hand-overs happen O(steals) times per phase, so a short mutex is
// plenty; `size_` lets the owner test for mail without taking the lock.

#include <atomic>
#include <cstddef>
#include <deque>
#include <mutex>

namespace cws::detail {

struct task;

class mailbox {
 public:
  void post(task* t) {
    std::lock_guard lock(mutex_);
    queue_.push_back(t);
    size_.store(queue_.size(), std::memory_order_release);
  }
  // Oldest posted task, or nullptr.
  task* take() {
    if (size_.load(std::memory_order_acquire) == 0) return nullptr;
    std::lock_guard lock(mutex_);
    if (queue_.empty()) return nullptr;
    task* t = queue_.front();
    queue_.pop_front();
    size_.store(queue_.size(), std::memory_order_release);
    return t;
  }
  bool empty() const noexcept { return size_.load(std::memory_order_acquire) == 0; }

 private:
  std::mutex mutex_;
  std::deque<task*> queue_;
  std::atomic<std::size_t> size_{0};
};

}  // namespace cws::detail
