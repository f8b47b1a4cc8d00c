// balance_of / is_balanced on hand-built trees, answers worked out by hand.

#include <gtest/gtest.h>

#include <vector>

#include "cws/steal_tree/balance.hpp"
#include "support/steal_tree_builders.hpp"

namespace {

namespace st = cws::steal_tree;

st::segment seg(std::uint32_t worker, std::uint32_t parent, std::uint64_t tasks) {
  return cws::test::segment_of(worker, parent, 1, 0, 0, 0, tasks);
}

TEST(Balance, SumsTheSegmentsOfEachWorker) {
  st::tree t;
  t.workers = 4;
  // w0: 10 + 5, w1: 20, w2: 5, w3: 0 (idle).
  t.segments = {seg(0, st::no_parent, 10), seg(1, 0, 20), seg(2, 1, 5), seg(0, 1, 5)};
  const st::balance b = st::balance_of(t);
  EXPECT_EQ(b.tasks, (std::vector<std::uint64_t>{15, 20, 5, 0}));
  EXPECT_EQ(b.total, 40u);
  EXPECT_DOUBLE_EQ(b.max_share_ratio, 20.0 * 4 / 40);  // 2.0
  EXPECT_EQ(b.idle_workers, 1u);
  EXPECT_FALSE(st::is_balanced(b, 2.5));  // an idle worker is never balanced
}

TEST(Balance, PerfectAndWithinTolerance) {
  st::tree t;
  t.workers = 2;
  t.segments = {seg(0, st::no_parent, 50), seg(1, 0, 50)};
  st::balance b = st::balance_of(t);
  EXPECT_DOUBLE_EQ(b.max_share_ratio, 1.0);
  EXPECT_EQ(b.idle_workers, 0u);
  EXPECT_TRUE(st::is_balanced(b, 1.0));

  t.segments[0].tasks = 55;
  t.segments[1].tasks = 45;
  b = st::balance_of(t);
  EXPECT_DOUBLE_EQ(b.max_share_ratio, 1.1);
  EXPECT_TRUE(st::is_balanced(b, 1.1 + 1e-12));
  EXPECT_FALSE(st::is_balanced(b, 1.05));
}

TEST(Balance, EmptyTreeHasNoShare) {
  st::tree t;
  t.workers = 3;
  st::balance b = st::balance_of(t);
  EXPECT_EQ(b.tasks, (std::vector<std::uint64_t>{0, 0, 0}));
  EXPECT_EQ(b.total, 0u);
  EXPECT_EQ(b.max_share_ratio, 0.0);
  EXPECT_EQ(b.idle_workers, 3u);
  EXPECT_FALSE(st::is_balanced(b, 100.0));

  t.segments = {seg(0, st::no_parent, 0)};  // a root that ran nothing
  b = st::balance_of(t);
  EXPECT_EQ(b.max_share_ratio, 0.0);
  EXPECT_FALSE(st::is_balanced(b, 100.0));
}

TEST(Balance, CountsWorkersBeyondTheDeclaredCount) {
  st::tree t;  // workers left at 0, as in some hand-built trees
  t.segments = {seg(0, st::no_parent, 3), seg(2, 0, 3)};
  const st::balance b = st::balance_of(t);
  EXPECT_EQ(b.tasks, (std::vector<std::uint64_t>{3, 0, 3}));
  EXPECT_EQ(b.idle_workers, 1u);
  EXPECT_DOUBLE_EQ(b.max_share_ratio, 3.0 * 3 / 6);
}

}  // namespace
