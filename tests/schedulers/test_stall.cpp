// The replay engine's stall watch, driven directly through a scripted
// worker_view: which worker makes an idle pass when is up to the test, so a
// preempted worker (counted idle, making no passes) can be played exactly.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "replay_policy.hpp"
#include "support/steal_tree_builders.hpp"
#include "template_plan.hpp"

namespace {

using cws::schedulers::detail::replay_engine;
using cws::schedulers::detail::replay_mode;

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

constexpr unsigned stall_ms = 20;

// One fruitless pass of `view`'s worker, as the core's steal loop makes it.
void pass(replay_engine& e, idle_view& view) {
  EXPECT_FALSE(e.find_work(view));
  e.idle_pass(view);
}

// Passes of the listed workers, 1 ms apart, for `ms` milliseconds or until the engine diverged.
template <class... Views>
void passes_for(replay_engine& e, unsigned ms, Views&... views) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!e.diverged() && std::chrono::steady_clock::now() < end) {
    (pass(e, views), ...);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// A strict (stuws) engine. The stall watch needs no template: it only looks
// at idle counts and passes.
void prepare_strict(replay_engine& e, unsigned workers) { e.prepare(replay_mode::stuws, nullptr, workers, stall_ms); }

TEST(stall_watch, every_worker_looking_for_work_past_the_limit_is_a_stall) {
  replay_engine e;
  prepare_strict(e, 2);
  cws::worker_view::idleness idle{2, 0};
  idle_view w0(0, 2, idle), w1(1, 2, idle);
  passes_for(e, 5000, w0, w1);
  ASSERT_TRUE(e.diverged()) << "two idle workers with nothing to run for 5 s were never taken for a stall";
  EXPECT_NE(e.divergence().find("every worker waited"), std::string::npos) << e.divergence();
}

TEST(stall_watch, a_counted_idle_worker_that_makes_no_passes_is_not_a_stall) {
  // Worker 1 is counted idle but makes no pass after worker 0 starts
  // watching: it is preempted, perhaps just after its sync completed. However
  // long that lasts, the phase is slow, not stuck.
  replay_engine e;
  prepare_strict(e, 2);
  cws::worker_view::idleness idle{2, 0};
  idle_view w0(0, 2, idle), w1(1, 2, idle);
  pass(e, w1);
  passes_for(e, 8 * stall_ms, w0);
  EXPECT_FALSE(e.diverged()) << e.divergence();
  // Worker 1 runs again and still finds nothing: now it is a stall.
  passes_for(e, 5000, w0, w1);
  EXPECT_TRUE(e.diverged());
}

TEST(stall_watch, a_pass_after_a_stale_look_is_not_a_stall) {
  // Worker 1 looks for work and finds none, then is preempted before its idle
  // pass; mail may arrive meanwhile. When it resumes, its pass is late but
  // the look before it is not: only a whole round (look, pass) inside the
  // window confirms that it has nothing it may run.
  replay_engine e;
  prepare_strict(e, 2);
  cws::worker_view::idleness idle{2, 0};
  idle_view w0(0, 2, idle), w1(1, 2, idle);
  pass(e, w1);
  EXPECT_FALSE(e.find_work(w1));  // the look; preempted before its pass
  passes_for(e, 8 * stall_ms, w0);
  e.idle_pass(w1);  // resumed: the pass that belongs to the old look
  passes_for(e, 8 * stall_ms, w0);
  EXPECT_FALSE(e.diverged()) << e.divergence();
  // Another round finds nothing either: now it is a stall.
  passes_for(e, 5000, w0, w1);
  EXPECT_TRUE(e.diverged());
}

TEST(stall_watch, a_busy_worker_is_never_a_stall) {
  replay_engine e;
  prepare_strict(e, 2);
  cws::worker_view::idleness idle{1, 0};  // worker 1 runs a long task
  idle_view w0(0, 2, idle), w1(1, 2, idle);
  pass(e, w1);
  passes_for(e, 8 * stall_ms, w0);
  EXPECT_FALSE(e.diverged()) << e.divergence();
  idle.idle = 2;  // its task ended and it looks for work too
  passes_for(e, 5000, w0, w1);
  EXPECT_TRUE(e.diverged());
}

TEST(stall_watch, work_done_while_the_watcher_slept_is_not_a_stall) {
  // Worker 1 starts watching with both idle, then sleeps (parked: no passes).
  // Meanwhile worker 0's sync completes, it runs on in its own segment (no
  // segment starts) and blocks in its next sync. Worker 1 wakes long past the
  // limit and both look for work: the stretch was busy, not stuck.
  replay_engine e;
  prepare_strict(e, 2);
  cws::worker_view::idleness idle{2, 0};
  idle_view w0(0, 2, idle), w1(1, 2, idle);
  pass(e, w0);
  pass(e, w1);
  idle = {1, 1};  // worker 0 leaves its sync
  std::this_thread::sleep_for(std::chrono::milliseconds(8 * stall_ms));
  idle = {2, 1};  // and waits in the next one
  pass(e, w0);
  pass(e, w1);
  EXPECT_FALSE(e.diverged()) << e.divergence();
  // Nothing leaves the idle state from now on: a stall.
  passes_for(e, 5000, w0, w1);
  EXPECT_TRUE(e.diverged());
}

TEST(stall_watch, random_stealing_never_stalls) {
  replay_engine e;
  e.prepare(replay_mode::random, nullptr, 2, stall_ms);
  cws::worker_view::idleness idle{2, 0};
  idle_view w0(0, 2, idle), w1(1, 2, idle);
  passes_for(e, 8 * stall_ms, w0, w1);
  EXPECT_FALSE(e.diverged());
}

// A worker that left the phase early (replay_engine::lets_leave) makes no
// idle passes and is no longer idle in the core's count, yet the others may
// still stall (a diverged program): the watch counts it idle and looking, or
// it would wait for it forever.
TEST(stall_watch, a_worker_that_left_counts_as_idle_and_looking) {
  const auto plan = cws::schedulers::detail::compile(
      std::make_shared<const cws::steal_tree::tree>(cws::test::root_handing_spawn_to(3, 0, 1)));
  replay_engine e;
  e.prepare(replay_mode::stows, plan, 3, stall_ms);
  ASSERT_TRUE(e.lets_leave(2)) << "the template planned nothing on worker 2";
  cws::worker_view::idleness idle{2, 1};  // workers 0 and 1; worker 2 left its steal loop as it left
  idle_view w0(0, 3, idle), w1(1, 3, idle);
  passes_for(e, 5000, w0, w1);
  ASSERT_TRUE(e.diverged()) << "two idle workers and one that left were never taken for a stall";
  EXPECT_NE(e.divergence().find("every worker waited"), std::string::npos) << e.divergence();
}

}  // namespace
