// The canonical per-node form of a phase's touches (node_coverage,
// data_placement.hpp), which the reuse of locality reports compares run to
// run: built by merging each worker's sorted ranges, it must equal the form
// defined by sorting every range's start and end together and sweeping them
// (the definition, written out below), for any split of the ranges among any
// workers on any nodes.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "cws/detail/locality_memo.hpp"
#include "cws/locality.hpp"
#include "data_placement.hpp"

using cws::byte_range;
using cws::detail::coverage_run;

namespace {

// The definition: every start (+1) and end (-1) of every worker's ranges,
// sorted by node then address, swept into runs of equal worker count.
std::vector<coverage_run> defined_coverage(const cws::touch_map& touches, const std::vector<unsigned>& node_of) {
  struct event {
    unsigned node;
    std::uintptr_t at;
    int delta;
  };
  std::vector<event> events;
  for (std::size_t w = 0; w < touches.per_worker.size(); ++w)
    for (const byte_range& r : touches.per_worker[w]) {
      events.push_back({node_of[w], r.begin, +1});
      events.push_back({node_of[w], r.end, -1});
    }
  std::sort(events.begin(), events.end(),
            [](const event& a, const event& b) { return a.node != b.node ? a.node < b.node : a.at < b.at; });
  std::vector<coverage_run> out;
  std::uint32_t count = 0;
  std::uintptr_t from = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const event& e = events[i];
    if (i > 0 && events[i - 1].node != e.node) count = 0;
    if (count > 0 && e.at > from) {
      if (!out.empty() && out.back().node == e.node && out.back().end == from && out.back().count == count)
        out.back().end = e.at;
      else
        out.push_back({from, e.at, count, e.node});
    }
    count = static_cast<std::uint32_t>(static_cast<int>(count) + e.delta);
    from = e.at;
  }
  return out;
}

}  // namespace

TEST(NodeCoverage, MergingSortedWorkersEqualsSortingEverything) {
  std::mt19937_64 rng(12345);
  cws::detail::locality_memo memo;
  for (int trial = 0; trial < 2000; ++trial) {
    const unsigned nodes = 1 + static_cast<unsigned>(rng() % 4);
    const unsigned workers = 1 + static_cast<unsigned>(rng() % 9);
    std::vector<unsigned> node_of(workers);
    for (unsigned& n : node_of) n = static_cast<unsigned>(rng() % nodes);
    cws::touch_map touches;
    touches.per_worker.resize(workers);
    for (auto& ranges : touches.per_worker) {
      const std::size_t count = rng() % 12;
      for (std::size_t i = 0; i < count; ++i) {
        // Small addresses so that ranges of different workers often meet,
        // overlap or share an end.
        const std::uintptr_t begin = 0x1000 + rng() % 256, length = rng() % 40;
        ranges.push_back({begin, begin + length});
      }
      cws::coalesce(ranges);  // what touch_log::take hands over: sorted, apart, none empty
    }
    cws::detail::node_coverage(touches, node_of, nodes, memo);
    ASSERT_EQ(memo.current, defined_coverage(touches, node_of)) << "trial " << trial;
  }
}

TEST(NodeCoverage, ANodesCoverageDoesNotDependOnHowItsWorkersSplitTheBytes) {
  cws::detail::locality_memo memo;
  const std::vector<unsigned> node_of{0, 0, 1};
  cws::touch_map a, b;
  a.per_worker = {{{0, 100}}, {{100, 200}}, {{50, 60}}};
  b.per_worker = {{{120, 200}}, {{0, 120}}, {{50, 60}}};
  cws::detail::node_coverage(a, node_of, 2, memo);
  const std::vector<coverage_run> first = memo.current;
  cws::detail::node_coverage(b, node_of, 2, memo);
  EXPECT_EQ(memo.current, first);
  EXPECT_EQ(first, (std::vector<coverage_run>{{0, 200, 1, 0}, {50, 60, 1, 1}}));
}
