// Audit mode against the recorded tree over many seeds and bigger phases, on
// 2 workers and synthetic 4- and 8-worker topologies (ctest labels stress,
// tsan). Also checks the exact schedule distance between two real runs
// against a brute-force recount of moved tasks.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "record_checks.hpp"

namespace {

namespace st = cws::steal_tree;

class steal_tree_stress : public ::testing::TestWithParam<cws::test::topo_case> {};

TEST_P(steal_tree_stress, many_seeds) {
  cws::test::run_counts counts;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    cws::test::run_and_check(GetParam(), seed * 0x9e3779b97f4a7c15ull, 21, 1 << 17, 32, 3, counts);
    if (HasFatalFailure()) return;
  }
  // 168 checked phases, 24 with a forced steal: steals were exercised
  // whatever the load (how many more, random stealing decides).
  EXPECT_GE(counts.steals, 24u);
  EXPECT_GT(counts.nested, 0u);
}

// Brute force: the worker of every task of `t`, keyed by its spawn path
// (its ancestors' ranks among their parents' spawns, from the phase root).
std::map<std::vector<std::uint32_t>, std::uint32_t> workers_by_spawn_path(const st::tree& t) {
  std::map<std::uint32_t, std::vector<std::uint32_t>> kids;  // parent -> children
  std::uint32_t root = st::no_parent;
  for (std::uint32_t i = 0; i < t.audit.size(); ++i) {
    if (t.audit[i].parent == st::no_parent)
      root = i;
    else
      kids[t.audit[i].parent].push_back(i);
  }
  std::map<std::vector<std::uint32_t>, std::uint32_t> out;
  std::vector<std::pair<std::uint32_t, std::vector<std::uint32_t>>> todo{{root, {}}};
  while (!todo.empty()) {
    auto [i, path] = todo.back();
    todo.pop_back();
    out.emplace(path, t.audit[i].worker);
    auto& ks = kids[i];
    std::sort(ks.begin(), ks.end(), [&](std::uint32_t x, std::uint32_t y) {
      return std::tie(t.audit[x].level, t.audit[x].step) < std::tie(t.audit[y].level, t.audit[y].step);
    });
    for (std::uint32_t r = 0; r < ks.size(); ++r) {
      auto p = path;
      p.push_back(r);
      todo.emplace_back(ks[r], std::move(p));
    }
  }
  return out;
}

// The spawn paths of fib(n): the root's spawns are fib(n-1), fib(n-3), ...
// (it continues inline with n-2, n-4, ...), each spawned fib(m) likewise.
void fib_paths(unsigned n, std::vector<std::uint32_t>& path, std::set<std::vector<std::uint32_t>>& out) {
  out.insert(path);
  std::uint32_t rank = 0;
  for (unsigned m = n; m >= 2; m -= 2) {
    path.push_back(rank++);
    fib_paths(m - 1, path, out);
    path.pop_back();
  }
}

TEST_P(steal_tree_stress, exact_distance_between_runs_matches_a_recount) {
  cws::runtime_config c = cws::test::audit_config(GetParam(), 7, true);
  c.history = 100;  // every run below
  cws::runtime rt(c);
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  auto& fs = rt.schedule("fib");
  std::vector<std::uint32_t> nodes;
  for (const auto& p : rt.placement()) nodes.push_back(p.numa_node);
  std::set<std::vector<std::uint32_t>> expected;
  std::vector<std::uint32_t> scratch;
  fib_paths(19, scratch, expected);
  ASSERT_EQ(expected.size(), cws::test::fib_spawns(19) + 1);
  // Consecutive runs compared until five pairs were and some task moved in
  // one of them (on a loaded machine the other workers may get no time to
  // steal during a phase this short; a bound keeps the loop finite).
  std::uint64_t moved_total = 0;
  int pairs = 0;
  rt.run(fs, [] { cws::test::fib(19); });
  for (int run = 1; run < 100 && (pairs < 5 || moved_total == 0); ++run, ++pairs) {
    rt.run(fs, [] { cws::test::fib(19); });
    const auto& ph = rec->phases();
    ASSERT_EQ(ph.size(), static_cast<std::size_t>(run + 1));
    const st::tree& a = ph[ph.size() - 2].steals;
    const st::tree& b = ph.back().steals;
    const auto wa = workers_by_spawn_path(a);
    const auto wb = workers_by_spawn_path(b);
    ASSERT_EQ(wa.size(), a.audit.size());
    // The spawn paths are those of the program, whatever the schedule.
    std::set<std::vector<std::uint32_t>> names;
    for (const auto& [name, w] : wa) names.insert(name);
    ASSERT_EQ(names, expected);
    ASSERT_EQ(wb.size(), wa.size());
    double moved = 0, moved_node = 0;
    for (const auto& [name, w] : wa) {
      auto there = wb.find(name);
      ASSERT_NE(there, wb.end());
      moved += there->second != w;
      moved_node += nodes[there->second] != nodes[w];
    }
    moved_total += static_cast<std::uint64_t>(moved);
    const st::distance d = st::schedule_distance(a, b, nodes);
    EXPECT_TRUE(d.exact);
    EXPECT_EQ(d.work, a.audit.size());
    EXPECT_DOUBLE_EQ(d.moved_worker, moved / static_cast<double>(wa.size()));
    EXPECT_DOUBLE_EQ(d.moved_node, moved_node / static_cast<double>(wa.size()));
    const st::distance back = st::schedule_distance(b, a, nodes);
    EXPECT_DOUBLE_EQ(back.moved_worker, d.moved_worker);
    EXPECT_DOUBLE_EQ(back.moved_node, d.moved_node);
    // The spawn path computed by the analysis for a few records.
    for (std::uint32_t k = 0; k < a.audit.size(); k += 997) EXPECT_EQ(wa.at(st::spawn_path(a, k)), a.audit[k].worker);
  }
  EXPECT_GT(moved_total, 0u) << pairs << " pairs of runs where no task ever moved: the comparison was not exercised";
}

// Leaves that take a while (~20 us each): idle workers find plenty to steal,
// so trees have many segments and steals.
TEST_P(steal_tree_stress, busy_leaves_many_steals) {
  cws::test::run_counts counts;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    cws::runtime rt(cws::test::audit_config(GetParam(), seed, true));
    st::recorder* rec = st::recorder_of(rt);
    ASSERT_NE(rec, nullptr);
    std::vector<std::uint64_t> out(512, 0);
    const cws::phase_stats& s = rt.run([&] {
      cws::parallel_for(
          0, out.size(), [&](std::size_t i) { out[i] = cws::test::spin_for(std::chrono::microseconds(20), i) | 1; }, 1);
    });
    ASSERT_TRUE(std::all_of(out.begin(), out.end(), [](std::uint64_t v) { return v != 0; }));
    const st::phase_record& r = *rec->latest("default");
    cws::test::check_tree(r, s, "busy leaves seed " + std::to_string(seed));
    cws::test::check_audit(r, s, "busy leaves seed " + std::to_string(seed));
    counts += cws::test::counts_of(s);
    if (HasFatalFailure()) return;
    // How many of those leaves were stolen depends on the load; one steal
    // per seed is certain (record_checks.hpp).
    const cws::phase_stats& x = cws::test::run_forced_steal(rt, rt.schedule("forced"));
    cws::test::check_tree(*rec->latest("forced"), x, "forced steal seed " + std::to_string(seed));
    cws::test::check_audit(*rec->latest("forced"), x, "forced steal seed " + std::to_string(seed));
    counts += cws::test::counts_of(x);
    if (HasFatalFailure()) return;
  }
  EXPECT_GE(counts.steals, 6u);
}

INSTANTIATE_TEST_SUITE_P(topologies, steal_tree_stress, ::testing::ValuesIn(cws::test::topo_cases),
                         [](const auto& p) { return std::string(p.param.name); });

}  // namespace
