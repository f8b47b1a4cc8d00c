// The planner on modelled runs (spawn_sim.hpp): a serial audit run of a
// loop, fib and irregular trees is split into balanced templates, and a
// parallel one is carved until balanced. Every plan is replayed by the model
// (which names tasks by the runtime's rules, independently of the planner):
// the replay must reproduce the plan exactly, every steal point reached, each
// task on the worker the plan gave it. Plus validation (cws::traces::validate,
// coarsen's checks) and the errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cws/error.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "cws/steal_tree/balance.hpp"
#include "cws/steal_tree/coarsen.hpp"
#include "cws/steal_tree/plan.hpp"
#include "cws/traces/trace_file.hpp"
#include "steal_tree/spawn_sim.hpp"
#include "support/error_of.hpp"

namespace {

namespace st = cws::steal_tree;
using cws::test::program;
using cws::test::simulate;
using cws::test::simulation;

// The replay of `plan` (by the model) has exactly its segments, steal points
// (pedigrees included), tasks and per-worker orders; returns it.
simulation expect_replays(const program& prog, const st::tree& plan) {
  simulation run = simulate(prog, plan);
  const st::tree& t = run.tree;
  EXPECT_EQ(t.segments.size(), plan.segments.size());
  for (std::size_t i = 0; i < std::min(t.segments.size(), plan.segments.size()); ++i) {
    const st::segment& a = plan.segments[i];
    const st::segment& b = t.segments[i];
    EXPECT_EQ(a.worker, b.worker) << "segment " << i;
    EXPECT_EQ(a.parent, b.parent) << "segment " << i;
    EXPECT_EQ(std::pair(a.level, a.step), std::pair(b.level, b.step)) << "segment " << i;
    EXPECT_EQ(a.tasks, b.tasks) << "segment " << i;
    EXPECT_EQ(a.steals.size(), b.steals.size()) << "segment " << i;
    for (std::size_t k = 0; k < std::min(a.steals.size(), b.steals.size()); ++k) {
      EXPECT_EQ(a.steals[k].level, b.steals[k].level);
      EXPECT_EQ(a.steals[k].step, b.steals[k].step);
      EXPECT_EQ(a.steals[k].thief, b.steals[k].thief);
      EXPECT_EQ(a.steals[k].child, b.steals[k].child);
      const auto pa = st::path_of(plan, a.steals[k]), pb = st::path_of(t, b.steals[k]);
      EXPECT_EQ(std::vector(pa.begin(), pa.end()), std::vector(pb.begin(), pb.end())) << "pedigree, segment " << i;
    }
  }
  return run;
}

// What cws::traces::validate and coarsen check of a tree; a plan with its
// audit records also satisfies the audit rules (one per task, levels, names).
void expect_well_formed(const st::tree& plan) {
  EXPECT_NO_THROW(cws::traces::validate(plan));
  EXPECT_NO_THROW(st::coarsen(plan, {}));
  for (const st::segment& s : plan.segments)
    for (const st::steal_point& p : s.steals) EXPECT_EQ(st::path_of(plan, p).size(), p.level);
}

st::tree plan_of(const st::tree& recorded, st::plan_summary* s = nullptr, st::plan_options o = {}) {
  o.keep_audit = true;
  return st::plan(recorded, o, s);
}

st::plan_options workers(std::uint32_t p) {
  st::plan_options o;
  o.workers = p;
  return o;
}

// The most tasks any worker can be left with when N tasks are cut into P
// chunks of consecutive tasks.
double best_split(std::uint64_t n, std::uint32_t p) { return static_cast<double>((n + p - 1) / p) * p / n; }

TEST(Plan, SplitsASerialLoopIntoOneContiguousRangePerWorker) {
  program loop;
  std::vector<std::uint32_t> leaf;
  cws::test::bisect_into(loop, leaf, 0, 0, 64);
  const simulation serial = simulate(loop, cws::test::root_only(4));
  ASSERT_EQ(serial.tree.segments.size(), 1u);
  ASSERT_EQ(serial.tree.audit.size(), 64u);

  st::plan_summary s;
  const st::tree plan = plan_of(serial.tree, &s);
  EXPECT_EQ(s.method, st::plan_method::split_serial);
  EXPECT_EQ(s.steals_before, 0u);
  EXPECT_EQ(s.steals_after, plan.segments.size() - 1);
  EXPECT_EQ(s.before.idle_workers, 3u);
  EXPECT_EQ(s.after.tasks, (std::vector<std::uint64_t>{16, 16, 16, 16}));
  EXPECT_DOUBLE_EQ(s.after.max_share_ratio, 1.0);
  EXPECT_TRUE(s.balanced);
  expect_well_formed(plan);

  const simulation run = expect_replays(loop, plan);
  // The root's worker keeps the top range (the root runs the last index),
  // the next workers take the ranges below it.
  for (std::uint32_t node = 0; node < loop.size(); ++node)
    EXPECT_EQ(run.worker[node], 3 - leaf[node] / 16) << "leaf " << leaf[node];
  // Each range is whole subtrees: the three halves [32,48), [0,32) and, out of
  // the latter, [0,16).
  EXPECT_EQ(plan.segments.size(), 4u);

  // Workers sorted by node: the ranges follow that order.
  st::plan_options by_node_order;
  by_node_order.worker_order = {0, 2, 1, 3};
  const st::tree by_node = plan_of(serial.tree, nullptr, by_node_order);
  const simulation run2 = expect_replays(loop, by_node);
  const std::uint32_t owner[] = {3, 1, 2, 0};  // of [0,16), [16,32), [32,48), [48,64)
  for (std::uint32_t node = 0; node < loop.size(); ++node) EXPECT_EQ(run2.worker[node], owner[leaf[node] / 16]);
}

TEST(Plan, SplitsSerialFibWithinOneTaskOfEven) {
  const program fib = cws::test::fib_program(14);
  for (const std::uint32_t workers : {2u, 3u, 4u, 8u}) {
    const simulation serial = simulate(fib, cws::test::root_only(workers));
    st::plan_summary s;
    const st::tree plan = plan_of(serial.tree, &s);
    SCOPED_TRACE(workers);
    EXPECT_EQ(s.after.idle_workers, 0u);
    EXPECT_LE(s.after.max_share_ratio, best_split(fib.size(), workers));
    EXPECT_TRUE(s.balanced);
    expect_well_formed(plan);
    const simulation run = expect_replays(fib, plan);
    EXPECT_EQ(st::balance_of(run.tree), s.after);
    // The audit the plan carries is what its replay records, task by task.
    const std::vector<std::uint32_t> one_node(workers, 0);
    const st::distance d = st::schedule_distance(plan, run.tree, one_node);
    EXPECT_TRUE(d.exact);
    EXPECT_EQ(d.moved_worker, 0.0);
  }
}

TEST(Plan, IrregularTreesWithSyncsInsideTasks) {
  unsigned planned = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    const program prog = cws::test::random_program(seed, 7, 4);
    if (prog.size() < 16) continue;
    ++planned;
    for (const std::uint32_t workers : {2u, 4u, 5u}) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << workers << " workers, " << prog.size() << " tasks");
      const simulation serial = simulate(prog, cws::test::root_only(workers));
      st::plan_summary s;
      const st::tree plan = plan_of(serial.tree, &s);
      EXPECT_EQ(s.after.idle_workers, 0u);
      EXPECT_LE(s.after.max_share_ratio, best_split(prog.size(), workers));
      expect_well_formed(plan);
      expect_replays(prog, plan);
    }
  }
  EXPECT_GE(planned, 8u);  // most seeds give trees worth planning
}

TEST(Plan, ASerialRecordingCanBePlannedForAnotherWorkerCount) {
  const program fib = cws::test::fib_program(12);
  const simulation serial = simulate(fib, cws::test::root_only(1));
  st::plan_summary s;
  const st::tree plan = plan_of(serial.tree, &s, workers(3));
  EXPECT_EQ(plan.workers, 3u);
  EXPECT_EQ(s.before.tasks.size(), 3u);
  EXPECT_EQ(s.after.idle_workers, 0u);
  expect_replays(fib, plan);
  // One worker: nothing to split.
  const st::tree one = plan_of(serial.tree, nullptr, workers(1));
  EXPECT_EQ(one.segments.size(), 1u);
}

// A parallel recording in which two of four workers did everything (what an
// oversubscribed machine records): the planner keeps both segments and carves
// subtrees out of them for the idle workers.
TEST(Plan, CarvesAParallelRecordingUntilBalanced) {
  unsigned planned = 0;
  for (unsigned seed = 0; seed < 6; ++seed) {
    const program prog = seed == 0 ? cws::test::fib_program(15) : cws::test::random_program(100 + seed, 8, 4);
    if (prog.size() < 64) continue;
    ++planned;
    SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << prog.size() << " tasks");
    // Record a two-worker split replayed on four workers.
    st::tree two = st::plan(simulate(prog, cws::test::root_only(2)).tree);
    two.workers = 4;
    two.worker_segments.resize(4);
    const simulation recorded = simulate(prog, two);
    ASSERT_EQ(st::balance_of(recorded.tree).idle_workers, 2u);

    st::plan_summary s;
    const st::tree plan = plan_of(recorded.tree, &s);
    EXPECT_EQ(s.method, st::plan_method::carve);
    EXPECT_EQ(s.steals_before, recorded.tree.segments.size() - 1);
    EXPECT_GT(s.steals_after, s.steals_before);
    EXPECT_EQ(s.before.idle_workers, 2u);
    EXPECT_EQ(s.after.idle_workers, 0u);
    EXPECT_LE(s.after.max_share_ratio, st::default_balance_tolerance);
    EXPECT_TRUE(s.balanced);
    expect_well_formed(plan);
    const simulation run = expect_replays(prog, plan);
    // Every recorded segment is still there: same root task, same worker.
    for (std::size_t i = 0; i < recorded.tree.segments.size(); ++i) {
      const std::uint32_t root = recorded.segment_root[i];
      const auto it = std::find(run.segment_root.begin(), run.segment_root.end(), root);
      ASSERT_NE(it, run.segment_root.end()) << "recorded segment " << i << " is gone";
      EXPECT_EQ(run.tree.segments[it - run.segment_root.begin()].worker, recorded.tree.segments[i].worker);
    }
  }
  EXPECT_GE(planned, 4u);
}

TEST(Plan, AlreadyBalancedRecordingsAreKept) {
  const program fib = cws::test::fib_program(13);
  const st::tree even = st::plan(simulate(fib, cws::test::root_only(4)).tree);
  const simulation recorded = simulate(fib, even);
  st::plan_summary s;
  const st::tree plan = st::plan(recorded.tree, {}, &s);
  EXPECT_EQ(s.method, st::plan_method::carve);
  EXPECT_EQ(s.steals_after, s.steals_before);
  EXPECT_EQ(plan.segments.size(), recorded.tree.segments.size());
  EXPECT_TRUE(plan.audit.empty());  // keep_audit is off by default
}

// 18 tasks on 4 workers: 5 is the best the busiest can get (x1.11 > 1.10);
// the carver stops there instead of adding steals that cannot help.
TEST(Plan, StopsAtTheGranularityOfWholeTasks) {
  program flat;
  for (int i = 0; i < 17; ++i) flat.spawn(0);
  st::plan_summary split;
  const st::tree even = st::plan(simulate(flat, cws::test::root_only(4)).tree, {}, &split);
  EXPECT_EQ(split.after.tasks, (std::vector<std::uint64_t>{5, 4, 5, 4}));
  EXPECT_FALSE(split.balanced);
  st::plan_summary s;
  st::plan(simulate(flat, even).tree, {}, &s);
  EXPECT_EQ(s.method, st::plan_method::carve);
  EXPECT_EQ(s.steals_after, s.steals_before);
}

TEST(Plan, RefusesWhatItCannotPlan) {
  const program fib = cws::test::fib_program(8);
  const st::tree serial = simulate(fib, cws::test::root_only(2)).tree;
  using cws::test::error_of;

  st::tree no_audit = serial;
  no_audit.audit.clear();
  EXPECT_EQ(error_of([&] { st::plan(no_audit); }),
            "plan: the recorded run has no audit records (record it in audit mode: CWS_AUDIT=1 or "
            "runtime_config::audit)");

  st::tree elided = serial;
  elided.segments[0].tasks += 5;  // as after serial elision: more tasks than records
  EXPECT_NE(error_of([&] { st::plan(elided); }).find("segment 0 ran"), std::string::npos);

  st::tree cycle = serial;
  cycle.audit[1].parent = 2;
  cycle.audit[2].parent = 1;
  EXPECT_NE(error_of([&] { st::plan(cycle); }).find("plan: "), std::string::npos);

  st::tree twice = serial;
  twice.audit[2].step = twice.audit[1].step;
  twice.audit[2].parent = twice.audit[1].parent;
  twice.audit[2].level = twice.audit[1].level;
  EXPECT_NE(error_of([&] { st::plan(twice); }).find("plan: "), std::string::npos);

  st::plan_options bad;
  bad.worker_order = {0, 0};
  EXPECT_EQ(error_of([&] { st::plan(serial, bad); }),
            "plan: worker_order must list each of the 2 workers once (it has 2 entries)");
  bad.worker_order = {1};
  EXPECT_EQ(error_of([&] { st::plan(serial, bad); }),
            "plan: worker_order must list each of the 2 workers once (it has 1 entry)");
  bad.worker_order.clear();
  bad.tolerance = 0.9;
  EXPECT_EQ(error_of([&] { st::plan(serial, bad); }), "plan: tolerance 0.9 is below 1 (1 is a perfect balance)");

  // A parallel recording cannot shrink below the workers it used.
  const st::tree split = st::plan(serial);
  const st::tree recorded = simulate(fib, split).tree;
  EXPECT_NE(error_of([&] { st::plan(recorded, workers(1)); }).find("needs a serial (one-segment) recording"),
            std::string::npos);
}

}  // namespace
