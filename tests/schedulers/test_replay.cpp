// STOWS, STUWS, RELWS and evolve replaying recorded trees: the task -> worker
// mapping and the per-worker segment order of the template are reproduced,
// results stay correct, evolve converges.

#include <gtest/gtest.h>

#include <string>

#include "schedulers/replay_support.hpp"

namespace {

namespace st = cws::steal_tree;
using cws::test::audited;
using cws::test::latest;

struct replay_case {
  unsigned workers;
  std::string topology;
};

class strict_replay : public ::testing::TestWithParam<replay_case> {};

// A template worth replaying: a run that stole (more than the root segment), in at most 200 runs.
template <class Program>
st::tree record_with_steals(cws::runtime& rt, const std::string& probe, Program program) {
  return cws::test::record_with_steals(rt, probe, program, 200, 1);
}

// STOWS over 24 iterations of fib: the template is a recorded random run;
// every replay reproduces it exactly, task by task.
TEST_P(strict_replay, stows_reproduces_fib_template_every_iteration) {
  cws::runtime rt(audited(GetParam().workers, GetParam().topology));
  const st::tree templ = record_with_steals(rt, "probe", [] { cws::test::fib(18); });
  ASSERT_GT(templ.segments.size(), 1u) << "no random run stole anything";
  cws::schedulers::store_of(rt).seed("fib", templ, "probe");
  auto& s = rt.schedule("fib", cws::policy::stows);
  std::uint64_t result = 0;

  for (int it = 1; it < 24; ++it) {
    result = 0;
    rt.run(s, [&] { result = cws::test::fib(18); });
    ASSERT_EQ(result, cws::test::serial_fib(18));
    const st::tree& run = latest(rt, "fib").steals;
    cws::test::expect_same_steal_points(templ, run);
    EXPECT_EQ(run.worker_segments, templ.worker_segments) << "segment start order, iteration " << it;
    cws::test::expect_same_task_mapping(templ, run);
    const auto& r = s.history().back();
    EXPECT_EQ(r.ran_as, cws::ran_as::stows);
    EXPECT_FALSE(r.diverged()) << r.reason;
    EXPECT_EQ(r.extra_steals(), 0u);
    EXPECT_EQ(r.designated(), templ.segments.size() - 1);
    if (it > 1) {
      ASSERT_TRUE(r.distance_to_previous.has_value());
      EXPECT_EQ(*r.distance_to_previous, 0.0);
    }
  }
}

TEST_P(strict_replay, stows_reproduces_heat_template_every_iteration) {
  cws::runtime rt(audited(GetParam().workers, GetParam().topology));
  cws::test::heat_grid grid(96), serial(96);
  const st::tree templ = record_with_steals(rt, "probe", [&] {
    grid.step(4);
    serial.serial_step();  // keeps the two grids in step
  });
  cws::schedulers::store_of(rt).seed("heat", templ, "probe");
  auto& s = rt.schedule("heat", cws::policy::stows);
  for (int it = 1; it < 22; ++it) {
    rt.run(s, [&] { grid.step(4); });
    serial.serial_step();
    const st::tree& run = latest(rt, "heat").steals;
    cws::test::expect_same_steal_points(templ, run);
    EXPECT_EQ(run.worker_segments, templ.worker_segments);
    cws::test::expect_same_task_mapping(templ, run);
    EXPECT_FALSE(s.history().back().diverged());
  }
  EXPECT_EQ(grid.a, serial.a);
}

// STUWS: the same assignment of tasks to workers, in any order.
TEST_P(strict_replay, stuws_keeps_the_task_to_worker_mapping) {
  cws::runtime rt(audited(GetParam().workers, GetParam().topology));
  const st::tree templ = record_with_steals(rt, "probe", [] { cws::test::fib(17); });
  cws::schedulers::store_of(rt).seed("fib", templ, "probe");
  auto& s = rt.schedule("fib", cws::policy::stuws);
  std::uint64_t result = 0;
  for (int it = 1; it < 12; ++it) {
    rt.run(s, [&] { result = cws::test::fib(17); });
    ASSERT_EQ(result, cws::test::serial_fib(17));
    cws::test::expect_same_task_mapping(templ, latest(rt, "fib").steals);
    const auto& r = s.history().back();
    EXPECT_EQ(r.ran_as, cws::ran_as::stuws);
    EXPECT_EQ(r.extra_steals(), 0u);
    EXPECT_FALSE(r.diverged()) << r.reason;
  }
}

TEST(strict_replay_first_run, records_under_random_and_says_so) {
  cws::runtime rt(cws::test::config(2));
  auto& s = rt.schedule("fib", cws::policy::stows);
  std::uint64_t result = 0;
  rt.run(s, [&] { result = cws::test::fib(15); });
  EXPECT_EQ(result, cws::test::serial_fib(15));
  const auto& state = cws::schedulers::store_of(rt).at("fib");
  EXPECT_EQ(s.history().at(0).ran_as, cws::ran_as::random_no_template);
  EXPECT_EQ(state.template_from, "recorded run #0");
  ASSERT_TRUE(state.templ);
  EXPECT_EQ(*state.templ, latest(rt, "fib").steals);
  rt.run(s, [&] { result = cws::test::fib(15); });
  EXPECT_EQ(s.history().at(1).ran_as, cws::ran_as::stows);
}

INSTANTIATE_TEST_SUITE_P(topologies, strict_replay,
                         ::testing::Values(replay_case{2, ""}, replay_case{4, cws::test::four_cores},
                                           replay_case{8, cws::test::eight_cores}),
                         [](const auto& p) { return std::to_string(p.param.workers) + "_workers"; });

class evolving : public ::testing::TestWithParam<replay_case> {};

// evolve on heat: relws until the tree settles (or the bound), then stows,
// which reproduces the converged template; the grid stays right throughout.
TEST_P(evolving, evolve_converges_on_heat_within_the_bound) {
  cws::runtime_config cfg = cws::test::config(GetParam().workers, GetParam().topology);
  cfg.history = 16;  // every run below
  cws::runtime rt(cfg);
  cws::test::heat_grid grid(128), serial(128);
  auto& s = rt.schedule("heat", cws::policy::evolve);
  const int iterations = 16;
  for (int it = 0; it < iterations; ++it) {
    rt.run(s, [&] { grid.step(4); });
    serial.serial_step();
  }
  EXPECT_EQ(grid.a, serial.a);
  ASSERT_EQ(s.history().size(), static_cast<std::size_t>(iterations));
  EXPECT_EQ(s.history()[0].ran_as, cws::ran_as::random_no_template);
  // Converged within the bound: after at most `bound` relws runs, or, when
  // none was balanced (workers that did not get a core on this loaded
  // machine), with an audit run under stows as the bound's last run.
  std::size_t switched = 0, audits = 0;
  for (std::size_t i = 1; i < s.history().size() && switched == 0; ++i) {
    if (s.history()[i].ran_as == cws::ran_as::stows) {
      ++audits;
      EXPECT_NE(s.history()[i - 1].note.find("audit run"), std::string::npos) << "iteration " << i;
    } else {
      EXPECT_EQ(s.history()[i].ran_as, cws::ran_as::relws) << "iteration " << i;
    }
    if (s.history()[i].converged) switched = i;
  }
  ASSERT_NE(switched, 0u) << "evolve never switched to stows";
  EXPECT_LE(audits, 1u);
  EXPECT_LE(switched, cws::schedulers::knobs_of(cfg).replay.evolve_bound);
  // The first stows run after the switch replays the converged tree exactly.
  ASSERT_LT(switched + 1, s.history().size());
  const auto& first_stows = s.history()[switched + 1];
  if (first_stows.ran_as == cws::ran_as::stows) {
    EXPECT_EQ(first_stows.extra_steals(), 0u);
    EXPECT_EQ(first_stows.taken_back(), 0u);
    ASSERT_TRUE(first_stows.distance_to_previous.has_value());
  }
  for (const auto& r : s.history()) EXPECT_FALSE(r.diverged()) << r.reason;
}

// relws alone: designated tasks reach their thief or come back to their
// spawner; every run's steals are the next template's; results stay correct.
TEST_P(evolving, relws_runs_stay_correct_and_update_the_template) {
  cws::runtime rt(cws::test::config(GetParam().workers, GetParam().topology));
  auto& s = rt.schedule("fib", cws::policy::relws);
  for (int it = 0; it < 10; ++it) {
    std::uint64_t result = 0;
    rt.run(s, [&] { result = cws::test::fib(20); });
    ASSERT_EQ(result, cws::test::serial_fib(20));
    const auto& state = cws::schedulers::store_of(rt).at("fib");
    const auto* rec = st::recorder_of(rt)->latest("fib");
    ASSERT_NE(rec, nullptr);
    ASSERT_TRUE(state.templ);
    EXPECT_TRUE(st::same_steals(*state.templ, rec->steals)) << "the template takes the latest run's steals";
    if (it > 0) {
      EXPECT_EQ(s.history().back().ran_as, cws::ran_as::relws);
    }
  }
}

// A relws or user run that took its template's steals leaves the template
// in place (no copy, no new plan), and template_from keeps naming the run
// that first took them. One worker: every run takes the same (no) steals.
TEST(relaxed_repeat, a_run_with_the_template_s_steals_keeps_the_template) {
  struct expected {
    std::string_view policy;
    cws::ran_as ran_as;
    const char* first_from;  // template_from once run #0 made the template
    const char* later_from;  // and in the report of a run that replayed it
  };
  for (const expected& e : {expected{cws::policy::relws, cws::ran_as::relws, "recorded run #0", "recorded run #0"},
                            expected{cws::policy::user, cws::ran_as::user, "designations of run #0", ""}}) {
    cws::runtime rt(cws::test::config(1));
    auto& s = rt.schedule("fib", e.policy);
    rt.run(s, [] { cws::test::fib(12); });
    const auto& state = cws::schedulers::store_of(rt).at("fib");
    ASSERT_TRUE(state.templ) << e.policy;
    const st::tree* first = state.templ.get();
    EXPECT_EQ(state.template_from, e.first_from);
    for (int it = 1; it < 4; ++it) {
      rt.run(s, [] { cws::test::fib(12); });
      EXPECT_EQ(s.history().back().ran_as, e.ran_as) << e.policy;
      EXPECT_EQ(state.templ.get(), first) << e.policy << ": run " << it << " copied a tree with the same steals";
      EXPECT_EQ(state.template_from, e.first_from) << e.policy;
      EXPECT_EQ(s.history().back().template_from, e.later_from) << e.policy;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(topologies, evolving,
                         ::testing::Values(replay_case{2, ""}, replay_case{4, cws::test::four_cores},
                                           replay_case{8, cws::test::eight_cores}),
                         [](const auto& p) { return std::to_string(p.param.workers) + "_workers"; });

// "Schedule follows data": a copy phase replaying the init phase's tree runs
// every block on the worker that initialized it.
TEST(follow, copy_phase_replays_the_init_template) {
  cws::runtime rt(cws::test::config(4, cws::test::four_cores));
  constexpr std::size_t blocks = 64;
  std::vector<unsigned> init_worker(blocks), copy_worker(blocks);
  auto& init = rt.schedule("init", cws::policy::random);
  auto& copy = rt.schedule("copy", cws::policy::stows).follow("init");
  EXPECT_EQ(copy.follows(), "init");
  for (int round = 0; round < 5; ++round) {
    rt.run(init, [&] {
      cws::parallel_for(
          0, blocks, [&](std::size_t i) { init_worker[i] = cws::this_worker(); }, 1);
    });
    rt.run(copy, [&] {
      cws::parallel_for(
          0, blocks, [&](std::size_t i) { copy_worker[i] = cws::this_worker(); }, 1);
    });
    EXPECT_EQ(copy_worker, init_worker) << "round " << round;
    const auto& r = copy.history().back();
    EXPECT_EQ(r.ran_as, cws::ran_as::stows);
    EXPECT_EQ(r.template_from.rfind("follows 'init'", 0), 0u) << r.template_from;
  }
}

TEST(follow, following_a_schedule_that_never_ran_records_under_random) {
  cws::runtime rt(cws::test::config(2));
  auto& copy = rt.schedule("copy", cws::policy::stows).follow("nowhere");
  std::uint64_t result = 0;
  rt.run(copy, [&] { result = cws::test::fib(15); });
  EXPECT_EQ(result, cws::test::serial_fib(15));
  const auto& first = copy.history()[0];
  EXPECT_EQ(first.ran_as, cws::ran_as::random_no_template);
  EXPECT_NE(first.reason.find("'nowhere'"), std::string::npos) << first.reason;  // names what it follows
  // The schedule's typed report says the same.
  EXPECT_EQ(copy.last_report()->ran_as, cws::ran_as::random_no_template);
  EXPECT_EQ(copy.last_report()->reason, first.reason);
}

}  // namespace
