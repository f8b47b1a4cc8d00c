// A helper leaves a strict replay early (replay_engine::lets_leave): once it
// has started every segment the template planned on it, nothing more can
// come for it, so it may leave the phase and the phase's end does not wait
// for it. Driven through the engine directly: which segments a worker has
// started, and when it asks, are up to the test. (The stall watch's count of
// a worker that left: test_stall.cpp.)
#include <gtest/gtest.h>

#include <memory>

#include "replay_policy.hpp"
#include "support/steal_tree_builders.hpp"
#include "template_plan.hpp"

namespace {

namespace st = cws::steal_tree;
using cws::schedulers::detail::replay_engine;
using cws::schedulers::detail::replay_mode;

// Marks nobody reads: the engine sets them as a segment begins.
class ignored_marks final : public cws::segment_marks {
 public:
  void set(std::uint32_t, std::uint32_t) override {}
  void clear_all() noexcept override {}
  void elide(std::span<const cws::elision_node>) noexcept override {}
};

// Worker `w` starts template segment `seg` (a designated task: its note)
// and, unless `open`, ends it.
void run_segment(replay_engine& e, unsigned w, std::uint32_t seg, bool open = false) {
  ignored_marks marks;
  e.segment_begin(w, cws::task_tag{0, 1, seg}, seg, marks);
  if (!open) e.segment_end(w);
}

// A and B (template segments 1 and 2) to worker 1, in that order.
std::shared_ptr<const cws::schedulers::detail::template_plan> a_and_b() {
  return cws::schedulers::detail::compile(std::make_shared<const st::tree>(cws::test::a_and_b_to_worker_1()));
}

class strict_leave : public ::testing::TestWithParam<replay_mode> {};

TEST_P(strict_leave, a_helper_leaves_once_it_started_every_segment_the_template_planned_on_it) {
  const auto plan = a_and_b();
  ASSERT_EQ(plan->order[1].size(), 2u);
  replay_engine e;
  e.prepare(GetParam(), plan, 2, 1000);
  EXPECT_FALSE(e.lets_leave(1)) << "before its first segment";
  run_segment(e, 1, 1, /*open=*/true);
  EXPECT_FALSE(e.lets_leave(1)) << "inside A";
  e.segment_end(1);
  EXPECT_FALSE(e.lets_leave(1)) << "B is still to come";
  run_segment(e, 1, 2);
  EXPECT_TRUE(e.lets_leave(1)) << "A and B both ran";
  EXPECT_FALSE(e.diverged()) << e.divergence();

  // The next phase starts over.
  e.prepare(GetParam(), plan, 2, 1000);
  EXPECT_FALSE(e.lets_leave(1)) << "the last phase's segments count in this one";
}

INSTANTIATE_TEST_SUITE_P(modes, strict_leave, ::testing::Values(replay_mode::stows, replay_mode::stuws),
                         [](const auto& p) { return p.param == replay_mode::stows ? "stows" : "stuws"; });

TEST(leave, a_worker_the_template_planned_nothing_on_may_leave_at_once) {
  const auto plan = cws::schedulers::detail::compile(
      std::make_shared<const st::tree>(cws::test::root_handing_spawn_to(3, 0, 1, 1, 1)));
  replay_engine e;
  e.prepare(replay_mode::stows, plan, 3, 1000);
  EXPECT_TRUE(e.lets_leave(2));
  EXPECT_FALSE(e.lets_leave(1));
}

TEST(leave, relaxed_random_and_diverged_phases_keep_their_helpers) {
  const auto plan = a_and_b();
  replay_engine e;
  // relws: an idle worker steals at random once its planned segments started.
  e.prepare(replay_mode::relws, plan, 2, 1000);
  run_segment(e, 1, 1);
  run_segment(e, 1, 2);
  EXPECT_FALSE(e.lets_leave(1)) << "relws";
  e.prepare(replay_mode::random, plan, 2, 1000);
  EXPECT_FALSE(e.lets_leave(1)) << "random";
  e.prepare(replay_mode::user, nullptr, 2, 1000);
  EXPECT_FALSE(e.lets_leave(1)) << "user";
  // Diverged: the rest of the phase steals at random, so every worker may be needed.
  e.prepare(replay_mode::stows, plan, 2, 1000);
  run_segment(e, 1, 1);
  run_segment(e, 1, 2);
  e.diverge_up_front("the test");
  EXPECT_FALSE(e.lets_leave(1)) << "diverged";
}

}  // namespace
