#pragma once
// The order in which the workers of a phase ran a loop's leaves
// (parallel_for.hpp, "Leaf order"): checks shared by the spawn and elision
// tests.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "cws/run_report.hpp"

namespace cws::test {

// 0, 1, ..., n - 1: the order of a serial loop over n leaves.
inline std::vector<std::size_t> ascending(std::size_t n) {
  std::vector<std::size_t> v(n);
  std::iota(v.begin(), v.end(), std::size_t{0});
  return v;
}

// `order[w]`: the leaf indices worker w ran, in the order it ran them. Each
// worker runs the leaves of a range from the lowest index up, so its order
// goes down only where a range starts, or ends inside another it waited in
// (a range taken in a sync): at most twice per segment the run report gives
// it. And every index of [0, n) ran exactly once.
inline void expect_left_to_right(const std::vector<std::vector<std::size_t>>& order, const run_report& r,
                                 std::size_t n) {
  std::vector<std::size_t> all;
  for (std::size_t w = 0; w < order.size(); ++w) {
    std::size_t descents = 0;
    for (std::size_t k = 1; k < order[w].size(); ++k) descents += order[w][k] < order[w][k - 1];
    EXPECT_LE(descents, 2 * r.per_worker.at(w).segments) << "worker " << w;
    all.insert(all.end(), order[w].begin(), order[w].end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, ascending(n)) << "every leaf once";
}

}  // namespace cws::test
