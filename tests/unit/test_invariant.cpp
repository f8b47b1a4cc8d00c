// The determinism invariant (DESIGN §3): a worker blocked in sync never runs
// an older task of its own deque; it only runs its own frame's children or
// other workers' tasks as nested segments (bounded depth).
//
// With oldest-first stealing an outer task is always stolen before a younger
// one, so the situation is built with a test policy through the core's policy
// interface: the root's second child is handed to worker 1's mailbox while
// the root's first child (the "older task") stays in worker 0's deque.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"

namespace {

// Routes the task spawned at (level 1, step 1) of the root segment to worker 1.
// Workers read their mailbox; only worker 0 steals (from worker 1), so the
// older task stays in worker 0's deque until worker 0 itself may run it.
class handoff_policy final : public cws::scheduling_policy {
 public:
  std::string_view name() const noexcept override { return "test-handoff"; }
  bool routes_spawns() const noexcept override { return true; }
  void segment_begin(unsigned, const cws::task_tag& root, std::uint32_t, cws::segment_marks& marks) override {
    if (root.segment == cws::no_segment) marks.set(1, 1);  // the root segment: consult route() at (1, 1)
  }
  cws::spawn_target route(unsigned, const cws::task_tag& tag, unsigned, cws::segment_marks&) override {
    if (tag.segment == cws::make_segment_id(0, 0) && tag.level == 1 && tag.step == 1) return {1};
    return {};
  }
  cws::task_handle find_work(cws::worker_view& v) override {
    if (auto t = v.take_mail()) return t;
    if (v.self() != 0) return nullptr;
    if (auto t = v.steal(0)) return t;  // refused by the core: a worker never steals from itself
    return v.steal(1);
  }
};

class invariant_test : public ::testing::TestWithParam<unsigned> {
 protected:
  static void SetUpTestSuite() {
    cws::policy_registry::add("test-handoff", [] { return std::make_unique<handoff_policy>(); });
  }
};

TEST_P(invariant_test, blocked_sync_never_runs_older_task_of_own_deque) {
  const unsigned nesting = GetParam();
  auto cfg = cws::test::config(2);
  cfg.max_nesting = nesting;
  cws::runtime rt(cfg);
  auto& s = rt.schedule("invariant", "test-handoff");

  for (int round = 0; round < 20; ++round) {
    std::atomic<bool> scope_closed{false};
    std::atomic<int> old_runs{0};
    std::atomic<bool> old_ran_early{false};
    std::atomic<unsigned> old_worker{99};
    std::atomic<unsigned> handed_worker{99};
    constexpr int grandchildren = 8;
    std::atomic<int> grand_on_0{0}, grand_on_1{0};

    const cws::phase_stats& st = rt.run(s, [&] {
      // (1,0): the older task. It must not run while worker 0 is blocked below.
      cws::spawn([&] {
        if (!scope_closed.load()) old_ran_early = true;
        old_worker = cws::this_worker();
        old_runs.fetch_add(1);
      });
      cws::finish([&] {
        // (1,1): handed to worker 1; worker 0 blocks on it at the end of finish.
        cws::spawn([&] {
          handed_worker = cws::this_worker();
          for (int g = 0; g < grandchildren; ++g)
            cws::spawn([&] { (cws::this_worker() == 0 ? grand_on_0 : grand_on_1).fetch_add(1); });
          if (nesting > 0) {
            // Keep worker 1 busy until the blocked worker 0 helped with one of
            // our children (bounded: the test fails rather than hangs).
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
            while (grand_on_0.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
          } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
          }
        });
      });
      scope_closed = true;
    });

    EXPECT_EQ(handed_worker.load(), 1u) << "the mailbox hand-over did not happen (round " << round << ")";
    EXPECT_FALSE(old_ran_early.load()) << "worker 0 ran an older task of its own deque while blocked in sync";
    EXPECT_EQ(old_runs.load(), 1);
    EXPECT_EQ(old_worker.load(), 0u) << "the older task ran later on its own worker";
    EXPECT_EQ(grand_on_0.load() + grand_on_1.load(), grandchildren);
    if (nesting > 0) {
      EXPECT_GE(grand_on_0.load(), 1) << "blocked worker never helped (round " << round << ")";
      EXPECT_GE(st.per_worker[0].nested_segments, 1u);
    } else {
      EXPECT_EQ(grand_on_0.load(), 0) << "nesting bound 0 must forbid nested segments";
      EXPECT_EQ(st.per_worker[0].nested_segments, 0u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(nesting, invariant_test, ::testing::Values(0u, 16u),
                         [](const auto& p) { return "max_nesting_" + std::to_string(p.param); });

}  // namespace
