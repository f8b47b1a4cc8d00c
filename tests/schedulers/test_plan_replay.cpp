// The planner on the real runtime: a serial audit run (stows with a
// root-only template: every task on worker 0) of a loop, fib and an
// irregular recursion on 4 workers (two synthetic NUMA nodes) is planned with
// schedule_store::plan and replayed under stows. The replays give correct
// results, never diverge, reproduce the plan's steal points and its task ->
// worker mapping exactly, every worker owns work, and for the loop each worker
// runs one contiguous range of leaves, in the order of the NUMA nodes.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "cws/steal_tree/balance.hpp"
#include "cws/steal_tree/plan.hpp"
#include "cws/traces/trace_file.hpp"
#include "schedulers/replay_support.hpp"
#include "support/error_of.hpp"
#include "support/steal_tree_builders.hpp"

namespace {

namespace st = cws::steal_tree;
using cws::schedulers::store_of;

constexpr unsigned workers = 4;

// The workers by NUMA node, as schedule_store::plan orders them by default.
std::vector<std::uint32_t> by_node(const cws::runtime& rt) {
  std::vector<cws::worker_placement> p = rt.placement();
  std::stable_sort(p.begin(), p.end(), [](const auto& a, const auto& b) { return a.numa_node < b.numa_node; });
  std::vector<std::uint32_t> order;
  for (const auto& w : p) order.push_back(w.worker);
  return order;
}

// Runs `body` once serially on schedule `name` (under stows), plans it with
// the store, and returns the serial recording; the schedule's template is
// then the plan.
template <class Body>
st::tree record_serially_and_plan(cws::runtime& rt, cws::schedule& s, Body body, st::plan_summary& summary) {
  store_of(rt).seed(s.name(), cws::test::root_only(workers), "root only");
  rt.run(s, body);
  st::tree serial = st::recorder_of(rt)->latest(s.name())->steals;
  EXPECT_EQ(serial.segments.size(), 1u);
  EXPECT_EQ(serial.audit.size(), serial.segments.at(0).tasks);
  summary = store_of(rt).plan(s.name());
  EXPECT_EQ(summary.method, st::plan_method::split_serial);
  EXPECT_EQ(summary.steals_before, 0u);
  EXPECT_EQ(summary.before.idle_workers, workers - 1);
  EXPECT_EQ(summary.after.idle_workers, 0u);
  const auto& state = store_of(rt).at(s.name());
  EXPECT_EQ(state.template_from, "planned from recorded run #0 (split_serial)");
  EXPECT_NO_THROW(cws::traces::validate(*state.templ));
  return serial;
}

// One replay of the plan: under stows, not diverged, the plan's steal points
// and (exactly, task by task) its mapping, every worker with work.
template <class Body>
void replay_and_check(cws::runtime& rt, cws::schedule& s, const st::tree& serial, Body body) {
  const st::tree& templ = *store_of(rt).at(s.name()).templ;
  st::plan_options o;
  o.worker_order = by_node(rt);
  o.keep_audit = true;
  const st::tree expected = st::plan(serial, o);
  const cws::run_report& r = rt.run(s, body);
  EXPECT_EQ(r.ran_as, cws::ran_as::stows) << r.label();
  EXPECT_FALSE(r.diverged()) << r.reason;
  const st::tree& run = st::recorder_of(rt)->latest(s.name())->steals;
  cws::test::expect_same_steal_points(templ, run);
  cws::test::expect_same_task_mapping(expected, run);
  const st::balance b = st::balance_of(run);
  EXPECT_EQ(b.idle_workers, 0u);
  EXPECT_EQ(b, st::balance_of(templ));
}

TEST(plan_replay, loop_leaves_form_one_contiguous_range_per_worker) {
  cws::runtime rt(cws::test::audited(workers, cws::test::four_cores));
  auto& s = rt.schedule("heat", cws::policy::stows);
  constexpr std::size_t n = 64;  // rows, one leaf each
  cws::test::heat_grid grid(n), reference(n);
  std::vector<std::atomic<unsigned>> owner(n);
  auto step = [&] {
    cws::parallel_for_range(
        0, n,
        [&](std::size_t lo, std::size_t hi) {
          for (std::size_t i = lo; i < hi; ++i) owner[i] = cws::this_worker();
          grid.step_rows(lo, hi);
        },
        1);
    grid.a.swap(grid.b);
  };
  st::plan_summary summary;
  const st::tree serial = record_serially_and_plan(rt, s, step, summary);
  reference.serial_step();
  EXPECT_DOUBLE_EQ(summary.after.max_share_ratio, 1.0);  // 64 tasks, 16 each
  EXPECT_TRUE(summary.balanced);

  // The root's worker keeps the bottom range (the root runs the first row:
  // parallel_for keeps the left half); the others take the ranges above it,
  // in node order.
  std::vector<std::uint32_t> chunk_owner{0};
  for (const std::uint32_t w : by_node(rt))
    if (w != 0) chunk_owner.push_back(w);
  for (int it = 0; it < 3; ++it) {
    replay_and_check(rt, s, serial, step);
    reference.serial_step();
    EXPECT_EQ(grid.a, reference.a);
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(owner[i].load(), chunk_owner[i / 16]) << "row " << i;
    EXPECT_LE(st::balance_of(st::recorder_of(rt)->latest("heat")->steals).max_share_ratio,
              st::default_balance_tolerance);
  }
}

TEST(plan_replay, fib) {
  cws::runtime rt(cws::test::audited(workers, cws::test::four_cores));
  auto& s = rt.schedule("fib", cws::policy::stows);
  std::uint64_t result = 0;
  auto body = [&] { result = cws::test::fib(16); };
  st::plan_summary summary;
  const st::tree serial = record_serially_and_plan(rt, s, body, summary);
  EXPECT_EQ(result, cws::test::serial_fib(16));
  EXPECT_TRUE(summary.balanced);
  for (int it = 0; it < 3; ++it) {
    result = 0;
    replay_and_check(rt, s, serial, body);
    EXPECT_EQ(result, cws::test::serial_fib(16));
  }
}

// n-queens: one task per safe placement of the next queen, a sync per row
// (an irregular tree: fan-out from 0 to n).
std::uint64_t queens(unsigned n, unsigned row, std::uint32_t cols, std::uint32_t diag1, std::uint32_t diag2) {
  if (row == n) return 1;
  std::vector<std::uint64_t> found(n, 0);
  for (unsigned c = 0; c < n; ++c) {
    const std::uint32_t bit = 1u << c, d1 = 1u << (row + c), d2 = 1u << (row + n - c);
    if ((cols & bit) || (diag1 & d1) || (diag2 & d2)) continue;
    cws::spawn([&found, n, row, c, cols, diag1, diag2, bit, d1, d2] {
      found[c] = queens(n, row + 1, cols | bit, diag1 | d1, diag2 | d2);
    });
  }
  cws::sync();
  std::uint64_t total = 0;
  for (const std::uint64_t f : found) total += f;
  return total;
}

TEST(plan_replay, irregular_recursion) {
  cws::runtime rt(cws::test::audited(workers, cws::test::four_cores));
  auto& s = rt.schedule("queens", cws::policy::stows);
  std::uint64_t solutions = 0;
  auto body = [&] { solutions = queens(7, 0, 0, 0, 0); };
  st::plan_summary summary;
  const st::tree serial = record_serially_and_plan(rt, s, body, summary);
  EXPECT_EQ(solutions, 40u);
  EXPECT_LE(summary.after.max_share_ratio, st::default_balance_tolerance);
  for (int it = 0; it < 3; ++it) {
    solutions = 0;
    replay_and_check(rt, s, serial, body);
    EXPECT_EQ(solutions, 40u);
  }
}

// A parallel audit run in which two of the four workers did everything (what
// an oversubscribed machine records): the plan keeps its steals and carves
// subtrees out of the busy segments for the idle workers.
TEST(plan_replay, carves_a_recording_that_left_workers_idle) {
  cws::runtime rt(cws::test::audited(workers, cws::test::four_cores));
  auto& s = rt.schedule("fib", cws::policy::stows);
  std::uint64_t result = 0;
  auto body = [&] { result = cws::test::fib(16); };
  st::plan_summary summary;
  const st::tree serial = record_serially_and_plan(rt, s, body, summary);
  st::plan_options two;
  two.workers = 2;
  st::tree halves = st::plan(serial, two);
  halves.workers = workers;
  halves.worker_segments.resize(workers);
  store_of(rt).seed("fib", halves, "two workers of four");
  rt.run(s, body);
  const st::tree recorded = st::recorder_of(rt)->latest("fib")->steals;
  ASSERT_EQ(st::balance_of(recorded).idle_workers, 2u);

  summary = store_of(rt).plan("fib");
  EXPECT_EQ(summary.method, st::plan_method::carve);
  EXPECT_EQ(summary.steals_before, recorded.segments.size() - 1);
  EXPECT_EQ(summary.before.idle_workers, 2u);
  EXPECT_TRUE(summary.balanced);
  const st::tree templ = *store_of(rt).at("fib").templ;
  EXPECT_NO_THROW(cws::traces::validate(templ));
  for (int it = 0; it < 3; ++it) {
    result = 0;
    const cws::run_report& r = rt.run(s, body);
    EXPECT_EQ(result, cws::test::serial_fib(16));
    EXPECT_EQ(r.ran_as, cws::ran_as::stows) << r.label();
    EXPECT_FALSE(r.diverged()) << r.reason;
    const st::tree& run = st::recorder_of(rt)->latest("fib")->steals;
    cws::test::expect_same_steal_points(templ, run);
    EXPECT_EQ(st::balance_of(run), summary.after);
    EXPECT_LE(st::balance_of(run).max_share_ratio, st::default_balance_tolerance);
  }
}

TEST(plan_replay, plans_from_an_audited_template_or_says_how_to_get_one) {
  st::tree serial;
  {
    cws::runtime rt(cws::test::audited(workers, cws::test::four_cores));
    auto& s = rt.schedule("fib", cws::policy::stows);
    st::plan_summary summary;
    serial = record_serially_and_plan(
        rt, s, [] { cws::test::fib(12); }, summary);
  }
  cws::runtime rt(cws::test::config(workers, cws::test::four_cores));  // no audit
  auto& s = rt.schedule("fib", cws::policy::stows);
  EXPECT_EQ(cws::test::error_of([&] { store_of(rt).plan("fib"); }),
            "schedule 'fib' has no run with audit records to plan from (run it once in audit mode: CWS_AUDIT=1 or "
            "runtime_config::audit)");
  store_of(rt).seed("fib", serial, "a serial audit run");
  const st::plan_summary summary = store_of(rt).plan("fib");
  EXPECT_EQ(summary.after.idle_workers, 0u);
  EXPECT_EQ(store_of(rt).at("fib").template_from, "planned from a serial audit run (split_serial)");
  std::uint64_t result = 0;
  const cws::run_report& r = rt.run(s, [&] { result = cws::test::fib(12); });
  EXPECT_EQ(result, cws::test::serial_fib(12));
  EXPECT_EQ(r.ran_as, cws::ran_as::stows);
  EXPECT_EQ(r.balance.idle_workers, 0u);
}

}  // namespace
