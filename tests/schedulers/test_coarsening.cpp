// Dynamic coarsening: a pruned template replays under stuws with fewer
// segments, the same results, and exactly the pruned steal points.

#include <gtest/gtest.h>

#include <algorithm>

#include "schedulers/replay_support.hpp"
#include "support/error_of.hpp"

namespace {

namespace st = cws::steal_tree;

std::uint32_t deepest_steal(const st::tree& t) {
  std::uint32_t deepest = 0;
  for (const auto& s : t.segments)
    for (const auto& p : s.steals) deepest = std::max(deepest, p.level);
  return deepest;
}

TEST(coarsening, pruned_template_replays_with_fewer_segments_and_same_results) {
  cws::runtime rt(cws::test::config(4, cws::test::four_cores));
  // Record under random until a run stole below level 1, then replay that tree.
  auto& probe = rt.schedule("probe", cws::policy::random);
  st::tree fine;
  for (int i = 0; i < 200 && deepest_steal(fine) < 2; ++i) {
    rt.run(probe, [&] { cws::test::fib(22); });
    fine = st::recorder_of(rt)->latest("probe")->steals;
  }
  ASSERT_GE(deepest_steal(fine), 2u) << "no recorded run stole below level 1";
  cws::schedulers::store_of(rt).seed("fib", fine, "the probe");
  auto& s = rt.schedule("fib", cws::policy::stuws);
  std::uint64_t result = 0;

  const st::coarsen_summary summary =
      cws::schedulers::store_of(rt).coarsen("fib", {.max_level = 1, .min_tasks = 0, .workers = std::nullopt});
  const auto& state = cws::schedulers::store_of(rt).at("fib");
  const st::tree coarse = *state.templ;
  EXPECT_LT(coarse.segments.size(), fine.segments.size());
  EXPECT_EQ(summary.steals_before - summary.steals_after, fine.segments.size() - coarse.segments.size());
  EXPECT_LE(deepest_steal(coarse), 1u);
  EXPECT_NE(state.template_from.find("coarsened (max level 1)"), std::string::npos) << state.template_from;

  for (int i = 0; i < 5; ++i) {
    result = 0;
    rt.run(s, [&] { result = cws::test::fib(22); });
    EXPECT_EQ(result, cws::test::serial_fib(22));
    const st::tree& run = st::recorder_of(rt)->latest("fib")->steals;
    cws::test::expect_same_steal_points(coarse, run);
    const auto& r = s.history().back();
    EXPECT_EQ(r.ran_as, cws::ran_as::stuws);
    EXPECT_FALSE(r.diverged()) << r.reason;
    EXPECT_EQ(r.segments(), coarse.segments.size());
  }
}

TEST(coarsening, by_min_tasks_keeps_only_big_subtrees) {
  cws::runtime rt(cws::test::config(4, cws::test::four_cores));
  auto& s = rt.schedule("fib", cws::policy::stuws);
  rt.run(s, [&] { cws::test::fib(21); });
  const st::tree fine = *cws::schedulers::store_of(rt).at("fib").templ;
  cws::schedulers::store_of(rt).coarsen("fib", {.max_level = std::nullopt, .min_tasks = 2000, .workers = std::nullopt});
  const st::tree coarse = *cws::schedulers::store_of(rt).at("fib").templ;
  EXPECT_LE(coarse.segments.size(), fine.segments.size());
  std::uint64_t result = 0;
  rt.run(s, [&] { result = cws::test::fib(21); });
  EXPECT_EQ(result, cws::test::serial_fib(21));
  cws::test::expect_same_steal_points(coarse, st::recorder_of(rt)->latest("fib")->steals);
}

TEST(coarsening, needs_something_to_prune) {
  cws::runtime rt(cws::test::config(2));
  EXPECT_EQ(cws::test::error_of([&] {
              cws::schedulers::store_of(rt).coarsen("never", {.max_level = 1, .min_tasks = 0, .workers = std::nullopt});
            }),
            "schedule 'never' has no template and no recorded run to coarsen");
}

}  // namespace
