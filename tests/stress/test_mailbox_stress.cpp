// The mailbox under contention: posters, an owner taking oldest-first, a
// thief taking by note, and spawners removing their own tasks all race on
// one mailbox. Every task must leave it exactly once, each poster's tasks
// must leave the owner's takes in the order they were posted, and the count
// must end at zero. Run under ThreadSanitizer too (label tsan).

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "mailbox.hpp"

namespace {

using cws::detail::mailbox;
using cws::detail::task;

constexpr unsigned posters = 3;
constexpr std::uint32_t per_poster = 20000;

struct slot {
  task t;
  std::atomic<int> left{0};  // how many times it left the mailbox
};

TEST(MailboxStress, EveryTaskLeavesOnceAndInPostOrder) {
  std::vector<slot> slots(posters * per_poster);
  for (std::uint32_t i = 0; i < slots.size(); ++i) {
    slots[i].t.spawner = i / per_poster;
    slots[i].t.note = i;
  }
  mailbox box;
  std::atomic<unsigned> posting{posters};
  std::atomic<std::uint64_t> gone{0};
  auto left = [&](task* t) {
    slots[t->note].left.fetch_add(1, std::memory_order_relaxed);
    gone.fetch_add(1, std::memory_order_relaxed);
  };
  const std::uint64_t total = slots.size();

  std::vector<std::thread> threads;
  for (unsigned p = 0; p < posters; ++p)
    threads.emplace_back([&, p] {
      for (std::uint32_t i = 0; i < per_poster; ++i) {
        task* t = &slots[p * per_poster + i].t;
        box.post(t);
        // Every eighth task, its poster takes it back if nobody started it
        // (a RELWS spawner at its join).
        if (i % 8 == 7 && box.remove(t)) left(t);
      }
      posting.fetch_sub(1, std::memory_order_release);
    });
  // The owner: oldest first. Per poster, the notes it sees must grow.
  std::vector<std::uint32_t> last_seen(posters, 0);
  bool in_order = true;
  threads.emplace_back([&] {
    std::vector<bool> seen_any(posters, false);
    while (gone.load(std::memory_order_relaxed) < total) {
      if (task* t = box.take()) {
        const unsigned p = t->spawner;
        if (seen_any[p] && t->note <= last_seen[p]) in_order = false;
        seen_any[p] = true;
        last_seen[p] = t->note;
        left(t);
      } else if (posting.load(std::memory_order_acquire) == 0 && box.empty()) {
        break;
      }
    }
  });
  // A thief looking for particular notes (a stows thief's next segment).
  threads.emplace_back([&] {
    for (std::uint32_t want = 5; gone.load(std::memory_order_relaxed) < total && want < total; want += 97)
      for (int tries = 0; tries < 50; ++tries)
        if (task* t = box.take_noted(want)) {
          EXPECT_EQ(t->note, want);
          left(t);
          break;
        }
  });
  for (std::thread& th : threads) th.join();
  while (task* t = box.take()) left(t);  // whatever the owner left behind after the others stopped

  EXPECT_TRUE(in_order) << "the owner took a poster's task before an older one of the same poster";
  EXPECT_TRUE(box.empty());
  std::uint64_t wrong = 0;
  for (const slot& s : slots) wrong += s.left.load() != 1;
  EXPECT_EQ(wrong, 0u) << "tasks that left the mailbox other than exactly once";
  EXPECT_EQ(gone.load(), total);
}

}  // namespace
