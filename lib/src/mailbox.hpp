#pragma once
// A worker's mailbox: tasks handed to this worker by a routing policy (replay
// of a template, designations). Producers: spawners (post). Consumers: the
// owner (take, take_noted), a spawner taking its own task back (remove: RELWS,
// or a released strict replay, which asks holds first) and, once a replay
// diverged, other workers (take). Hand-overs happen
// O(steals) times per phase, so a short mutex is plenty; every consumer
// decides under it, so a task leaves the mailbox exactly once. `size_` lets
// the owner test for mail without taking the lock.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>

#include "cws/detail/task.hpp"

namespace cws::detail {

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
  // Oldest posted task that `thief` did not spawn, or nullptr. Released mail
  // (a diverged replay) goes to other workers this way: a worker taking its
  // own routed child back from another's mailbox would start a segment
  // "stolen" from its own segment, which no steal tree can hold.
  task* take_not_spawned_by(unsigned thief) {
    return take_first_if([thief](const task* t) { return t->spawner != thief; });
  }
  // The posted task whose note is `note`, or nullptr.
  task* take_noted(std::uint32_t note) {
    return take_first_if([note](const task* t) { return t->note == note; });
  }
  // Removes `t` if it is still here (nobody started it); false otherwise.
  bool remove(const task* t) {
    return take_first_if([t](const task* x) { return x == t; }) != nullptr;
  }
  // Whether `t` is still here (nobody started it).
  bool holds(const task* t) {
    if (size_.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard lock(mutex_);
    for (const task* x : queue_)
      if (x == t) return true;
    return false;
  }
  bool empty() const noexcept { return size_.load(std::memory_order_acquire) == 0; }

  // Takes the oldest posted task matching `match`, under the lock.
  template <class Match>
  task* take_first_if(Match match) {
    if (size_.load(std::memory_order_acquire) == 0) return nullptr;
    std::lock_guard lock(mutex_);
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (!match(*it)) continue;
      task* t = *it;
      queue_.erase(it);
      size_.store(queue_.size(), std::memory_order_release);
      return t;
    }
    return nullptr;
  }

 private:
  std::mutex mutex_;
  std::deque<task*> queue_;
  std::atomic<std::size_t> size_{0};
};

}  // namespace cws::detail
