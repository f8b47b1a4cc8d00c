#pragma once
// A worker's mailbox: tasks handed to this worker by a routing policy (replay
// of a template, designations). Producers: spawners (post). Consumers: the
// owner (take, take_noted), a spawner taking its own task back (remove: RELWS,
// or a released strict replay, which asks holds first) and, once a replay
// diverged, other workers (take).
//
// Protocol. Every producer and consumer decides under one spin lock, so a
// task leaves the mailbox exactly once; `size_` lets the owner poll for mail
// without taking it. A hand-over is a designated steal, on the path from a
// spawn to the thief running its task, so the lock, the count and the oldest
// `inline_slots` tasks share one cache line: a post moves that line to the
// poster and a take moves it back, two line transfers in all (a deque steal
// needs about as many). Tasks past the inline ones wait, in order, in
// `overflow_` (another line, only touched while it is non-empty); take
// refills the inline slots from it, so the slots always hold the oldest
// tasks and every take is oldest-first. The lock is held for a few stores;
// a waiter spins, then yields (a holder that lost its core).
//
// post() writes `size_` seq_cst: with the poster's unpark() after it, that is
// the waker's half of the parker protocol (idle.hpp), so a thief about to
// sleep either sees the mail or is woken.

#include <atomic>
#include <cstdint>
#include <deque>
#include <thread>

#include "cws/detail/task.hpp"
#include "idle.hpp"

namespace cws::detail {

class alignas(64) mailbox {
 public:
  void post(task* t) {
    const guard g(*this);
    const std::uint32_t n = size_.load(std::memory_order_relaxed);  // only written under the lock
    if (n < inline_slots)
      slots_[n] = t;
    else
      overflow_.push_back(t);
    size_.store(n + 1, std::memory_order_seq_cst);
  }
  // Oldest posted task, or nullptr.
  task* take() {
    return take_first_if([](const task*) { return true; });
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
    if (empty()) return false;
    const guard g(*this);
    const std::uint32_t n = size_.load(std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < n && i < inline_slots; ++i)
      if (slots_[i] == t) return true;
    for (const task* x : overflow_)
      if (x == t) return true;
    return false;
  }
  bool empty() const noexcept { return size_.load(std::memory_order_acquire) == 0; }

  // Takes the oldest posted task matching `match`, under the lock.
  template <class Match>
  task* take_first_if(Match match) {
    if (empty()) return nullptr;
    const guard g(*this);
    const std::uint32_t n = size_.load(std::memory_order_relaxed);
    const std::uint32_t held = n < inline_slots ? n : inline_slots;
    for (std::uint32_t i = 0; i < held; ++i) {
      if (!match(slots_[i])) continue;
      task* t = slots_[i];
      for (std::uint32_t j = i + 1; j < held; ++j) slots_[j - 1] = slots_[j];
      if (!overflow_.empty()) {  // the oldest waiting task moves up into the line
        slots_[held - 1] = overflow_.front();
        overflow_.pop_front();
      }
      size_.store(n - 1, std::memory_order_release);
      return t;
    }
    for (auto it = overflow_.begin(); it != overflow_.end(); ++it) {
      if (!match(*it)) continue;
      task* t = *it;
      overflow_.erase(it);
      size_.store(n - 1, std::memory_order_release);
      return t;
    }
    return nullptr;
  }

 private:
  // Test and test-and-set: a waiter reads the shared line until it looks
  // free instead of writing it on every try.
  class guard {
   public:
    explicit guard(mailbox& m) noexcept : m_(m) {
      for (unsigned spins = 0; m_.locked_.exchange(true, std::memory_order_acquire);)
        while (m_.locked_.load(std::memory_order_relaxed))
          if (++spins < 64)
            cpu_relax();
          else
            std::this_thread::yield();
    }
    ~guard() { m_.locked_.store(false, std::memory_order_release); }
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;

   private:
    mailbox& m_;
  };

  static constexpr std::uint32_t inline_slots = 6;
  std::atomic<bool> locked_{false};
  std::atomic<std::uint32_t> size_{0};  // inline and overflow; written under the lock
  task* slots_[inline_slots] = {};      // the oldest min(size_, inline_slots) tasks, oldest first
  alignas(64) std::deque<task*> overflow_;  // the newer ones, oldest first: a line of its own
};

}  // namespace cws::detail
