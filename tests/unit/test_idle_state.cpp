// worker_view::idle_state() through the core (what routing policies read to
// tell a stuck replay, and hinted ones to stop waiting for placed work): a
// worker in its steal loop counts as idle, one running a segment or the
// phase root does not, and every exit from the loop is counted.
//
// A test policy records what each worker's first look for work sees. The
// phase is built so that each first look happens at a known moment: worker 1
// looks while worker 0 runs the root; worker 0 looks while it waits in sync
// for the child worker 1 stole, which does not return before that look.

#include <gtest/gtest.h>

#include <array>
#include <atomic>

#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"

namespace {

using cws::test::wait_for;

struct first_look {
  std::atomic<bool> taken{false};
  std::atomic<unsigned> idle{99};
  std::atomic<std::uint32_t> exits{0};
};

std::array<first_look, 2> looks;

// Worker 1 steals from worker 0; worker 0 never steals (it only looks).
class idle_probe_policy final : public cws::scheduling_policy {
 public:
  std::string_view name() const noexcept override { return "test-idle-probe"; }
  cws::task_handle find_work(cws::worker_view& v) override {
    first_look& l = looks.at(v.self());
    if (!l.taken.load()) {
      const cws::worker_view::idleness now = v.idle_state();
      l.idle = now.idle;
      l.exits = now.exits;
      l.taken = true;
    }
    return v.self() == 1 ? v.steal(0) : nullptr;
  }
};

struct phase_looks {
  unsigned idle_seen_by_1, idle_seen_by_0;
  std::uint32_t exits_seen_by_1;
};

phase_looks run_probed_phase(cws::runtime& rt, cws::schedule& s) {
  for (first_look& l : looks) l.taken = false;
  std::atomic<int> child_on{-1};
  bool child_waited = false, root_waited = false;
  rt.run(s, [&] {
    cws::spawn([&] {
      child_on = static_cast<int>(cws::this_worker());
      child_waited = wait_for([] { return looks[0].taken.load(); });  // worker 0 looked from its sync
    });
    root_waited = wait_for([&] { return child_on.load() >= 0; });  // not yet in sync: worker 1 stole it
    cws::sync();
  });
  EXPECT_TRUE(root_waited) << "worker 1 never stole the child";
  EXPECT_TRUE(child_waited) << "worker 0 never looked for work while waiting in sync";
  EXPECT_EQ(child_on.load(), 1);
  EXPECT_TRUE(looks[1].taken.load());
  return {looks[1].idle.load(), looks[0].idle.load(), looks[1].exits.load()};
}

TEST(IdleState, CountsTheWorkersInTheirStealLoopAndEveryExit) {
  cws::policy_registry::add("test-idle-probe", [] { return std::make_unique<idle_probe_policy>(); });
  cws::runtime rt(cws::test::config(2));
  auto& s = rt.schedule("idle", "test-idle-probe");

  const phase_looks first = run_probed_phase(rt, s);
  // Worker 1 looked while worker 0 ran the root: itself only.
  EXPECT_EQ(first.idle_seen_by_1, 1u);
  // Worker 0 looked from its sync while worker 1 ran the stolen child: itself only.
  EXPECT_EQ(first.idle_seen_by_0, 1u);

  const phase_looks second = run_probed_phase(rt, s);
  EXPECT_EQ(second.idle_seen_by_1, 1u);
  EXPECT_EQ(second.idle_seen_by_0, 1u);
  // Since the first look of the first phase: worker 1 left its loop to run the
  // child and at the phase's end, worker 0 when its sync completed.
  EXPECT_GE(static_cast<std::uint32_t>(second.exits_seen_by_1 - first.exits_seen_by_1), 3u);
}

}  // namespace
