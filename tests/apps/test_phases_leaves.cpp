// cws-phases' leaves of unequal work (--skew): where each leaf begins.
// Every variant runs the same leaves, so their bounds decide what a split
// of the leaves in equal counts costs; these tests pin them down.

#include <gtest/gtest.h>

#include <cstddef>

#include "phases/leaves.hpp"

namespace {

using phases::leaf_begin;
using phases::work_before;

// Without skew the leaves are the integer division's, exactly.
TEST(PhasesLeaves, NoSkewSplitsEvenly) {
  for (const std::size_t n : {0u, 1u, 7u, 128u, 100003u})
    for (const std::size_t blocks : {1u, 2u, 3u, 64u})
      for (std::size_t j = 0; j <= blocks; ++j) EXPECT_EQ(leaf_begin(j, n, blocks, 0.0), j * n / blocks);
}

// Skewed leaves still cover [0, n) once: the first begins at 0, the bounds
// never decrease, the last ends at n.
TEST(PhasesLeaves, SkewedLeavesCoverTheRangeInOrder) {
  for (const double skew : {0.25, 1.0, 10.0})
    for (const std::size_t n : {0u, 5u, 64u, 131072u})
      for (const std::size_t blocks : {2u, 3u, 55u, 64u}) {
        SCOPED_TRACE(testing::Message() << "skew " << skew << ", n " << n << ", blocks " << blocks);
        EXPECT_EQ(leaf_begin(0, n, blocks, skew), 0u);
        EXPECT_EQ(leaf_begin(blocks, n, blocks, skew), n);
        for (std::size_t j = 0; j < blocks; ++j)
          EXPECT_LE(leaf_begin(j, n, blocks, skew), leaf_begin(j + 1, n, blocks, skew));
      }
}

// The last leaf holds (1 + skew) times the first one's elements, and the
// leaves grow linearly in between.
TEST(PhasesLeaves, TheLastLeafIsOnePlusSkewTimesTheFirst) {
  const std::size_t n = std::size_t{1} << 24, blocks = 64;
  const auto size = [&](std::size_t j, double skew) {
    return static_cast<double>(leaf_begin(j + 1, n, blocks, skew) - leaf_begin(j, n, blocks, skew));
  };
  for (const double skew : {0.5, 1.0, 3.0}) {
    EXPECT_NEAR(size(blocks - 1, skew) / size(0, skew), 1.0 + skew, 1e-3) << skew;
    const double middle = 1.0 + skew * 31.0 / 63.0;  // leaf 31's weight over leaf 0's
    EXPECT_NEAR(size(31, skew) / size(0, skew), middle, 1e-3) << skew;
  }
}

// A bisection's later half (leaves blocks/2 and up, the half the spawner
// keeps) holds more than half of the work: 58 % of 64 leaves at skew 1
// (1 - (32 + 32 x 31 / 126) / (64 + 64 x 63 / 126)).
TEST(PhasesLeaves, TheLaterHalfHoldsMoreWork) {
  EXPECT_DOUBLE_EQ(work_before(32, 64, 0.0), 0.5);
  EXPECT_NEAR(1.0 - work_before(32, 64, 1.0), 1.0 - (32.0 + 32.0 * 31.0 / 126.0) / 96.0, 1e-12);
  EXPECT_NEAR(1.0 - work_before(32, 64, 1.0), 0.5847, 1e-4);
  EXPECT_DOUBLE_EQ(work_before(0, 64, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(work_before(64, 64, 1.0), 1.0);
}

}  // namespace
