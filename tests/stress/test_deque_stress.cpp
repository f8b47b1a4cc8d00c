// Chase–Lev deque under contention: the owner pushes and pops while several
// thieves steal; every item must be taken exactly once, across many growths.

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "wsq.hpp"

namespace {

using cws::detail::wsq;

struct item {
  std::atomic<int> taken{0};
};

void run_race(std::size_t total, unsigned thieves, std::int64_t initial_capacity, unsigned burst) {
  std::vector<item> items(total + 1);  // items[total]: the extra one below, if needed
  wsq<item*> q(initial_capacity);
  std::atomic<bool> owner_done{false};
  std::atomic<std::size_t> stolen{0};
  std::atomic<bool> any_stolen{false};  // set at a thief's first steal

  std::vector<std::thread> pool;
  for (unsigned t = 0; t < thieves; ++t) {
    pool.emplace_back([&] {
      std::size_t mine = 0;
      for (;;) {
        if (item* it = q.steal()) {
          it->taken.fetch_add(1, std::memory_order_relaxed);
          if (mine++ == 0) any_stolen.store(true, std::memory_order_release);
        } else if (owner_done.load(std::memory_order_acquire) && q.looks_empty()) {
          break;
        }
      }
      stolen.fetch_add(mine);
    });
  }

  std::size_t popped = 0, next = 0;
  for (std::size_t round = 0; next < total; ++round) {
    // Push a burst, then pop half of it back (a burst of one is pushed and
    // popped at once: the owner and the thieves fight over the last entry).
    for (unsigned i = 0; i < burst && next < total; ++i) q.push(&items[next++]);
    // Now and then leave the thieves a window, so that on a loaded machine
    // they still get scheduled while the deque holds items.
    if (round % 64 == 0) std::this_thread::yield();
    for (unsigned i = 0; i < (burst + 1) / 2; ++i) {
      if (item* it = q.pop()) {
        it->taken.fetch_add(1, std::memory_order_relaxed);
        ++popped;
      }
    }
  }
  // Before taking the rest back, wait until a thief stole something (with an
  // extra item left for them if none did yet, e.g. bursts of one): the
  // thieves get a CPU eventually, so the race is exercised however loaded the
  // machine, without relying on luck.
  const std::size_t extra = any_stolen.load(std::memory_order_acquire) ? 0 : 1;
  if (extra != 0) q.push(&items[total]);
  while (!any_stolen.load(std::memory_order_acquire)) std::this_thread::yield();
  while (item* it = q.pop()) {
    it->taken.fetch_add(1, std::memory_order_relaxed);
    ++popped;
  }
  owner_done.store(true, std::memory_order_release);
  for (auto& t : pool) t.join();

  EXPECT_EQ(popped + stolen.load(), total + extra);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < total + extra; ++i)
    if (items[i].taken.load() != 1) ++wrong;
  EXPECT_EQ(wrong, 0u) << "items taken zero or several times";
  EXPECT_GT(stolen.load(), 0u) << "thieves never got anything: the race was not exercised";
  EXPECT_GT(popped, 0u);
}

TEST(deque_stress, every_item_taken_once_three_thieves) { run_race(1'000'000, 3, 1024, 64); }

TEST(deque_stress, growth_under_contention) {
  // Capacity 2 and long bursts: the array grows many times while thieves read it.
  run_race(300'000, 3, 2, 4096);
}

TEST(deque_stress, last_item_race) {
  // Bursts of one: owner pop and thief steal fight over the last entry.
  run_race(400'000, 2, 16, 1);
}

TEST(deque, lifo_for_owner_fifo_for_thief) {
  int a = 0, b = 0, c = 0;
  wsq<int*> q(2);
  q.push(&a);
  q.push(&b);
  q.push(&c);  // grows
  EXPECT_EQ(q.capacity(), 4);
  EXPECT_EQ(q.steal(), &a);
  EXPECT_EQ(q.pop(), &c);
  EXPECT_EQ(q.pop_above(q.bottom()), nullptr);  // b is below the base: not ours
  EXPECT_EQ(q.pop_above(q.bottom() - 1), &b);
  EXPECT_EQ(q.pop(), nullptr);
  EXPECT_EQ(q.steal(), nullptr);
}

}  // namespace
