#pragma once
// Chase–Lev work-stealing deque, growable, with the C++11 memory orders of
// Lê, Pop, Cohen, Zappa Nardelli, "Correct and Efficient Work-Stealing for
// Weak Memory Models", PPoPP 2013.
//
// Protocol:
//   * Only the owner calls push() and pop() (the bottom end, LIFO) and grows
//     the array. pop_above(base) is pop() restricted to indices >= base, so a
//     frame in sync never takes an entry of an outer frame (DESIGN §3 rule 1).
//   * Any other worker calls steal() (the top end, FIFO: oldest first).
//   * `top` only increases, by CAS (seq_cst); `bottom` is written only by the
//     owner. The one race — owner pop vs thief steal of the last entry — is
//     settled by the CAS on `top`. pop() must order its store of `bottom`
//     before its load of `top` (a store–load pair release/acquire cannot
//     order); the paper uses seq_cst fences in pop() and steal(). We use
//     seq_cst on those accesses instead: the same guarantee, the same cost on
//     x86 (one locked instruction in pop, plain loads in steal), and unlike
//     fences it is understood by ThreadSanitizer.
//   * push publishes the slot and then `bottom` with a release store (the
//     paper's release fence + relaxed store, in the form TSan understands).
//   * Arrays retired by growth stay alive until the deque is destroyed,
//     because a thief may still read a slot of the old array; growth is
//     geometric, so the retired arrays total less than the live one.

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace cws::detail {

template <class T>
class wsq {
  static_assert(std::is_pointer_v<T>, "wsq stores pointers (nullptr means empty)");

 public:
  explicit wsq(std::int64_t capacity = 1024) {
    auto first = std::make_unique<ring>(capacity);
    ring_.store(first.get(), std::memory_order_relaxed);
    rings_.push_back(std::move(first));
  }
  wsq(const wsq&) = delete;
  wsq& operator=(const wsq&) = delete;

  // Owner only.
  void push(T item) {
    std::int64_t b = bottom_.load(std::memory_order_relaxed);
    std::int64_t t = top_.load(std::memory_order_acquire);
    ring* r = ring_.load(std::memory_order_relaxed);
    if (b - t > r->capacity - 1) [[unlikely]]
      r = grow(r, t, b);
    r->put(b, item);
    bottom_.store(b + 1, std::memory_order_release);
  }

  // Owner only: the newest entry, or nullptr.
  T pop() {
    std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    ring* r = ring_.load(std::memory_order_relaxed);
    bottom_.store(b, std::memory_order_seq_cst);
    std::int64_t t = top_.load(std::memory_order_seq_cst);
    if (t > b) {  // empty
      bottom_.store(b + 1, std::memory_order_relaxed);
      return nullptr;
    }
    T item = r->get(b);
    if (t == b) {  // last entry: race the thieves for it
      if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed)) item = nullptr;
      bottom_.store(b + 1, std::memory_order_relaxed);
    }
    return item;
  }

  // Owner only: pop() if the newest entry has index >= base, else nullptr.
  T pop_above(std::int64_t base) {
    if (bottom_.load(std::memory_order_relaxed) <= base) return nullptr;
    return pop();
  }

  // Any worker but the owner: the oldest entry, or nullptr (empty or lost a race).
  T steal() {
    std::int64_t t = top_.load(std::memory_order_seq_cst);
    std::int64_t b = bottom_.load(std::memory_order_seq_cst);
    if (t >= b) return nullptr;
    T item = ring_.load(std::memory_order_acquire)->get(t);
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed)) return nullptr;
    return item;
  }

  // Owner: exact. Others: a snapshot that may be stale by the time it is used.
  std::int64_t bottom() const noexcept { return bottom_.load(std::memory_order_relaxed); }
  bool looks_empty() const noexcept {
    return top_.load(std::memory_order_relaxed) >= bottom_.load(std::memory_order_relaxed);
  }
  // Owner: exact. Others: a snapshot.
  std::int64_t size() const noexcept {
    const std::int64_t n = bottom_.load(std::memory_order_relaxed) - top_.load(std::memory_order_relaxed);
    return n > 0 ? n : 0;
  }
  std::int64_t capacity() const noexcept { return ring_.load(std::memory_order_relaxed)->capacity; }

 private:
  struct ring {
    explicit ring(std::int64_t cap) : capacity(cap), mask(cap - 1), slots(new std::atomic<T>[cap]) {}
    std::int64_t capacity, mask;
    std::unique_ptr<std::atomic<T>[]> slots;
    void put(std::int64_t i, T v) noexcept { slots[i & mask].store(v, std::memory_order_relaxed); }
    T get(std::int64_t i) const noexcept { return slots[i & mask].load(std::memory_order_relaxed); }
  };

  ring* grow(ring* old, std::int64_t t, std::int64_t b) {
    auto bigger = std::make_unique<ring>(old->capacity * 2);
    for (std::int64_t i = t; i < b; ++i) bigger->put(i, old->get(i));
    ring* r = bigger.get();
    rings_.push_back(std::move(bigger));
    ring_.store(r, std::memory_order_release);
    return r;
  }

  alignas(64) std::atomic<std::int64_t> top_{0};
  alignas(64) std::atomic<std::int64_t> bottom_{0};
  alignas(64) std::atomic<ring*> ring_{nullptr};
  std::vector<std::unique_ptr<ring>> rings_;  // owner only; every ring ever used
};

}  // namespace cws::detail
