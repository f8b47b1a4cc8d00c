// The mailbox's order and its lookups, single-threaded: oldest first across
// the inline slots and the overflow behind them, and each lookup takes
// exactly the task it names (mailbox.hpp).

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "mailbox.hpp"

namespace {

using cws::detail::mailbox;
using cws::detail::task;

// More tasks than the mailbox keeps in its line, so every test crosses into
// the overflow.
constexpr std::uint32_t many = 20;

std::vector<task> numbered(std::uint32_t n) {
  std::vector<task> tasks(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    tasks[i].note = i;
    tasks[i].spawner = i % 3;
  }
  return tasks;
}

TEST(Mailbox, TakesOldestFirstAcrossTheOverflow) {
  std::vector<task> tasks = numbered(many);
  mailbox box;
  EXPECT_TRUE(box.empty());
  EXPECT_EQ(box.take(), nullptr);
  for (task& t : tasks) box.post(&t);
  for (std::uint32_t i = 0; i < many; ++i) {
    ASSERT_FALSE(box.empty());
    EXPECT_EQ(box.take(), &tasks[i]) << "take " << i;
  }
  EXPECT_TRUE(box.empty());
  EXPECT_EQ(box.take(), nullptr);
}

TEST(Mailbox, KeepsTheOrderWhenPostsAndTakesInterleave) {
  std::vector<task> tasks = numbered(many);
  mailbox box;
  std::uint32_t posted = 0, taken = 0;
  // Three in, two out, until everything is in: the line and the overflow
  // both stay in use while tasks move up from one to the other.
  while (posted < many) {
    for (int k = 0; k < 3 && posted < many; ++k) box.post(&tasks[posted++]);
    for (int k = 0; k < 2 && taken < posted; ++k) EXPECT_EQ(box.take(), &tasks[taken++]);
  }
  while (taken < many) EXPECT_EQ(box.take(), &tasks[taken++]);
  EXPECT_TRUE(box.empty());
}

TEST(Mailbox, TakesANotedTaskFromTheLineOrTheOverflowAndKeepsTheRestInOrder) {
  std::vector<task> tasks = numbered(many);
  mailbox box;
  for (task& t : tasks) box.post(&t);
  EXPECT_EQ(box.take_noted(many + 5), nullptr);  // no such note
  EXPECT_EQ(box.take_noted(2), &tasks[2]);        // in the line
  EXPECT_EQ(box.take_noted(15), &tasks[15]);      // in the overflow
  EXPECT_EQ(box.take_noted(2), nullptr);          // taken once only
  for (std::uint32_t i = 0; i < many; ++i) {
    if (i != 2 && i != 15) {
      EXPECT_EQ(box.take(), &tasks[i]) << "take " << i;
    }
  }
  EXPECT_TRUE(box.empty());
}

TEST(Mailbox, RemoveAndHoldsSeeOnlyTasksNobodyTook) {
  std::vector<task> tasks = numbered(many);
  mailbox box;
  for (task& t : tasks) box.post(&t);
  EXPECT_TRUE(box.holds(&tasks[0]));
  EXPECT_TRUE(box.holds(&tasks[many - 1]));
  EXPECT_EQ(box.take(), &tasks[0]);
  EXPECT_FALSE(box.holds(&tasks[0]));
  EXPECT_FALSE(box.remove(&tasks[0]));
  EXPECT_TRUE(box.remove(&tasks[many - 1]));  // the newest, in the overflow
  EXPECT_FALSE(box.holds(&tasks[many - 1]));
  EXPECT_TRUE(box.remove(&tasks[3]));  // in the line: the overflow's oldest moves up behind it
  for (std::uint32_t i = 1; i < many - 1; ++i) {
    if (i != 3) {
      EXPECT_EQ(box.take(), &tasks[i]) << "take " << i;
    }
  }
  EXPECT_TRUE(box.empty());
  EXPECT_FALSE(box.holds(&tasks[5]));
}

TEST(Mailbox, ReleasedMailSkipsTheThiefsOwnTasks) {
  std::vector<task> tasks = numbered(many);  // spawner i % 3
  mailbox box;
  for (task& t : tasks) box.post(&t);
  std::vector<std::uint32_t> order;
  while (task* t = box.take_not_spawned_by(0)) {
    EXPECT_NE(t->spawner, 0u);
    order.push_back(t->note);
  }
  std::vector<std::uint32_t> expected;
  for (std::uint32_t i = 0; i < many; ++i)
    if (i % 3 != 0) expected.push_back(i);
  EXPECT_EQ(order, expected);
  for (std::uint32_t i = 0; i < many; i += 3) EXPECT_EQ(box.take(), &tasks[i]);
  EXPECT_TRUE(box.empty());
}

}  // namespace
