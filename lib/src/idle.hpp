#pragma once
// How a worker waits: spin, then yield, then sleep (runtime_config::idle).
//
// parker protocol (one sleeper, many wakers):
//   sleeper: arm() (sleeping_ = true, then a seq_cst fence), re-check its
//            wake-up condition, then either disarm() or sleep(timeout).
//   waker:   make the condition true (a seq_cst RMW or store), then unpark(),
//            whose first read of sleeping_ is seq_cst too.
// This is a store-buffering pair, so both sides need their seq_cst: with a
// relaxed read the waker's check could be satisfied before its condition
// write is visible (x86 lets a load pass an earlier store), the sleeper could
// miss the condition, and both would go on. With the sleeper's fence before
// its re-check and the waker's seq_cst write-then-read, the single total order
// puts the fence either before the waker's read (which then sees sleeping_)
// or after its write (then the re-check sees the condition). Wakers that publish work
// with weaker orders (a deque push) may still miss a sleeper; the timeout
// bounds that delay. A post that arrives after a timeout leaves one token,
// which only causes one spurious (harmless) wake-up later.

#include <atomic>
#include <chrono>
#include <semaphore>
#include <thread>

#include "cws/config.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace cws::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

class parker {
 public:
  void arm() noexcept {
    sleeping_.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  void disarm() noexcept { sleeping_.store(false, std::memory_order_relaxed); }
  void sleep(std::chrono::microseconds timeout) {
    (void)token_.try_acquire_for(timeout);
    sleeping_.store(false, std::memory_order_relaxed);
  }
  // True if the worker was asleep (or about to be) and has been woken.
  bool unpark() noexcept {
    if (!sleeping_.load(std::memory_order_seq_cst)) return false;  // the waker's half of the pair (above)
    if (!sleeping_.exchange(false, std::memory_order_acq_rel)) return false;
    token_.release();
    return true;
  }

 private:
  std::atomic<bool> sleeping_{false};
  std::counting_semaphore<> token_{0};
};

// Escalation of one wait: call pause(arrived) after every fruitless attempt;
// it returns true when the caller should sleep now, and sleep_timeout() says
// for how long (growing while nothing turns up).
//
// The spin rounds poll `arrived` (what the waiter waits for: the phase's end,
// its children done, mail) after every pause and return as soon as it holds. The
// rounds space out the *attempts* (a steal touches a victim's deque line, which
// its owner writes), not the noticing: polling a line nobody writes until the
// event is a read from the waiter's own cache. A pause is ~10 cycles on older
// Intel cores, ~140 on Skylake and later, and 25 ns on the AMD EPYC cws is
// measured on: there a round of 32 unpolled pauses held the event for up to
// 0.8 us, half the cost of an empty phase.
class backoff {
 public:
  explicit backoff(idle_mode mode) noexcept : mode_(mode) {}
  void reset() noexcept { rounds_ = 0, sleeps_ = 0; }

  template <class Arrived>
  bool pause(Arrived arrived) noexcept {
    ++rounds_;
    const unsigned spin = mode_ == idle_mode::sleep ? 0 : spin_rounds;
    const unsigned yield = mode_ == idle_mode::sleep ? 2 : yield_rounds;
    if (rounds_ <= spin) {
      // Short first, growing to 32 while nothing turns up.
      const unsigned pauses = rounds_ < 6 ? 1u << (rounds_ - 1) : 32u;
      for (unsigned i = 0; i < pauses && !arrived(); ++i) cpu_relax();
      return false;
    }
    if (mode_ == idle_mode::spin || rounds_ <= spin + yield) {
      std::this_thread::yield();
      return false;
    }
    return true;
  }

  // Whether this wait has gone through its spin and yield rounds (the point
  // where an adaptive wait starts sleeping; a spin-mode wait gets there too).
  bool spent() const noexcept { return rounds_ > (mode_ == idle_mode::sleep ? 2u : spin_rounds + yield_rounds); }

  std::chrono::microseconds sleep_timeout() noexcept {
    const unsigned shift = sleeps_ < 6 ? sleeps_++ : 6;
    return std::chrono::microseconds(first_sleep_us << shift);  // 100 us .. 6.4 ms
  }

 private:
  static constexpr unsigned spin_rounds = 64;
  static constexpr unsigned yield_rounds = 64;
  static constexpr unsigned first_sleep_us = 100;
  idle_mode mode_;
  unsigned rounds_ = 0;
  unsigned sleeps_ = 0;
};

}  // namespace cws::detail
