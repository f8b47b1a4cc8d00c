// Which random run a strict replay (stows, stuws) adopts as its template
// (schedulers/src/template_pick.hpp): the rule on scripted offers, and the
// policy on phases whose balance does not depend on timing (one task: the
// second worker is idle in every run; one worker: always balanced).

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cws/cws.hpp"
#include "cws/schedulers/schedule_store.hpp"
#include "support/runtime_fixture.hpp"
#include "support/steal_tree_builders.hpp"
#include "balanced_cuts.hpp"
#include "template_pick.hpp"

namespace {

namespace cs = cws::schedulers;
using cs::detail::template_pick;

std::shared_ptr<const cws::steal_tree::tree> a_tree() { return std::make_shared<const cws::steal_tree::tree>(); }

// A run's balance, the same share in tasks and in time.
cws::load_balance balance(double share, unsigned idle) { return {share, idle, share}; }

TEST(template_pick, a_balanced_run_is_adopted_at_once_and_starts_the_count_again) {
  template_pick pick;
  const auto first = a_tree(), second = a_tree();
  EXPECT_FALSE(pick.offer(first, balance(1.4, 0), false, false, false, 0, 5).adopt);
  EXPECT_EQ(pick.tries(), 1u);
  const template_pick::verdict v = pick.offer(second, balance(1.05, 0), true, true, false, 1, 5);
  EXPECT_EQ(v.adopt, second);
  EXPECT_EQ(v.run, 1u);
  EXPECT_FALSE(v.best_of_bound);
  EXPECT_EQ(pick.tries(), 0u);
}

// A tree of `workers` workers whose random run stole `steals` times (a root
// segment and one per steal; the pick reads only their number).
std::shared_ptr<const cws::steal_tree::tree> stolen(unsigned workers, unsigned steals) {
  auto t = std::make_shared<cws::steal_tree::tree>();
  t->workers = workers;
  t->segments.resize(steals + 1);
  return t;
}

TEST(template_pick, a_balanced_run_with_only_the_steals_it_needs_is_adopted_at_once) {
  template_pick pick;
  const auto three = stolen(2, 3), one = stolen(2, 1);
  EXPECT_EQ(template_pick::extra_steals_of(*three), 2u);
  EXPECT_EQ(template_pick::extra_steals_of(*one), 0u);
  EXPECT_EQ(template_pick::extra_steals_of(*stolen(4, 2)), 0u) << "fewer than P - 1: nothing extra";
  EXPECT_FALSE(pick.offer(three, balance(1.02, 0), true, true, false, 0, 5).adopt);
  EXPECT_TRUE(pick.balanced_candidate());
  EXPECT_EQ(pick.tries(), 1u);
  const template_pick::verdict v = pick.offer(one, balance(1.08, 0), true, true, false, 1, 5);
  EXPECT_EQ(v.adopt, one);
  EXPECT_FALSE(v.best_of_bound);
  EXPECT_TRUE(v.balanced);
  EXPECT_EQ(v.extra_steals, 0u);
  EXPECT_FALSE(pick.picking());
}

TEST(template_pick, at_the_bound_the_balanced_run_with_the_fewest_steals_is_adopted) {
  template_pick pick;
  const auto three = stolen(2, 3), unbalanced = stolen(2, 1), two = stolen(2, 2), also_two = stolen(2, 2);
  EXPECT_FALSE(pick.offer(three, balance(1.01, 0), true, true, false, 0, 4).adopt);
  EXPECT_FALSE(pick.offer(unbalanced, balance(1.5, 0), false, false, false, 1, 4).adopt) << "balanced beats unbalanced";
  EXPECT_TRUE(pick.balanced_candidate());
  EXPECT_FALSE(pick.offer(two, balance(1.09, 0), true, true, false, 2, 4).adopt);
  const template_pick::verdict v = pick.offer(also_two, balance(1.09, 0), true, true, false, 3, 4);
  EXPECT_EQ(v.adopt, two) << "of equal steals and balance, the first";
  EXPECT_EQ(v.run, 2u);
  EXPECT_TRUE(v.best_of_bound);
  EXPECT_TRUE(v.balanced);
  EXPECT_EQ(v.extra_steals, 1u);
  EXPECT_FALSE(pick.picking());
}

TEST(template_pick, a_balanced_tree_is_pruned_to_the_fewest_steals_that_stay_balanced) {
  const cs::replay_knobs knobs;
  const cws::steal_tree::tree t = cws::test::late_helper_split();
  const std::optional<cws::steal_tree::tree> fewer = template_pick::fewer_steals(t, knobs);
  ASSERT_TRUE(fewer.has_value()) << "the level-1 cut is the even split";
  EXPECT_EQ(template_pick::steals_of(*fewer), 1u);
  ASSERT_EQ(fewer->segments.size(), 2u);
  EXPECT_EQ(fewer->segments[0].tasks, 16u);
  EXPECT_EQ(fewer->segments[1].tasks, 16u) << "the blocks taken back run where the left half runs";
  EXPECT_EQ(fewer->segments[1].worker, 1u);
  EXPECT_EQ(fewer->segments[0].steals, t.segments[0].steals) << "the kept steal is named as recorded";
}

TEST(template_pick, a_cut_that_would_unbalance_the_tree_is_not_taken) {
  // Worker 1 took 4 of 16 blocks at (1,0), worker 0 gave it 4 more at (2,1):
  // without the second steal, worker 1 would run 4 of 16.
  namespace st = cws::steal_tree;
  st::tree t;
  t.workers = 2;
  t.segments.push_back(cws::test::segment_of(0, st::no_parent, 0, 0, 0, 1000, 8,
                                             {st::steal_point{.level = 1, .step = 0, .thief = 1, .child = 1},
                                              st::steal_point{.level = 2, .step = 1, .thief = 1, .child = 2}}));
  t.segments.push_back(cws::test::segment_of(1, 0, 1, 0, 10, 900, 4));
  t.segments.push_back(cws::test::segment_of(1, 0, 2, 1, 500, 990, 4));
  t.worker_segments = {{0}, {1, 2}};
  EXPECT_FALSE(template_pick::fewer_steals(t, cs::replay_knobs{}).has_value());
  EXPECT_FALSE(template_pick::fewer_steals(cws::test::root_only(2), cs::replay_knobs{}).has_value())
      << "no steal: nothing to prune";
}

// A run balanced in time whose task counts are not (a worker that lost its
// core for part of the run looks busy while it ran fewer tasks) is not
// adopted at once, even with only the steals it needs: it waits for the
// bound as a candidate, where it beats the runs balanced in neither.
TEST(template_pick, a_run_balanced_in_time_but_not_in_tasks_waits_for_the_bound) {
  template_pick pick;
  const auto uneven = stolen(2, 1), unbalanced = stolen(2, 1);
  const cws::load_balance in_time{.max_over_fair = 1.25, .idle_workers = 0, .busy_over_fair = 1.02};
  EXPECT_FALSE(pick.offer(uneven, in_time, true, false, false, 0, 2).adopt);
  EXPECT_TRUE(pick.balanced_candidate());
  const template_pick::verdict v = pick.offer(unbalanced, balance(1.3, 0), false, false, false, 1, 2);
  EXPECT_EQ(v.adopt, uneven);
  EXPECT_TRUE(v.best_of_bound);
  EXPECT_TRUE(v.balanced);
  EXPECT_DOUBLE_EQ(v.balance.busy_over_fair, 1.02);
}

// Of balanced runs with as many steals, the one more balanced in time.
TEST(template_pick, of_balanced_runs_with_as_many_steals_the_more_balanced_in_time) {
  template_pick pick;
  const auto first = stolen(2, 2), second = stolen(2, 2);
  EXPECT_FALSE(pick.offer(first, balance(1.08, 0), true, true, false, 0, 2).adopt);
  const template_pick::verdict v = pick.offer(second, balance(1.01, 0), true, true, false, 1, 2);
  EXPECT_EQ(v.adopt, second);
}

// cws-cg's spmv (55 row blocks whose first half holds more nonzeros), as a
// random run recorded it: worker 1 took the first 27 blocks at (1,0),
// worker 0 ran its 28 in 158 us and took 3 of worker 1's back at (3,6),
// both busy 175 us. Balanced in time (31 blocks against 24) and not in
// tasks; its level-1 cut is the even split, 28 and 27, balanced in tasks.
cws::steal_tree::tree uneven_rows_split(std::uint64_t taken_back_ns) {
  namespace st = cws::steal_tree;
  st::tree t;
  t.workers = 2;
  t.segments.push_back(cws::test::segment_of(0, st::no_parent, 0, 0, 0, 175000, 28,
                                             {st::steal_point{.level = 1, .step = 0, .thief = 1, .child = 1}}));
  t.segments.push_back(cws::test::segment_of(1, 0, 1, 0, 200, 175000, 24,
                                             {st::steal_point{.level = 3, .step = 6, .thief = 0, .child = 2}}));
  t.segments.push_back(cws::test::segment_of(0, 1, 3, 6, 175000 - taken_back_ns, 175000, 3));
  t.worker_segments = {{0, 2}, {1}};
  return t;
}

TEST(template_pick, with_the_runs_times_a_cut_that_would_unbalance_it_in_time_is_not_taken) {
  const cws::steal_tree::tree t = uneven_rows_split(17000);
  const std::vector<double> busy{175e-6, 175e-6};
  // The cut would hand the 17 us taken back to worker 1: 192 us against 158.
  const std::vector<double> after = cs::detail::busy_after_cut(t, 1, busy);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_NEAR(after[0], 158e-6, 1e-12);
  EXPECT_NEAR(after[1], 192e-6, 1e-12);
  EXPECT_FALSE(template_pick::fewer_steals(t, cs::replay_knobs{}, busy).has_value());
  // Without the times, the rule on task counts takes the even split.
  const std::optional<cws::steal_tree::tree> by_counts = template_pick::fewer_steals(t, cs::replay_knobs{});
  ASSERT_TRUE(by_counts.has_value());
  EXPECT_EQ(template_pick::steals_of(*by_counts), 1u);
}

TEST(template_pick, with_the_runs_times_a_cut_that_moves_little_time_is_taken) {
  // The piece taken back took 2 us: the cut makes worker 1 busy 177 us,
  // within prune_slack (2 % of the 175 us mean) of the run's busiest.
  const cws::steal_tree::tree t = uneven_rows_split(2000);
  const std::optional<cws::steal_tree::tree> fewer =
      template_pick::fewer_steals(t, cs::replay_knobs{}, std::vector<double>{175e-6, 175e-6});
  ASSERT_TRUE(fewer.has_value());
  EXPECT_EQ(template_pick::steals_of(*fewer), 1u);
  EXPECT_EQ(fewer->segments[1].tasks, 27u);
}

// A dropped segment's tasks fall back to the kept segment above it: one
// stolen out of a dropped segment goes where that segment's tasks go.
TEST(template_pick, busy_after_a_cut_follows_the_dropped_segments_to_their_kept_ancestor) {
  const cws::steal_tree::tree t = cws::test::late_helper_split();
  const std::vector<double> after = cs::detail::busy_after_cut(t, 1, std::vector<double>{76e-6, 75e-6});
  ASSERT_EQ(after.size(), 2u);
  // #2 (worker 0, 8 us) falls back to #1's worker 1; #3 (worker 1) falls back to #2's, worker 1 too.
  EXPECT_NEAR(after[0], 68e-6, 1e-12);
  EXPECT_NEAR(after[1], 83e-6, 1e-12);
  cws::steal_tree::tree not_pre_order = t;
  not_pre_order.segments[1].parent = 2;
  EXPECT_TRUE(cs::detail::busy_after_cut(not_pre_order, 1, std::vector<double>{76e-6, 75e-6}).empty());
  EXPECT_TRUE(cs::detail::busy_after_cut(t, 1, std::vector<double>{76e-6}).empty()) << "fewer times than workers";
}

TEST(template_pick, a_pruned_run_with_only_the_steals_it_needs_is_adopted_at_once_and_says_it_was_pruned) {
  template_pick pick;
  const auto pruned =
      std::make_shared<const cws::steal_tree::tree>(*template_pick::fewer_steals(cws::test::late_helper_split(), {}));
  const template_pick::verdict v = pick.offer(pruned, balance(1.06, 0), true, true, false, 7, 5, 3);
  EXPECT_EQ(v.adopt, pruned);
  EXPECT_FALSE(v.best_of_bound);
  EXPECT_EQ(v.extra_steals, 0u);
  EXPECT_EQ(v.recorded_steals, 3u);
  const template_pick::verdict w = template_pick().offer(pruned, balance(1.0, 0), true, true, false, 8, 5);
  EXPECT_EQ(w.recorded_steals, 1u) << "not pruned: the tree's own steals";
}

TEST(template_pick, a_bound_of_one_adopts_a_balanced_run_whatever_its_steals) {
  template_pick pick;
  const auto three = stolen(2, 3);
  const template_pick::verdict v = pick.offer(three, balance(1.0, 0), true, true, false, 0, 1);
  EXPECT_EQ(v.adopt, three);
  EXPECT_EQ(v.extra_steals, 2u);
}

TEST(template_pick, at_the_bound_the_most_balanced_run_is_adopted_fewer_idle_workers_first) {
  template_pick pick;
  const auto idle = a_tree(), skewed = a_tree(), better = a_tree(), worse = a_tree();
  EXPECT_FALSE(pick.offer(idle, balance(1.5, 1), false, false, false, 0, 4).adopt);
  EXPECT_FALSE(
      pick.offer(skewed, balance(1.9, 0), false, false, false, 1, 4).adopt);  // no idle worker beats a smaller share
  EXPECT_FALSE(pick.offer(better, balance(1.3, 0), false, false, false, 2, 4).adopt);
  const template_pick::verdict v = pick.offer(worse, balance(1.6, 0), false, false, false, 3, 4);
  EXPECT_EQ(v.adopt, better);
  EXPECT_EQ(v.run, 2u);
  EXPECT_DOUBLE_EQ(v.balance.max_over_fair, 1.3);
  EXPECT_TRUE(v.best_of_bound);
  EXPECT_EQ(pick.tries(), 0u);
}

TEST(template_pick, a_bound_of_one_adopts_the_first_run_as_it_is) {
  template_pick pick;
  const auto t = a_tree();
  const template_pick::verdict v = pick.offer(t, balance(2.0, 1), false, false, false, 0, 1);
  EXPECT_EQ(v.adopt, t);
  EXPECT_FALSE(v.best_of_bound);
}

TEST(template_pick, runs_with_a_helper_absent_count_as_tries_only_past_the_allowance) {
  template_pick pick;
  constexpr unsigned allowance = template_pick::absent_allowance;
  const auto idle = a_tree(), absent_best = a_tree();
  // An absent run is still a candidate: of equal runs the first stays the best.
  EXPECT_FALSE(pick.offer(absent_best, balance(2.0, 1), false, false, true, 0, 2).adopt);
  EXPECT_EQ(pick.tries(), 0u);
  EXPECT_EQ(pick.absent_uncounted(), 1u);
  EXPECT_TRUE(pick.picking());
  for (unsigned i = 1; i < allowance; ++i) {
    const template_pick::verdict v = pick.offer(a_tree(), balance(2.0, 1), false, false, true, i, 2);
    EXPECT_FALSE(v.adopt) << "absent run " << i;
    EXPECT_FALSE(v.counted) << "absent run " << i;
  }
  EXPECT_EQ(pick.tries(), 0u);
  EXPECT_EQ(pick.absent_uncounted(), allowance);
  // Past the allowance they count.
  const template_pick::verdict counted = pick.offer(a_tree(), balance(2.0, 1), false, false, true, allowance, 2);
  EXPECT_FALSE(counted.adopt);
  EXPECT_TRUE(counted.counted);
  EXPECT_EQ(pick.tries(), 1u);
  const template_pick::verdict v = pick.offer(idle, balance(2.0, 1), false, false, false, allowance + 1, 2);
  EXPECT_EQ(v.adopt, absent_best);
  EXPECT_EQ(v.run, 0u);
  EXPECT_TRUE(v.best_of_bound);
  EXPECT_FALSE(pick.picking());
}

// The rule the policy applies to a run's report: a helper is absent when
// one did not join a phase that spawned and lasted long enough to join.
TEST(template_pick, a_helper_is_absent_only_from_a_spawning_phase_long_enough_to_join) {
  constexpr double long_enough = template_pick::helper_join_s, too_short = template_pick::helper_join_s / 2;
  EXPECT_TRUE(template_pick::helper_absent(1, 2, 2, long_enough));
  EXPECT_TRUE(template_pick::helper_absent(3, 4, 100, 1.0));
  EXPECT_FALSE(template_pick::helper_absent(1, 2, 2, too_short)) << "too short for any helper to join";
  EXPECT_FALSE(template_pick::helper_absent(2, 2, 2, long_enough)) << "every worker joined";
  EXPECT_FALSE(template_pick::helper_absent(1, 2, 1, long_enough)) << "nothing spawned: nothing to steal";
  EXPECT_FALSE(template_pick::helper_absent(1, 1, 8, 1.0)) << "one worker";
}

TEST(template_pick, a_bound_of_one_adopts_the_first_run_even_with_a_helper_absent) {
  template_pick pick;
  const auto absent = a_tree();
  const template_pick::verdict v = pick.offer(absent, balance(2.0, 1), false, false, true, 0, 1);
  EXPECT_EQ(v.adopt, absent);
  EXPECT_FALSE(pick.picking());
}

struct strict_runs {
  std::vector<cws::ran_as> ran_as;
  std::vector<std::string> reasons, notes;
  std::string template_from;
};

strict_runs run_strict(std::string_view policy, unsigned workers, unsigned tries, unsigned balance_pct, int runs,
                       std::string topology = {}) {
  cws::runtime_config cfg = cws::test::config(workers, std::move(topology));
  cs::knobs_of(cfg).replay.template_tries = tries;
  cs::knobs_of(cfg).replay.evolve_balance_pct = balance_pct;
  cws::runtime rt(cfg);
  auto& s = rt.schedule("step", policy);
  strict_runs out;
  for (int i = 0; i < runs; ++i) {
    const cws::run_report& r = rt.run(s, [] {});  // one task, no spawn
    out.ran_as.push_back(r.ran_as);
    out.reasons.push_back(r.reason);
    out.notes.push_back(r.note);
  }
  out.template_from = cs::store_of(rt).at("step").template_from;
  return out;
}

class strict_pick : public ::testing::TestWithParam<std::string_view> {};

TEST_P(strict_pick, runs_that_leave_a_worker_idle_are_recorded_again_up_to_the_bound) {
  const strict_runs r = run_strict(GetParam(), 2, 3, 10, 5);
  const cws::ran_as replayed = GetParam() == "stows" ? cws::ran_as::stows : cws::ran_as::stuws;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(r.ran_as[i], cws::ran_as::random_no_template) << "run " << i;
  EXPECT_EQ(r.ran_as[3], replayed);
  EXPECT_EQ(r.ran_as[4], replayed);
  EXPECT_EQ(r.reasons[0], "no template yet");
  EXPECT_EQ(r.reasons[1], "no balanced run yet: 1 of 3 tried");
  EXPECT_EQ(r.reasons[2], "no balanced run yet: 2 of 3 tried");
  EXPECT_NE(r.notes[0].find("not a template: busiest worker x2.00 of its fair share of the busy time, 1 idle"),
            std::string::npos)
      << r.notes[0];
  EXPECT_NE(r.notes[2].find("no random run balanced in 3: run #0"), std::string::npos) << r.notes[2];
  EXPECT_TRUE(r.notes[3].empty()) << r.notes[3];
  // Equal runs: the first one tried stays the best.
  EXPECT_EQ(r.template_from, "recorded run #0, the most balanced of 3 random runs");
}

TEST_P(strict_pick, one_try_or_no_balance_rule_adopts_the_first_run) {
  for (const auto& [tries, pct] : {std::pair{1u, 10u}, std::pair{5u, 0u}}) {
    const strict_runs r = run_strict(GetParam(), 2, tries, pct, 2);
    EXPECT_EQ(r.ran_as[0], cws::ran_as::random_no_template);
    EXPECT_NE(r.ran_as[1], cws::ran_as::random_no_template) << "tries " << tries << ", balance " << pct;
    EXPECT_TRUE(r.notes[0].empty()) << r.notes[0];
    EXPECT_EQ(r.template_from, "recorded run #0");
  }
}

// The default (0, auto) on synthetic machines: on one NUMA node the phase
// that leaves a worker idle is recorded again (up to 5 runs); with two nodes
// the first run is the template, as its first touches placed the pages.
TEST_P(strict_pick, by_default_one_node_records_again_and_several_nodes_adopt_the_first_run) {
  const strict_runs one = run_strict(GetParam(), 2, 0, 10, 7, "pack:1 numa:1 core:2 pu:1");
  for (int i = 0; i < 5; ++i) EXPECT_EQ(one.ran_as[i], cws::ran_as::random_no_template) << "run " << i;
  EXPECT_NE(one.ran_as[5], cws::ran_as::random_no_template);
  EXPECT_EQ(one.reasons[4], "no balanced run yet: 4 of 5 tried");
  const strict_runs two = run_strict(GetParam(), 2, 0, 10, 2, "pack:2 numa:1 core:1 pu:1");
  EXPECT_EQ(two.ran_as[0], cws::ran_as::random_no_template);
  EXPECT_NE(two.ran_as[1], cws::ran_as::random_no_template);
  EXPECT_EQ(two.template_from, "recorded run #0");
}

TEST_P(strict_pick, one_worker_is_always_balanced) {
  const strict_runs r = run_strict(GetParam(), 1, 5, 10, 2);
  EXPECT_EQ(r.ran_as[0], cws::ran_as::random_no_template);
  EXPECT_NE(r.ran_as[1], cws::ran_as::random_no_template);
  EXPECT_EQ(r.template_from, "recorded run #0");
}

INSTANTIATE_TEST_SUITE_P(policies, strict_pick, ::testing::Values("stows", "stuws"),
                         [](const auto& p) { return std::string(p.param); });

}  // namespace
