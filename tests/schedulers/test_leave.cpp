// A helper leaves a strict replay early (replay_engine::lets_leave): once it
// has started every segment the template planned on it, nothing more can
// come for it, so it may leave the phase and the phase's end does not wait
// for it. Driven through the engine directly: which segments a worker has
// started, and when it asks, are up to the test.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

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

// A worker with nothing to run: every move fails; the idle state is scripted.
class idle_view final : public cws::worker_view {
 public:
  idle_view(unsigned self, unsigned workers, const idleness& idle) : self_(self), workers_(workers), idle_(idle) {}
  unsigned self() const noexcept override { return self_; }
  unsigned workers() const noexcept override { return workers_; }
  cws::task_handle steal(unsigned) noexcept override { return nullptr; }
  cws::task_handle take_mail() noexcept override { return nullptr; }
  std::uint64_t random() noexcept override { return 4; }
  cws::task_handle take_mail_noted(std::uint32_t) noexcept override { return nullptr; }
  cws::task_handle steal_mail(unsigned) noexcept override { return nullptr; }
  idleness idle_state() const noexcept override { return idle_; }

 private:
  unsigned self_, workers_;
  const idleness& idle_;
};

// A worker that left makes no idle passes and is no longer idle in the core's
// count, yet the others may still stall (a diverged program): the watch
// counts it idle and looking, or it would wait for it forever.
TEST(leave, the_stall_watch_counts_a_worker_that_left_as_idle) {
  constexpr unsigned stall_ms = 20;
  const auto plan = cws::schedulers::detail::compile(
      std::make_shared<const st::tree>(cws::test::root_handing_spawn_to(3, 0, 1, 1, 1)));
  replay_engine e;
  e.prepare(replay_mode::stows, plan, 3, stall_ms);
  ASSERT_TRUE(e.lets_leave(2));
  cws::worker_view::idleness idle{2, 1};  // workers 0 and 1; worker 2 left its steal loop as it left
  idle_view w0(0, 3, idle), w1(1, 3, idle);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!e.diverged() && std::chrono::steady_clock::now() < end) {
    for (idle_view* w : {&w0, &w1}) {
      EXPECT_FALSE(e.find_work(*w));
      e.idle_pass(*w);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(e.diverged()) << "two idle workers and one that left were never taken for a stall";
  EXPECT_NE(e.divergence().find("every worker waited"), std::string::npos) << e.divergence();
}

}  // namespace
