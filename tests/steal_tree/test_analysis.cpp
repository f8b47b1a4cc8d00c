// Analyses on hand-built steal trees, with answers worked out by hand:
// totals, per-worker load, paths and the task -> worker mapping, schedule
// distance (segment mode and exact mode), text rendering, malformed trees.

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "cws/error.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "support/steal_tree_builders.hpp"

namespace {

namespace st = cws::steal_tree;
using st::position;
using st::task_path;

// A segment without time stamps (the analyses here do not read them).
st::segment seg(std::uint32_t worker, std::uint32_t parent, std::uint32_t level, std::uint32_t step,
                std::uint64_t tasks) {
  return cws::test::segment_of(worker, parent, level, step, 0, 0, tasks);
}

// Fills the steal lists and worker lists from the parent links.
st::tree finish(st::tree t) {
  for (auto& s : t.segments) s.steals.clear();
  t.worker_segments.assign(t.workers, {});
  for (std::uint32_t i = 0; i < t.segments.size(); ++i) {
    const st::segment& s = t.segments[i];
    if (s.parent != st::no_parent) t.segments[s.parent].steals.push_back({s.level, s.step, s.worker, i});
    if (s.worker >= t.worker_segments.size()) t.worker_segments.resize(s.worker + 1);
    t.worker_segments[s.worker].push_back(i);
  }
  for (auto& s : t.segments)
    std::sort(s.steals.begin(), s.steals.end(),
              [](const auto& x, const auto& y) { return std::tie(x.level, x.step) < std::tie(y.level, y.step); });
  return t;
}

// #0 w0 root (10 tasks)
//   #1 w1 at (1,0) (20)
//     #2 w2 at (2,0) (30)
//   #3 w3 at (1,1) (40)
st::tree tree_a() {
  st::tree t;
  t.workers = 4;
  t.segments = {seg(0, st::no_parent, 0, 0, 10), seg(1, 0, 1, 0, 20), seg(2, 1, 2, 0, 30), seg(3, 0, 1, 1, 40)};
  t.segments[0].end_ns = 4'000'000;
  t.segments[1].start_ns = 1'000'000;
  t.segments[1].end_ns = 3'500'000;
  t.segments[2].start_ns = 1'500'000;
  t.segments[2].end_ns = 2'000'000;
  t.segments[3].start_ns = 2'000'000;
  t.segments[3].end_ns = 3'000'000;
  return finish(t);
}

const std::vector<std::uint32_t> two_per_node = {0, 0, 1, 1};
const std::vector<std::uint32_t> one_per_node = {0, 1, 2, 3};

// ---------------------------------------------------------------- totals

TEST(steal_tree_analysis, summarize_hand_built) {
  const st::totals t = st::summarize(tree_a());
  EXPECT_EQ(t.tasks, 100u);
  EXPECT_EQ(t.steals, 3u);
  EXPECT_EQ(t.segments, 4u);
  EXPECT_EQ(t.depth, 3u);

  st::tree single;
  single.workers = 1;
  single.segments = {seg(0, st::no_parent, 0, 0, 7)};
  EXPECT_EQ(st::summarize(single), (st::totals{7, 0, 1, 1}));
  EXPECT_EQ(st::summarize(st::tree{}), (st::totals{0, 0, 0, 0}));

  // A chain of 5 steals, listed in reverse order: depth 6.
  st::tree chain;
  chain.workers = 2;
  chain.segments.push_back(seg(0, st::no_parent, 0, 0, 1));
  for (std::uint32_t i = 1; i <= 5; ++i) chain.segments.push_back(seg(i % 2, i == 5 ? 0 : i + 1, 1, i, 2));
  EXPECT_EQ(st::summarize(chain), (st::totals{11, 5, 6, 6}));
}

TEST(steal_tree_analysis, tasks_per_worker_hand_built) {
  EXPECT_EQ(st::tasks_per_worker(tree_a()), (std::vector<std::uint64_t>{10, 20, 30, 40}));
  st::tree t = tree_a();
  t.segments[3].worker = 1;  // w1 now runs two segments, w3 none
  EXPECT_EQ(st::tasks_per_worker(t), (std::vector<std::uint64_t>{10, 60, 30, 0}));
  t.workers = 2;  // a worker beyond `workers` still gets its row
  t.segments[2].worker = 5;
  EXPECT_EQ(st::tasks_per_worker(t), (std::vector<std::uint64_t>{10, 60, 0, 0, 0, 30}));
  st::tree empty;
  empty.workers = 3;
  EXPECT_EQ(st::tasks_per_worker(empty), (std::vector<std::uint64_t>{0, 0, 0}));
}

// ---------------------------------------------------------------- naming

TEST(steal_tree_analysis, paths_and_worker_of) {
  const st::tree t = tree_a();
  EXPECT_EQ(st::path_of_segment(t, 0), std::vector<position>{});
  EXPECT_EQ(st::path_of_segment(t, 2), (std::vector<position>{{1, 0}, {2, 0}}));
  EXPECT_EQ(st::path_of_segment(t, 3), (std::vector<position>{{1, 1}}));
  EXPECT_EQ(st::find_segment(t, {}), 0u);
  EXPECT_EQ(st::find_segment(t, {{1, 0}, {2, 0}}), 2u);
  EXPECT_EQ(st::find_segment(t, {{1, 0}, {2, 1}}), st::no_segment_index);
  EXPECT_EQ(st::find_segment(t, {{2, 0}}), st::no_segment_index);

  EXPECT_EQ(st::worker_of(t, task_path{{}, {0, 0}}), 0u);        // the phase root
  EXPECT_EQ(st::worker_of(t, task_path{{}, {1, 0}}), 1u);        // stolen by w1
  EXPECT_EQ(st::worker_of(t, task_path{{}, {1, 1}}), 3u);        // stolen by w3
  EXPECT_EQ(st::worker_of(t, task_path{{}, {1, 2}}), 0u);        // ran locally in the root segment
  EXPECT_EQ(st::worker_of(t, task_path{{}, {2, 0}}), 0u);        // same (level 2 of the root segment)
  EXPECT_EQ(st::worker_of(t, task_path{{{1, 0}}, {2, 0}}), 2u);  // stolen out of #1 by w2
  EXPECT_EQ(st::worker_of(t, task_path{{{1, 0}}, {2, 1}}), 1u);  // local in #1
  EXPECT_EQ(st::worker_of(t, task_path{{{1, 0}}, {0, 0}}), 1u);  // #1's root, second name
  EXPECT_EQ(st::worker_of(t, task_path{{{1, 0}, {2, 0}}, {5, 9}}), 2u);
  EXPECT_EQ(st::worker_of(t, task_path{{{7, 7}}, {1, 0}}), st::no_segment_index);

  st::audit_record root{0, st::no_parent, 0, 0, 0, st::no_parent};
  EXPECT_EQ(st::path_of_task(t, root), (task_path{{}, {0, 0}}));
  st::audit_record stolen{2, 1, 2, 0, 2, 0};
  EXPECT_EQ(st::path_of_task(t, stolen), (task_path{{{1, 0}}, {2, 0}}));

  const st::tree_index idx(t);
  EXPECT_EQ(std::vector<std::uint32_t>(idx.children(0).begin(), idx.children(0).end()),
            (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(idx.depth(2), 3u);
  EXPECT_EQ(idx.child(0, {1, 1}), 3u);
  EXPECT_EQ(idx.child(0, {1, 2}), st::no_segment_index);
}

TEST(steal_tree_analysis, naming_ignores_segment_order_and_steal_lists) {
  // tree_a with the segments in another order (root still first) and no steal lists.
  st::tree t;
  t.workers = 4;
  t.segments = {seg(0, st::no_parent, 0, 0, 10), seg(3, 0, 1, 1, 40), seg(2, 3, 2, 0, 30), seg(1, 0, 1, 0, 20)};
  EXPECT_EQ(st::summarize(t), (st::totals{100, 3, 4, 3}));
  EXPECT_EQ(st::find_segment(t, {{1, 0}, {2, 0}}), 2u);
  EXPECT_EQ(st::worker_of(t, task_path{{{1, 0}}, {2, 0}}), 2u);
  EXPECT_EQ(st::path_of_segment(t, 2), (std::vector<position>{{1, 0}, {2, 0}}));
  const st::distance d = st::schedule_distance(tree_a(), t, two_per_node);
  EXPECT_EQ(d.moved_worker, 0.0);
  EXPECT_EQ(d.moved_node, 0.0);
}

// ---------------------------------------------------------------- distance

TEST(steal_tree_distance, identical_trees_are_at_zero) {
  const st::distance d = st::schedule_distance(tree_a(), tree_a(), two_per_node);
  EXPECT_EQ(d.moved_worker, 0.0);
  EXPECT_EQ(d.moved_node, 0.0);
  EXPECT_EQ(d.work, 100u);
  EXPECT_FALSE(d.exact);
  // Time stamps do not matter.
  st::tree b = tree_a();
  for (auto& s : b.segments) s.start_ns = s.end_ns = 42;
  EXPECT_EQ(st::schedule_distance(tree_a(), b, one_per_node).moved_worker, 0.0);
  // Two empty trees.
  EXPECT_EQ(st::schedule_distance(st::tree{}, st::tree{}, {}).moved_worker, 0.0);
}

TEST(steal_tree_distance, everything_moved_is_one) {
  st::tree b = tree_a();
  for (auto& s : b.segments) s.worker ^= 1;  // 0<->1, 2<->3: other worker, same node (two per node)
  b = finish(b);
  st::distance d = st::schedule_distance(tree_a(), b, two_per_node);
  EXPECT_EQ(d.moved_worker, 1.0);
  EXPECT_EQ(d.moved_node, 0.0);
  d = st::schedule_distance(tree_a(), b, one_per_node);
  EXPECT_EQ(d.moved_worker, 1.0);
  EXPECT_EQ(d.moved_node, 1.0);

  // No common path but the root, and the root moved too.
  st::tree c;
  c.workers = 4;
  c.segments = {seg(1, st::no_parent, 0, 0, 50), seg(0, 0, 3, 3, 50)};
  c = finish(c);
  d = st::schedule_distance(tree_a(), c, one_per_node);
  EXPECT_EQ(d.moved_worker, 1.0);
  EXPECT_EQ(d.moved_node, 1.0);
  // An empty tree against a non-empty one.
  d = st::schedule_distance(tree_a(), st::tree{}, one_per_node);
  EXPECT_EQ(d.moved_worker, 1.0);
  EXPECT_EQ(d.moved_node, 1.0);
}

TEST(steal_tree_distance, partial_moves_are_weighted_by_tasks_and_symmetrized) {
  // Same paths; #2 moved w2 -> w3 (same node 1), #3 moved w3 -> w1 (node 1 -> 0).
  // b's segments weigh 25 each.
  st::tree b = tree_a();
  b.segments[2].worker = 3;
  b.segments[3].worker = 1;
  for (auto& s : b.segments) s.tasks = 25;
  b = finish(b);
  // a -> b: worker (30 + 40) / 100 = 0.7, node 40 / 100 = 0.4
  // b -> a: worker (25 + 25) / 100 = 0.5, node 25 / 100 = 0.25
  const st::distance d = st::schedule_distance(tree_a(), b, two_per_node);
  EXPECT_DOUBLE_EQ(d.moved_worker, 0.6);
  EXPECT_DOUBLE_EQ(d.moved_node, 0.325);
  EXPECT_EQ(d.work, 100u);
  EXPECT_FALSE(d.exact);
  const st::distance r = st::schedule_distance(b, tree_a(), two_per_node);
  EXPECT_DOUBLE_EQ(r.moved_worker, 0.6);
  EXPECT_DOUBLE_EQ(r.moved_node, 0.325);
}

TEST(steal_tree_distance, segments_without_a_counterpart_count_as_moved) {
  // c: #0 w0 (10), #1 w1 at (1,0) (20), #2 w2 at (1,2) (70).
  st::tree c;
  c.workers = 4;
  c.segments = {seg(0, st::no_parent, 0, 0, 10), seg(1, 0, 1, 0, 20), seg(2, 0, 1, 2, 70)};
  c = finish(c);
  // a -> c: #2 (path (1,0),(2,0)) and #3 (path (1,1)) missing: 70 / 100.
  // c -> a: #2 (path (1,2)) missing: 70 / 100. The same path on the same worker is unmoved even
  // though w2's work differs.
  const st::distance d = st::schedule_distance(tree_a(), c, one_per_node);
  EXPECT_DOUBLE_EQ(d.moved_worker, 0.7);
  EXPECT_DOUBLE_EQ(d.moved_node, 0.7);
}

TEST(steal_tree_distance, zero_weight_segments_count_one_each) {
  st::tree a = tree_a(), b = tree_a();
  for (auto& s : a.segments) s.tasks = 0;
  for (auto& s : b.segments) s.tasks = 0;
  b.segments[1].worker = 3;  // one of four segments moved (node 0 -> 1)
  const st::distance d = st::schedule_distance(a, b, two_per_node);
  EXPECT_DOUBLE_EQ(d.moved_worker, 0.25);
  EXPECT_DOUBLE_EQ(d.moved_node, 0.25);
  EXPECT_EQ(d.work, 0u);
}

// Exact mode. The program: the root R spawns A then B; A spawns A0; B spawns B0.
// Spawn paths: R {}, A {0}, B {1}, A0 {0,0}, B0 {1,0}.
//   run a: w1 stole A at (1,0) of the root segment; A0 is (1,0) of that segment,
//          B0 is (2,0) of the root segment.
//   run b: w1 stole B at (1,1); B0 is (1,0) of w1's segment, A0 is (2,0) of the root segment.
// So (root segment, 2, 0) is B0 in a but A0 in b: names relative to the steal
// points differ between runs; the spawn paths do not.
st::tree audited_a() {
  st::tree t;
  t.workers = 2;
  t.segments = {seg(0, st::no_parent, 0, 0, 3), seg(1, 0, 1, 0, 2)};
  t = finish(t);
  t.audit = {
      {0, st::no_parent, 0, 0, 0, st::no_parent},  // R
      {0, 0, 1, 1, 0, 0},                          // B
      {0, 0, 2, 0, 0, 1},                          // B0
      {1, 0, 1, 0, 1, 0},                          // A, stolen
      {1, 1, 1, 0, 1, 3},                          // A0
  };
  return t;
}
st::tree audited_b() {
  st::tree t;
  t.workers = 2;
  t.segments = {seg(0, st::no_parent, 0, 0, 3), seg(1, 0, 1, 1, 2)};
  t = finish(t);
  t.audit = {
      {0, st::no_parent, 0, 0, 0, st::no_parent},  // R
      {0, 0, 1, 0, 0, 0},                          // A
      {0, 0, 2, 0, 0, 1},                          // A0
      {1, 0, 1, 1, 1, 0},                          // B, stolen
      {1, 1, 1, 0, 1, 3},                          // B0
  };
  return t;
}

TEST(steal_tree_analysis, spawn_paths_are_schedule_independent) {
  const st::tree a = audited_a(), b = audited_b();
  EXPECT_EQ(st::spawn_path(a, 0), std::vector<std::uint32_t>{});
  EXPECT_EQ(st::spawn_path(a, 1), (std::vector<std::uint32_t>{1}));     // B
  EXPECT_EQ(st::spawn_path(a, 2), (std::vector<std::uint32_t>{1, 0}));  // B0
  EXPECT_EQ(st::spawn_path(a, 3), (std::vector<std::uint32_t>{0}));     // A
  EXPECT_EQ(st::spawn_path(a, 4), (std::vector<std::uint32_t>{0, 0}));  // A0
  EXPECT_EQ(st::spawn_path(b, 2), (std::vector<std::uint32_t>{0, 0}));  // A0
  EXPECT_EQ(st::spawn_path(b, 4), (std::vector<std::uint32_t>{1, 0}));  // B0
  // The steal-relative names of B0 in a and A0 in b coincide.
  EXPECT_EQ(st::path_of_task(a, a.audit[2]), st::path_of_task(b, b.audit[2]));
  EXPECT_THROW(st::spawn_path(a, 5), cws::error);
}

TEST(steal_tree_distance, exact_mode_compares_task_by_task) {
  // a: R w0, A w1, B w0, A0 w1, B0 w0;  b: R w0, A w0, B w1, A0 w0, B0 w1.
  // Every task but R moved: 4 / 5 both ways.
  st::distance d = st::schedule_distance(audited_a(), audited_b(), {0, 1});
  EXPECT_TRUE(d.exact);
  EXPECT_EQ(d.work, 5u);
  EXPECT_DOUBLE_EQ(d.moved_worker, 0.8);
  EXPECT_DOUBLE_EQ(d.moved_node, 0.8);
  // Both workers on one node: nothing moved node.
  d = st::schedule_distance(audited_a(), audited_b(), {0, 0});
  EXPECT_DOUBLE_EQ(d.moved_worker, 0.8);
  EXPECT_EQ(d.moved_node, 0.0);
  // Identical audited trees.
  d = st::schedule_distance(audited_a(), audited_a(), {0, 1});
  EXPECT_TRUE(d.exact);
  EXPECT_EQ(d.moved_worker, 0.0);
  EXPECT_EQ(d.moved_node, 0.0);
  // b without B0: B0 of a has no counterpart; b -> a still moves 3 of 4.
  st::tree b = audited_b();
  b.audit.pop_back();
  b.segments[1].tasks = 1;
  d = st::schedule_distance(audited_a(), b, {0, 0});
  EXPECT_DOUBLE_EQ(d.moved_worker, (4.0 / 5 + 3.0 / 4) / 2);
  EXPECT_DOUBLE_EQ(d.moved_node, (1.0 / 5 + 0.0) / 2);
}

TEST(steal_tree_distance, segment_mode_when_a_tree_has_no_linked_audit) {
  // By segments: #0 (3 tasks) unmoved both ways; a's #1 (path (1,0), 2 tasks) and b's #1
  // (path (1,1), 2 tasks) have no counterpart: 2 / 5 both ways.
  st::tree a = audited_a();
  a.audit.clear();
  st::distance d = st::schedule_distance(a, audited_b(), {0, 1});
  EXPECT_FALSE(d.exact);
  EXPECT_EQ(d.work, 5u);
  EXPECT_DOUBLE_EQ(d.moved_worker, 0.4);
  EXPECT_DOUBLE_EQ(d.moved_node, 0.4);
  // An audit without parent links (e.g. from a producer that did not record them).
  a = audited_a();
  for (auto& r : a.audit) r.parent = st::no_parent;
  d = st::schedule_distance(a, audited_b(), {0, 1});
  EXPECT_FALSE(d.exact);
  EXPECT_DOUBLE_EQ(d.moved_worker, 0.4);
}

TEST(steal_tree_distance, broken_audit_links_throw) {
  st::tree a = audited_a();
  a.audit[1].parent = 2;  // B <-> B0
  a.audit[2].parent = 1;
  EXPECT_THROW(st::schedule_distance(a, audited_b(), {0, 1}), cws::error);
  EXPECT_THROW(st::spawn_path(a, 2), cws::error);
  a = audited_a();
  a.audit[4].parent = 17;
  EXPECT_THROW(st::schedule_distance(a, audited_b(), {0, 1}), cws::error);
  a = audited_a();
  a.audit[4].spawn_segment = 5;
  EXPECT_THROW(st::schedule_distance(audited_b(), a, {0, 1}), cws::error);
}

TEST(steal_tree_distance, workers_without_a_node_are_refused) {
  try {
    st::schedule_distance(tree_a(), tree_a(), {0, 0});
    FAIL() << "no error for a short node map";
  } catch (const cws::error& e) {
    EXPECT_NE(std::string(e.what()).find("worker 2"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- malformed trees

TEST(steal_tree_analysis, malformed_trees_throw) {
  st::tree t = tree_a();
  t.segments[0].parent = 1;  // root not first
  EXPECT_THROW(st::summarize(t), cws::error);
  t = tree_a();
  t.segments[2].parent = 9;  // out of range
  EXPECT_THROW(st::summarize(t), cws::error);
  EXPECT_THROW(st::schedule_distance(t, tree_a(), one_per_node), cws::error);
  t = tree_a();
  t.segments[1].parent = 2;  // 1 -> 2 -> 1
  EXPECT_THROW(st::summarize(t), cws::error);
  EXPECT_THROW(st::tree_index{t}, cws::error);
  t = tree_a();
  t.segments[3].parent = st::no_parent;  // a second root
  EXPECT_THROW(st::describe(t), cws::error);
  EXPECT_THROW(st::path_of_segment(tree_a(), 4), cws::error);
}

// ---------------------------------------------------------------- rendering

TEST(steal_tree_analysis, describe_renders_the_tree_indented) {
  const std::string text = st::describe(tree_a());
  const std::string expected =
      "steal tree: 4 workers, 4 segments, 3 steals, 100 tasks, depth 3\n"
      "worker 0: 1 segment, 10 tasks, busy 4.000 ms\n"
      "worker 1: 1 segment, 20 tasks, busy 2.500 ms\n"
      "worker 2: 1 segment, 30 tasks, busy 0.500 ms\n"
      "worker 3: 1 segment, 40 tasks, busy 1.000 ms\n"
      "#0 worker 0, root, 10 tasks, 0.000-4.000 ms\n"
      "  #1 worker 1, taken at (1,0), 20 tasks, 1.000-3.500 ms\n"
      "    #2 worker 2, taken at (2,0), 30 tasks, 1.500-2.000 ms\n"
      "  #3 worker 3, taken at (1,1), 40 tasks, 2.000-3.000 ms\n";
  EXPECT_EQ(text, expected);

  // Nested segments on one worker: busy time is the union of the spans.
  st::tree t;
  t.workers = 2;
  t.segments = {seg(0, st::no_parent, 0, 0, 5), seg(1, 0, 1, 0, 3), seg(0, 1, 2, 0, 1)};
  t.segments[0].end_ns = 3'000'000;
  t.segments[1].start_ns = 1'000'000;
  t.segments[1].end_ns = 2'000'000;
  t.segments[2].start_ns = 1'200'000;  // nested in #0 while it waited
  t.segments[2].end_ns = 1'300'000;
  t.audit = {{0, st::no_parent, 0, 0, 0, st::no_parent}};
  const std::string nested = st::describe(finish(t));
  EXPECT_NE(nested.find("steal tree: 2 workers, 3 segments, 2 steals, 9 tasks, depth 3, 1 audited tasks\n"),
            std::string::npos)
      << nested;
  EXPECT_NE(nested.find("worker 0: 2 segments, 6 tasks, busy 3.000 ms\n"), std::string::npos) << nested;
  EXPECT_NE(nested.find("    #2 worker 0, taken at (2,0), 1 tasks, 1.200-1.300 ms\n"), std::string::npos) << nested;
}

}  // namespace
