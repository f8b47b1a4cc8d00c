// Stows keeps the template's nesting: a worker waiting in a sync starts its
// next segment there only if the template ran it inside the one it waits in,
// at that sync or a later one. Stuws starts designated tasks wherever their
// worker idles, which no nesting rule may hold back.
//
// The stows program (4 workers): the root hands A and then B to worker 1. A
// hands c to worker 3 and waits for it (its first sync), then hands h to
// worker 2 and waits again (its second). B hands g to worker 2. So worker
// 2's order is [h, g], and h exists only once A got past its first sync.
// Two templates are recorded under `user`:
// - B spawned only after A ended: on worker 1, B ran after A, not inside it;
// - B spawned once A is in its second sync, and h held until B started: B
//   ran inside A, at A's second sync.
//
// In the replays B is spawned at once, and c holds A in its first sync
// until B is in worker 1's mailbox (and a little longer). Had worker 1
// started B there, B would wait for g, g for h (worker 2's order), and h for
// A's continuation, which sits under B on worker 1's stack: a deadlock the
// recorded run never had, seen as a stall. So the check is exact: B never
// starts while A waits in its first sync, no run diverges, every run
// replays the template.
//
// Why it fails without the rule: worker 1 idles in A's first sync while B
// sits in its mailbox as the next segment of its order, and takes it: under
// the first template because B did not nest in A at all, under the second
// because it nested at the second sync, not the first.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string_view>
#include <thread>
#include <vector>

#include "cws/cws.hpp"
#include "schedulers/replay_support.hpp"
#include "template_plan.hpp"

namespace {

namespace st = cws::steal_tree;

// Where the recording runs B: after A, or inside A's second sync.
enum class recorded_b { after_a, in_second_sync };

struct program {
  recorded_b recorded = recorded_b::after_a;
  bool recording = false;
  std::atomic<bool> a_in_first_sync{false}, a_in_second_sync{false}, a_done{false}, b_spawned{false},
      b_started{false}, b_in_first_sync{false};
  std::atomic<int> leaves{0};

  void reset() {
    a_in_first_sync = a_in_second_sync = a_done = b_spawned = b_started = b_in_first_sync = false;
    leaves = 0;
  }
  // Waits for `flag` or gives up after `limit`: a spawned task waiting for
  // its parent's continuation is no fork-join program (its serial elision
  // would wait forever, and a run whose template is gone elides spawns), so
  // the waits are bounded; the checks below do not depend on them.
  static void wait_for(const std::atomic<bool>& flag, std::chrono::milliseconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!flag.load() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  }
  void c() {
    if (!recording) {
      wait_for(b_spawned, std::chrono::milliseconds(500));
      // Time for worker 1 to take B if it were allowed to (it is not).
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ++leaves;
  }
  void h() {
    if (recording && recorded == recorded_b::in_second_sync)
      wait_for(b_started, std::chrono::seconds(30));  // A waits in its second sync meanwhile
    ++leaves;
  }
  void a() {
    cws::designate_after_next_spawn(3);
    cws::spawn([this] { c(); });
    a_in_first_sync = true;
    cws::sync();
    a_in_first_sync = false;
    cws::designate_after_next_spawn(2);
    cws::spawn([this] { h(); });
    a_in_second_sync = true;
    cws::sync();
    a_done = true;
  }
  void b() {
    b_started = true;
    if (a_in_first_sync.load()) b_in_first_sync = true;
    cws::designate_after_next_spawn(2);
    cws::spawn([this] { ++leaves; });  // g
    cws::sync();
  }
  void root() {
    cws::designate_after_next_spawn(1);
    cws::spawn([this] { a(); });
    if (recording)
      wait_for(recorded == recorded_b::after_a ? a_done : a_in_second_sync, std::chrono::seconds(30));
    cws::designate_after_next_spawn(1);
    cws::spawn([this] { b(); });
    b_spawned = true;
    cws::sync();
  }
};

cws::runtime_config four_workers() {
  cws::runtime_config cfg = cws::test::config(4, "pack:1 numa:1 core:4 pu:1");
  cws::schedulers::knobs_of(cfg).replay.stall_ms = 200;  // a deadlock is reported as a stall, then the phase finishes
  return cfg;
}

// Records `p` under `user` on `rt`: the template (root, A, B, c, h, g).
st::tree record(cws::runtime& rt, program& p) {
  p.recording = true;
  rt.run(rt.schedule("record", cws::policy::user), [&] { p.root(); });
  EXPECT_EQ(p.leaves.load(), 3);
  st::tree templ = st::recorder_of(rt)->latest("record")->steals;
  EXPECT_EQ(templ.segments.size(), 6u) << "root, A, B, c, h, g";
  EXPECT_EQ(templ.worker_segments[1].size(), 2u) << "A and B";
  EXPECT_EQ(templ.worker_segments[2].size(), 2u) << "h and g";
  return templ;
}

// Five replays of `p` under `policy` from `templ`: every leaf runs, B never
// starts while A waits in its first sync, no run diverges and every steal
// is the template's.
void expect_replays_keep_the_nesting(cws::runtime& rt, const st::tree& templ, std::string_view policy, program& p) {
  cws::schedulers::store_of(rt).seed("replay", templ, "the user run");
  auto& replay = rt.schedule("replay", policy);
  p.recording = false;
  for (int run = 0; run < 5; ++run) {
    p.reset();
    rt.run(replay, [&] { p.root(); });
    EXPECT_EQ(p.leaves.load(), 3) << "run " << run;
    EXPECT_FALSE(p.b_in_first_sync.load()) << "run " << run << ": worker 1 started B while A waited in its first sync";
    const auto& r = replay.history().back();
    EXPECT_FALSE(r.diverged()) << "run " << run << ": " << r.reason;
    EXPECT_EQ(r.extra_steals(), 0u) << "run " << run;
    EXPECT_EQ(r.designated(), templ.segments.size() - 1) << "run " << run;
  }
}

class nesting : public ::testing::TestWithParam<const char*> {};

TEST_P(nesting, a_waiting_worker_starts_only_segments_the_template_nested_there) {
  cws::runtime rt(four_workers());
  program p;
  const st::tree templ = record(rt, p);
  ASSERT_FALSE(HasFailure());
  const auto& a = templ.segments[templ.worker_segments[1][0]];
  const auto& b = templ.segments[templ.worker_segments[1][1]];
  ASSERT_LE(a.end_ns, b.start_ns) << "the recording nested B in A";
  expect_replays_keep_the_nesting(rt, templ, GetParam(), p);
}

INSTANTIATE_TEST_SUITE_P(strict, nesting, ::testing::Values("stows"),
                         [](const auto& p) { return std::string(p.param); });

TEST(stows_nesting, a_segment_nests_only_at_the_sync_the_template_nested_it_at) {
  cws::runtime rt(four_workers());
  program p;
  p.recorded = recorded_b::in_second_sync;
  const st::tree templ = record(rt, p);
  ASSERT_FALSE(HasFailure());
  const auto& a = templ.segments[templ.worker_segments[1][0]];
  const auto& b = templ.segments[templ.worker_segments[1][1]];
  const auto& h = templ.segments[templ.worker_segments[2][0]];
  ASSERT_TRUE(a.start_ns <= b.start_ns && b.end_ns <= a.end_ns) << "the recording did not nest B in A";
  ASSERT_LT(h.start_ns, b.end_ns) << "h, handed over before A's second sync, started after B ended";
  ASSERT_TRUE(cws::schedulers::detail::compile(std::make_shared<const st::tree>(templ))->nesting_known);
  expect_replays_keep_the_nesting(rt, templ, cws::policy::stows, p);
}

// Stuws and two waits that cross (3 workers). Template, recorded under
// `user`: the root hands A to worker 1; A hands s1 to worker 2 and waits for
// it; once A has ended, the root hands S2 to worker 2, which hands s3 to
// worker 1. Worker 1 ran [A, s3], worker 2 [s1, S2], nothing nested.
//
// In the replays the root hands out A and S2 at once, and A spawns s1 only
// after S2 has started on worker 2 (stuws lets it start first). Then worker
// 1 waits in A for s1 and worker 2 waits in S2 for s3: each must start the
// other's task nested in its wait, which the template never did. Held to the
// template's nesting, both would idle for good (a stall, then divergence);
// stuws runs every task on its template worker, with no stall.
struct crossed_program {
  bool recording = false;
  std::atomic<bool> a_done{false}, s2_started{false}, s1_after_s2{false};
  std::atomic<int> leaves{0};

  static void wait_for(const std::atomic<bool>& flag) {  // bounded: see program::wait_for
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!flag.load() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  }
  void a() {
    if (!recording) wait_for(s2_started);
    s1_after_s2 = s2_started.load();
    cws::designate_after_next_spawn(2);
    cws::spawn([this] { ++leaves; });  // s1
    cws::sync();
    a_done = true;
  }
  void s2() {
    s2_started = true;
    cws::designate_after_next_spawn(1);
    cws::spawn([this] { ++leaves; });  // s3
    cws::sync();
  }
  void root() {
    a_done = s2_started = s1_after_s2 = false;
    leaves = 0;
    cws::designate_after_next_spawn(1);
    cws::spawn([this] { a(); });
    if (recording) wait_for(a_done);
    cws::designate_after_next_spawn(2);
    cws::spawn([this] { s2(); });
    cws::sync();
  }
};

TEST(stuws_nesting, crossed_waits_start_each_others_tasks_nested) {
  cws::runtime_config cfg = cws::test::audited(3, "pack:1 numa:1 core:3 pu:1");
  cws::schedulers::knobs_of(cfg).replay.stall_ms = 200;
  cws::runtime rt(cfg);
  crossed_program p;
  p.recording = true;
  rt.run(rt.schedule("record", cws::policy::user), [&] { p.root(); });
  ASSERT_EQ(p.leaves.load(), 2);
  const st::tree templ = st::recorder_of(rt)->latest("record")->steals;
  ASSERT_EQ(templ.segments.size(), 5u) << "root, A, s1, S2, s3";
  for (unsigned w : {1u, 2u}) {
    ASSERT_EQ(templ.worker_segments[w].size(), 2u);
    ASSERT_LE(templ.segments[templ.worker_segments[w][0]].end_ns, templ.segments[templ.worker_segments[w][1]].start_ns)
        << "worker " << w << " nested its segments in the recording";
  }
  ASSERT_TRUE(cws::schedulers::detail::compile(std::make_shared<const st::tree>(templ))->nesting_known);

  cws::schedulers::store_of(rt).seed("replay", templ, "the user run");
  auto& replay = rt.schedule("replay", cws::policy::stuws);
  p.recording = false;
  for (int run = 0; run < 5; ++run) {
    rt.run(replay, [&] { p.root(); });
    EXPECT_EQ(p.leaves.load(), 2) << "run " << run;
    EXPECT_TRUE(p.s1_after_s2.load()) << "run " << run << ": S2 never started";
    const auto& r = replay.history().back();
    EXPECT_EQ(r.ran_as, cws::ran_as::stuws) << "run " << run;
    EXPECT_FALSE(r.diverged()) << "run " << run << ": " << r.reason;
    EXPECT_EQ(r.extra_steals(), 0u) << "run " << run;
    EXPECT_EQ(r.designated(), templ.segments.size() - 1) << "run " << run;
    cws::test::expect_same_task_mapping(templ, st::recorder_of(rt)->latest("replay")->steals);
  }
}

// Appends to `t` a segment stamped [start, end] whose root is the task its
// parent spawned at (1, step), and that steal to the parent's list (call in
// step order per parent: the list stays sorted).
void add_segment(st::tree& t, std::uint32_t worker, std::uint32_t parent, std::uint32_t step, std::uint64_t start,
                 std::uint64_t end) {
  st::segment g;
  g.worker = worker;
  g.parent = parent;
  g.level = parent == st::no_parent ? 0 : 1;
  g.step = step;
  g.start_ns = start;
  g.end_ns = end;
  const auto index = static_cast<std::uint32_t>(t.segments.size());
  if (parent != st::no_parent) t.segments[parent].steals.push_back({1, step, worker, index});
  t.segments.push_back(g);
}

// What the plan reads off a tree's stamps: nesting on one worker, and
// nothing at all for trees without stamps or with overlapping ones.
TEST(nesting_plan, stamps_tell_which_segments_may_nest) {
  st::tree t;
  t.workers = 2;
  add_segment(t, 0, st::no_parent, 0, 0, 100);  // #0 root
  add_segment(t, 1, 0, 0, 10, 40);              // #1 on worker 1
  add_segment(t, 1, 0, 1, 20, 30);              // #2 inside #1
  add_segment(t, 1, 0, 2, 50, 60);              // #3 after #1
  t.worker_segments = {{0}, {1, 2, 3}};
  auto plan = cws::schedulers::detail::compile(std::make_shared<const st::tree>(t));
  ASSERT_TRUE(plan->nesting_known);
  const std::vector<std::uint32_t> no_steals(plan->level_begin[1].size() - 1, 0);  // #1 makes none
  EXPECT_TRUE(plan->may_nest(2, 1, no_steals));
  EXPECT_FALSE(plan->may_nest(3, 1, no_steals));
  EXPECT_TRUE(plan->may_nest(3, cws::no_note, {}));  // at the top level anything goes

  st::tree overlapping = t;
  overlapping.segments[2].end_ns = 45;  // starts inside #1, ends after it: no stack did that
  EXPECT_FALSE(cws::schedulers::detail::compile(std::make_shared<const st::tree>(overlapping))->nesting_known);
  st::tree unstamped = t;
  for (auto& g : unstamped.segments) g.start_ns = g.end_ns = 0;
  auto loose = cws::schedulers::detail::compile(std::make_shared<const st::tree>(unstamped));
  EXPECT_FALSE(loose->nesting_known);
  EXPECT_TRUE(loose->may_nest(3, 1, no_steals));
}

// Which sync of the outer segment: worker 1 ran #4 inside #1 while #1 waited
// in a sync after handing #2 and #3 to worker 2; #5, handed over after that
// sync, started once #4 had ended. A cursor of #1 that has not made the
// steals of #2 and #3 is at an earlier sync: #4 may not start there.
TEST(nesting_plan, a_segment_nests_only_once_the_outer_made_the_steals_before_its_sync) {
  st::tree t;
  t.workers = 3;
  add_segment(t, 0, st::no_parent, 0, 0, 100);  // #0 root
  add_segment(t, 1, 0, 0, 10, 90);              // #1
  add_segment(t, 2, 1, 0, 15, 25);              // #2, from #1
  add_segment(t, 2, 1, 1, 30, 50);              // #3, from #1
  add_segment(t, 1, 0, 1, 35, 60);              // #4, inside #1
  add_segment(t, 2, 1, 2, 70, 80);              // #5, from #1 after #4 ended
  t.worker_segments = {{0}, {1, 4}, {2, 3, 5}};
  auto plan = cws::schedulers::detail::compile(std::make_shared<const st::tree>(t));
  ASSERT_TRUE(plan->nesting_known);
  ASSERT_EQ(plan->level_begin[1], (std::vector<std::uint32_t>{0, 0, 3}));
  auto made = [](std::uint32_t steals) { return std::vector<std::uint32_t>{0, steals}; };  // level 1's cursor
  EXPECT_FALSE(plan->may_nest(4, 1, made(0)));
  EXPECT_FALSE(plan->may_nest(4, 1, made(1))) << "#3 started before #4 ended: it was handed over before that sync";
  EXPECT_TRUE(plan->may_nest(4, 1, made(2))) << "#5 started after #4 ended: it may come later";
  EXPECT_TRUE(plan->may_nest(4, 1, made(3)));
}

}  // namespace

namespace {

// evolve's strict stage keeps a template's order only where the order is a
// recorded fact: a planned template (no stamps) replays under stuws, with
// the plan's thieves, and a recorded one under stows.
TEST(evolve_strict_stage, a_planned_template_replays_under_stuws_a_recorded_one_under_stows) {
  cws::runtime rt(cws::test::audited(2));
  auto& store = cws::schedulers::store_of(rt);
  auto& s = rt.schedule("fib", cws::policy::evolve);
  std::uint64_t result = 0;
  rt.run(s, [&] { result = cws::test::fib(16); });  // the first run: random, audited
  store.plan("fib");
  ASSERT_TRUE(store.at("fib").templ);
  const st::tree planned = *store.at("fib").templ;
  ASSERT_GT(planned.segments.size(), 1u) << "the planner hands work to worker 1";
  auto converged = [&] {
    auto& state = store.state("fib");
    state.mode = cws::schedulers::evolve_mode::stows;
    state.converged = true;
  };
  converged();
  rt.run(s, [&] { result = cws::test::fib(16); });
  EXPECT_EQ(result, cws::test::serial_fib(16));
  const auto& r = s.history().back();
  EXPECT_EQ(r.ran_as, cws::ran_as::stuws) << r.template_from;
  EXPECT_FALSE(r.diverged()) << r.reason;
  EXPECT_EQ(r.extra_steals(), 0u);
  EXPECT_EQ(r.designated(), planned.segments.size() - 1);

  // The run just recorded has stamps: as the template, it replays under stows.
  store.seed("fib", st::recorder_of(rt)->latest("fib")->steals, "the stuws run");
  converged();
  rt.run(s, [&] { result = cws::test::fib(16); });
  EXPECT_EQ(result, cws::test::serial_fib(16));
  EXPECT_EQ(s.history().back().ran_as, cws::ran_as::stows);
}

}  // namespace
