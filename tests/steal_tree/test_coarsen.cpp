// Dynamic coarsening on hand-built steal trees, each result written out in
// full: a level cut, a min-tasks cut, the rule that a dropped steal takes the
// deeper steals of its segment along, nested subtrees with cuts of their own,
// no-op options, the root-only tree, unsorted input and malformed trees.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cws/error.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "cws/steal_tree/coarsen.hpp"
#include "support/error_of.hpp"
#include "support/steal_tree_builders.hpp"

namespace {

namespace st = cws::steal_tree;
using cws::test::error_of;
constexpr std::uint32_t none = st::no_parent;

using cws::test::segment_of;

st::tree make(std::uint32_t workers, std::vector<st::segment> segments, std::vector<std::vector<std::uint32_t>> lists) {
  st::tree t;
  t.workers = workers;
  t.segments = std::move(segments);
  t.worker_segments = std::move(lists);
  return t;
}

st::tree coarsen(const st::tree& t, std::optional<std::uint32_t> max_level, std::uint64_t min_tasks,
                 st::coarsen_summary* s = nullptr) {
  st::coarsen_options o;
  o.max_level = max_level;
  o.min_tasks = min_tasks;
  return st::coarsen(t, o, s);
}

st::coarsen_summary summary(std::uint64_t seg_before, std::uint64_t seg_after, std::uint64_t level, std::uint64_t small,
                            std::uint64_t deeper, std::uint64_t inside) {
  st::coarsen_summary s;
  s.segments_before = seg_before;
  s.segments_after = seg_after;
  s.steals_before = seg_before - 1;
  s.steals_after = seg_after - 1;
  s.dropped_level = level;
  s.dropped_small = small;
  s.dropped_deeper = deeper;
  s.dropped_inside = inside;
  return s;
}

// Tree T, 4 workers, in recorder layout (pre-order); work = tasks of the
// stolen subtree:
//
//   #0 w0 root         10 tasks  0-1000            work 80
//     #1 w1 (1,0)      20        100-900           work 35
//       #2 w2 (1,0)     5        200-400           work 5
//       #3 w3 (2,1)     8        250-600           work 10
//         #4 w0 (1,0)   2        300-350 (nested)  work 2
//     #5 w2 (1,1)      30        450-950           work 30
//     #6 w3 (2,0)       4        650-800           work 5
//       #7 w1 (3,2)     1        700-750 (nested)  work 1
st::tree tree_t() {
  return make(4,
              {
                  segment_of(0, none, 0, 0, 0, 1000, 10, {{1, 0, 1, 1}, {1, 1, 2, 5}, {2, 0, 3, 6}}),
                  segment_of(1, 0, 1, 0, 100, 900, 20, {{1, 0, 2, 2}, {2, 1, 3, 3}}),
                  segment_of(2, 1, 1, 0, 200, 400, 5),
                  segment_of(3, 1, 2, 1, 250, 600, 8, {{1, 0, 0, 4}}),
                  segment_of(0, 3, 1, 0, 300, 350, 2),
                  segment_of(2, 0, 1, 1, 450, 950, 30),
                  segment_of(3, 0, 2, 0, 650, 800, 4, {{3, 2, 1, 7}}),
                  segment_of(1, 6, 3, 2, 700, 750, 1),
              },
              {{0, 4}, {1, 7}, {2, 5}, {3, 6}});
}

TEST(steal_tree_coarsen, level_cut) {
  // max_level 1: #6 (2,0) out of #0 and #3 (2,1) out of #1 go, with #7 and #4
  // inside them; #0 and #1 absorb their work.
  const st::tree expect = make(4,
                               {
                                   segment_of(0, none, 0, 0, 0, 1000, 10 + 5, {{1, 0, 1, 1}, {1, 1, 2, 3}}),
                                   segment_of(1, 0, 1, 0, 100, 900, 20 + 10, {{1, 0, 2, 2}}),
                                   segment_of(2, 1, 1, 0, 200, 400, 5),
                                   segment_of(2, 0, 1, 1, 450, 950, 30),
                               },
                               {{0}, {1}, {2, 3}, {}});
  st::coarsen_summary s;
  const st::tree out = coarsen(tree_t(), 1, 0, &s);
  EXPECT_EQ(out, expect);
  EXPECT_EQ(s, summary(8, 4, 2, 0, 0, 2));
  EXPECT_EQ(s.steals_dropped(), 4u);
  EXPECT_EQ(st::summarize(out).tasks, st::summarize(tree_t()).tasks);
  // Level 2 keeps everything but #7 (3,2) out of #6.
  const st::tree two = coarsen(tree_t(), 2, 0, &s);
  st::tree expect2 = tree_t();
  expect2.segments.pop_back();
  expect2.segments[6].steals.clear();
  expect2.segments[6].tasks = 5;
  expect2.worker_segments[1] = {1};
  EXPECT_EQ(two, expect2);
  EXPECT_EQ(s, summary(8, 7, 1, 0, 0, 0));
  // Level 0: only the root is left, with all the work.
  const st::tree zero = coarsen(tree_t(), 0, 0, &s);
  EXPECT_EQ(zero, make(4, {segment_of(0, none, 0, 0, 0, 1000, 80)}, {{0}, {}, {}, {}}));
  EXPECT_EQ(s, summary(8, 1, 3, 0, 0, 4));
}

TEST(steal_tree_coarsen, min_tasks_cut) {
  // min_tasks 6: #6 (work 5) out of #0 and #2 (work 5) out of #1 are too
  // small. #3 (work 10) is large enough but sits at level 2 > 1, below the
  // dropped (1,0) of #1: it goes by the renumbering rule, #4 with it.
  const st::tree expect = make(4,
                               {
                                   segment_of(0, none, 0, 0, 0, 1000, 10 + 5, {{1, 0, 1, 1}, {1, 1, 2, 2}}),
                                   segment_of(1, 0, 1, 0, 100, 900, 20 + 5 + 10),
                                   segment_of(2, 0, 1, 1, 450, 950, 30),
                               },
                               {{0}, {1}, {2}, {}});
  st::coarsen_summary s;
  EXPECT_EQ(coarsen(tree_t(), std::nullopt, 6, &s), expect);
  EXPECT_EQ(s, summary(8, 3, 0, 2, 1, 2));
  // Subtree work counts nested steals: #1's subtree ran 35 tasks, so 35 keeps
  // it and 36 drops it. With 35, #1's own steals go as too small and #6
  // (2,0), small and deeper than the dropped (1,1) of #0, counts as small:
  // a steal the criteria drop is counted under its criterion.
  const st::tree at35 = coarsen(tree_t(), std::nullopt, 35, &s);
  EXPECT_EQ(
      at35,
      make(4, {segment_of(0, none, 0, 0, 0, 1000, 10 + 30 + 5, {{1, 0, 1, 1}}), segment_of(1, 0, 1, 0, 100, 900, 35)},
           {{0}, {1}, {}, {}}));
  EXPECT_EQ(s, summary(8, 2, 0, 4, 0, 2));  // #5, #6 out of #0, #2, #3 out of #1; #4, #7 inside
  EXPECT_EQ(coarsen(tree_t(), std::nullopt, 36, &s),
            make(4, {segment_of(0, none, 0, 0, 0, 1000, 80)}, {{0}, {}, {}, {}}));
  EXPECT_EQ(s, summary(8, 1, 0, 3, 0, 4));
}

TEST(steal_tree_coarsen, both_criteria) {
  // max_level 1 and min_tasks 6: #6 and #3 are too deep, #2 too small.
  const st::tree expect = make(4,
                               {
                                   segment_of(0, none, 0, 0, 0, 1000, 15, {{1, 0, 1, 1}, {1, 1, 2, 2}}),
                                   segment_of(1, 0, 1, 0, 100, 900, 35),
                                   segment_of(2, 0, 1, 1, 450, 950, 30),
                               },
                               {{0}, {1}, {2}, {}});
  st::coarsen_summary s;
  EXPECT_EQ(coarsen(tree_t(), 1, 6, &s), expect);
  EXPECT_EQ(s, summary(8, 3, 2, 1, 0, 2));
}

// The correctness rule on one segment with steals at levels 1, 2, 2, 3, 4:
// dropping the small (2,0) keeps (1,0) and the other level-2 steal (2,1),
// and drops (3,0) and (4,5) however large they are (and #5 inside (3,0)).
//
//   #0 w0 root   10 tasks, 0-1000
//     #1 w1 (1,0)  50, 10-400
//     #2 w2 (2,0)   3, 20-100     small
//     #3 w3 (2,1)  40, 30-900
//     #4 w1 (3,0)  60, 500-800    deeper
//       #5 w2 (1,0) 20, 550-700
//     #6 w2 (4,5)  70, 750-990    deeper
st::tree tree_r() {
  return make(4,
              {
                  segment_of(0, none, 0, 0, 0, 1000, 10,
                             {{1, 0, 1, 1}, {2, 0, 2, 2}, {2, 1, 3, 3}, {3, 0, 1, 4}, {4, 5, 2, 6}}),
                  segment_of(1, 0, 1, 0, 10, 400, 50),
                  segment_of(2, 0, 2, 0, 20, 100, 3),
                  segment_of(3, 0, 2, 1, 30, 900, 40),
                  segment_of(1, 0, 3, 0, 500, 800, 60, {{1, 0, 2, 5}}),
                  segment_of(2, 4, 1, 0, 550, 700, 20),
                  segment_of(2, 0, 4, 5, 750, 990, 70),
              },
              {{0}, {1, 4}, {2, 5, 6}, {3}});
}

TEST(steal_tree_coarsen, deeper_steals_of_the_same_segment_also_go) {
  st::coarsen_summary s;
  const st::tree out = coarsen(tree_r(), std::nullopt, 10, &s);
  EXPECT_EQ(out, make(4,
                      {
                          segment_of(0, none, 0, 0, 0, 1000, 10 + 3 + 80 + 70, {{1, 0, 1, 1}, {2, 1, 3, 2}}),
                          segment_of(1, 0, 1, 0, 10, 400, 50),
                          segment_of(3, 0, 2, 1, 30, 900, 40),
                      },
                      {{0}, {1}, {}, {2}}));
  EXPECT_EQ(s, summary(7, 3, 0, 1, 2, 1));
  // The level criterion alone cuts the same way only from its level down:
  // max_level 2 drops (3,0) and (4,5) but keeps both level-2 steals.
  const st::tree by_level = coarsen(tree_r(), 2, 0, &s);
  EXPECT_EQ(by_level,
            make(4,
                 {
                     segment_of(0, none, 0, 0, 0, 1000, 10 + 80 + 70, {{1, 0, 1, 1}, {2, 0, 2, 2}, {2, 1, 3, 3}}),
                     segment_of(1, 0, 1, 0, 10, 400, 50),
                     segment_of(2, 0, 2, 0, 20, 100, 3),
                     segment_of(3, 0, 2, 1, 30, 900, 40),
                 },
                 {{0}, {1}, {2}, {3}}));
  EXPECT_EQ(s, summary(7, 4, 2, 0, 0, 1));
  // A small steal at the deepest level takes nothing else along.
  st::tree r = tree_r();
  r.segments[6].tasks = 1;  // (4,5) is now small
  EXPECT_EQ(coarsen(r, std::nullopt, 2, &s).segments.size(), 6u);
  EXPECT_EQ(s, summary(7, 6, 0, 1, 0, 0));
}

TEST(steal_tree_coarsen, nested_subtrees_are_cut_on_their_own) {
  // min_tasks 3: #4 (work 2) out of #3 and #7 (work 1) out of #6 go; nothing
  // else. Later segments are renumbered: #5 -> 4, #6 -> 5.
  const st::tree expect = make(4,
                               {
                                   segment_of(0, none, 0, 0, 0, 1000, 10, {{1, 0, 1, 1}, {1, 1, 2, 4}, {2, 0, 3, 5}}),
                                   segment_of(1, 0, 1, 0, 100, 900, 20, {{1, 0, 2, 2}, {2, 1, 3, 3}}),
                                   segment_of(2, 1, 1, 0, 200, 400, 5),
                                   segment_of(3, 1, 2, 1, 250, 600, 8 + 2),
                                   segment_of(2, 0, 1, 1, 450, 950, 30),
                                   segment_of(3, 0, 2, 0, 650, 800, 4 + 1),
                               },
                               {{0}, {1}, {2, 4}, {3, 5}});
  st::coarsen_summary s;
  const st::tree out = coarsen(tree_t(), std::nullopt, 3, &s);
  EXPECT_EQ(out, expect);
  EXPECT_EQ(s, summary(8, 6, 0, 2, 0, 0));

  // Three levels of nesting; the middle segment's cut does not touch its
  // kept child's own steals (they are named inside that child).
  //   #0 w0 root 1
  //     #1 w1 (1,0) 1
  //       #2 w2 (1,0) 1           small: cut at level 1 of #1
  //       #3 w3 (1,1) 100
  //         #4 w0 (3,0) 100       kept: (3,0) is named inside #3
  //           #5 w1 (5,0) 1       small
  //       #6 w2 (2,0) 100         deeper than #1's cut
  const st::tree deep = make(4,
                             {
                                 segment_of(0, none, 0, 0, 0, 100, 1, {{1, 0, 1, 1}}),
                                 segment_of(1, 0, 1, 0, 1, 99, 1, {{1, 0, 2, 2}, {1, 1, 3, 3}, {2, 0, 2, 6}}),
                                 segment_of(2, 1, 1, 0, 2, 10, 1),
                                 segment_of(3, 1, 1, 1, 3, 90, 100, {{3, 0, 0, 4}}),
                                 segment_of(0, 3, 3, 0, 4, 80, 100, {{5, 0, 1, 5}}),
                                 segment_of(1, 4, 5, 0, 5, 70, 1),
                                 segment_of(2, 1, 2, 0, 20, 95, 100),
                             },
                             {{0, 4}, {1, 5}, {2, 6}, {3}});
  EXPECT_EQ(coarsen(deep, std::nullopt, 2, &s), make(4,
                                                     {
                                                         segment_of(0, none, 0, 0, 0, 100, 1, {{1, 0, 1, 1}}),
                                                         segment_of(1, 0, 1, 0, 1, 99, 1 + 1 + 100, {{1, 1, 3, 2}}),
                                                         segment_of(3, 1, 1, 1, 3, 90, 100, {{3, 0, 0, 3}}),
                                                         segment_of(0, 2, 3, 0, 4, 80, 100 + 1),
                                                     },
                                                     {{0, 3}, {1}, {}, {2}}));
  EXPECT_EQ(s, summary(7, 4, 0, 2, 1, 0));
}

TEST(steal_tree_coarsen, no_op_options_return_the_tree_without_audit) {
  st::tree t = tree_t();
  t.audit = {{0, none, 0, 0, 0, none}};
  st::tree expect = tree_t();
  st::coarsen_summary s;
  EXPECT_EQ(st::coarsen(t, {}, &s), expect);
  EXPECT_EQ(s, summary(8, 8, 0, 0, 0, 0));
  EXPECT_EQ(s.steals_dropped(), 0u);
  EXPECT_EQ(coarsen(t, 3, 1, &s), expect);  // deepest steal is at level 3; every subtree ran >= 1 task
  EXPECT_EQ(s, summary(8, 8, 0, 0, 0, 0));
  EXPECT_EQ(st::coarsen(t, {}), expect);  // the summary is optional
}

TEST(steal_tree_coarsen, root_only_and_empty_trees) {
  const st::tree root = make(2, {segment_of(0, none, 0, 0, 5, 50, 42)}, {{0}, {}});
  st::coarsen_summary s;
  EXPECT_EQ(coarsen(root, 0, 1000, &s), root);
  EXPECT_EQ(s, summary(1, 1, 0, 0, 0, 0));
  st::tree empty;
  empty.workers = 3;
  empty.worker_segments = {{}, {}, {}};
  EXPECT_EQ(coarsen(empty, 0, 1000, &s), empty);
  EXPECT_EQ(s, st::coarsen_summary{});
}

TEST(steal_tree_coarsen, result_is_idempotent_and_keeps_the_work) {
  for (std::uint64_t min_tasks : {0, 2, 3, 6, 11, 31, 36, 81})
    for (std::optional<std::uint32_t> level : {std::optional<std::uint32_t>{}, std::optional<std::uint32_t>{0},
                                               std::optional<std::uint32_t>{1}, std::optional<std::uint32_t>{2}})
      for (const st::tree& t : {tree_t(), tree_r()}) {
        const st::tree once = coarsen(t, level, min_tasks);
        EXPECT_EQ(st::summarize(once).tasks, st::summarize(t).tasks);
        st::coarsen_summary s;
        EXPECT_EQ(coarsen(once, level, min_tasks, &s), once) << min_tasks;
        EXPECT_EQ(s.steals_dropped(), 0u);
      }
}

TEST(steal_tree_coarsen, unsorted_input_gives_recorder_layout) {
  // tree_t with its segments listed in another order and unsorted steal
  // lists: the result is in pre-order with sorted steals all the same.
  // Order: old #0, #5, #6, #7, #1, #3, #4, #2.
  const std::vector<std::uint32_t> at = {0, 4, 7, 5, 6, 1, 2, 3};  // new position of old #i
  const st::tree t = tree_t();
  st::tree shuffled;
  shuffled.workers = 4;
  shuffled.segments.resize(8);
  for (std::uint32_t i = 0; i < 8; ++i) {
    st::segment g = t.segments[i];
    if (g.parent != none) g.parent = at[g.parent];
    for (auto& p : g.steals) p.child = at[p.child];
    std::reverse(g.steals.begin(), g.steals.end());
    shuffled.segments[at[i]] = g;
  }
  for (const auto& list : t.worker_segments) {
    shuffled.worker_segments.emplace_back();
    for (std::uint32_t i : list) shuffled.worker_segments.back().push_back(at[i]);
  }
  EXPECT_EQ(coarsen(shuffled, std::nullopt, 0), t);
  EXPECT_EQ(coarsen(shuffled, std::nullopt, 6), coarsen(t, std::nullopt, 6));
  // Without worker lists (a hand-built tree): rebuilt in start order.
  shuffled.worker_segments.clear();
  EXPECT_EQ(coarsen(shuffled, 1, 0), coarsen(t, 1, 0));
}

TEST(steal_tree_coarsen, malformed_trees_are_refused) {
  st::tree t = tree_t();
  t.segments[0].parent = 3;
  EXPECT_EQ(error_of([&] { coarsen(t, 1, 0); }),
            "coarsen: malformed steal tree: segments[0] must be the root segment (it has parent 3)");
  t = tree_t();
  t.segments[1].steals[1].child = 9;
  EXPECT_EQ(error_of([&] { coarsen(t, 1, 0); }),
            "coarsen: malformed steal tree: segment 1: steal at (2, 1) names segment 9 (8 segments)");
  t = tree_t();
  t.segments[1].steals[1].step = 7;
  EXPECT_NE(error_of([&] { coarsen(t, 1, 0); }).find("does not match segment 3"), std::string::npos);
  t = tree_t();
  t.segments[6].steals.clear();  // #7 is unreachable
  EXPECT_EQ(error_of([&] { coarsen(t, 1, 0); }),
            "coarsen: malformed steal tree: 1 of 8 segments are not reachable from the root through the steal lists");
  t = tree_t();
  t.segments[5].worker = 4;
  t.segments[0].steals[1].thief = 4;
  EXPECT_EQ(error_of([&] { coarsen(t, 1, 0); }),
            "coarsen: malformed steal tree: segment 5 runs on worker 4 (4 workers)");
  t = tree_t();
  t.segments[2].level = 2;
  t.segments[2].step = 1;
  t.segments[1].steals[0] = {2, 1, 2, 2};
  EXPECT_EQ(error_of([&] { coarsen(t, 1, 0); }), "coarsen: malformed steal tree: segment 1: two steals at (2, 1)");
}

}  // namespace

// Re-planning for fewer workers (a template loaded by a smaller runtime):
// every steal by worker 2 or 3 goes, with what was stolen inside it; the
// work stays with the segments it was taken from.
TEST(steal_tree_coarsen, fewer_workers_drop_the_missing_thieves) {
  st::coarsen_options options;
  options.workers = 2;
  st::coarsen_summary s;
  const st::tree out = st::coarsen(tree_t(), options, &s);
  EXPECT_EQ(out, make(2,
                      {
                          segment_of(0, none, 0, 0, 0, 1000, 10 + 30 + 5, {{1, 0, 1, 1}}),
                          segment_of(1, 0, 1, 0, 100, 900, 20 + 5 + 10),
                      },
                      {{0}, {1}}));
  EXPECT_EQ(s.dropped_workers, 4u);  // #2, #3, #5, #6
  EXPECT_EQ(s.dropped_inside, 2u);   // #4 and #7, inside them
  EXPECT_EQ(s.steals_dropped(), 6u);
  EXPECT_EQ(st::summarize(out).tasks, st::summarize(tree_t()).tasks);
  options.workers = 5;
  EXPECT_THROW((void)st::coarsen(tree_t(), options), cws::error);
  options.workers = 0;
  EXPECT_THROW((void)st::coarsen(tree_t(), options), cws::error);
}
