// A strict replay that keeps a worker waiting (CWS_REPLAY_GRACE_US): once
// a worker has found nothing it may run for the grace -- a spawner in a sync
// whose thief does not come, or a thief whose designated task is not
// spawned -- the phase finishes under random stealing
// (ran_as::random_released): the spawner runs the children nobody started,
// idle workers steal, and the template stays.
//
// The late worker is kept away by the program, not by the machine, so that
// without the grace those phases could only end by a task giving up (it
// waits 10 s at most, and the tests check it did not).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "cws/cws.hpp"
#include "cws/schedulers/knobs.hpp"
#include "cws/schedulers/schedule_store.hpp"
#include "support/runtime_fixture.hpp"
#include "support/seeded_schedule.hpp"
#include "support/steal_tree_builders.hpp"

namespace {

namespace st = cws::steal_tree;
using namespace std::chrono_literals;

constexpr unsigned grace_us = 1000;

cws::runtime_config with_grace(unsigned us) {
  cws::runtime_config c = cws::test::config(2);
  cws::schedulers::knobs_of(c).replay.grace_us = us;
  return c;
}

struct scene {
  std::atomic<bool> a_started{false};
  std::atomic<bool> b_ran{false};
  std::atomic<bool> a_gave_up{false};
  std::atomic<unsigned> b_on{99};
};

// A waits for B (10 s at most), or, with `a_waits` false, works for `a_busy`.
// The root syncs once A started (10 s at most): worker 1 is in the phase
// then, busy, so its sync waits the grace (a thief not yet in the phase is
// test_absent_thief_release's).
void spawn_a_then_b(scene& sc, bool designate, bool a_waits, std::chrono::milliseconds a_busy = 0ms) {
  if (designate) cws::designate_after_next_spawn(1);
  cws::spawn([&sc, a_waits, a_busy] {
    sc.a_started.store(true, std::memory_order_release);
    const auto start = std::chrono::steady_clock::now();
    if (!a_waits) {
      while (std::chrono::steady_clock::now() - start < a_busy) std::this_thread::yield();
      return;
    }
    while (!sc.b_ran.load(std::memory_order_acquire)) {
      if (std::chrono::steady_clock::now() - start > 10s) {
        sc.a_gave_up = true;
        return;
      }
      std::this_thread::yield();
    }
  });
  if (designate) cws::designate_after_next_spawn(1);
  cws::spawn([&sc] {
    sc.b_on = cws::this_worker();
    sc.b_ran.store(true, std::memory_order_release);
  });
  const auto start = std::chrono::steady_clock::now();
  while (!sc.a_started.load(std::memory_order_acquire) && std::chrono::steady_clock::now() - start < 10s)
    std::this_thread::yield();
  cws::sync();
}

TEST(replay_grace, the_spawner_runs_the_task_its_busy_thief_has_not_started) {
  for (const std::string_view policy : {cws::policy::stows, cws::policy::stuws, cws::policy::user}) {
    SCOPED_TRACE(std::string(policy));
    cws::runtime rt(with_grace(grace_us));
    const bool user = policy == cws::policy::user;
    const cws::test::seeded_schedule ab = cws::test::seed_unless_user(rt, "ab", policy, cws::test::a_and_b_to_worker_1());
    scene sc;
    const cws::run_report& r = rt.run(ab.schedule, [&] { spawn_a_then_b(sc, user, true); });
    EXPECT_TRUE(sc.a_started) << "worker 1 never took A";
    EXPECT_FALSE(sc.a_gave_up) << "the spawner never ran B";
    EXPECT_EQ(sc.b_on.load(), 0u) << "B can only have run on its spawner: worker 1 waits in A for it";
    EXPECT_EQ(r.ran_as, cws::ran_as::random_released) << r.label() << ": " << r.reason;
    EXPECT_EQ(r.planned, cws::ran_as_from_string(policy));
    EXPECT_NE(r.reason.find("worker 0 waited over 1000 us in a sync for a task its thief had not finished"),
              std::string::npos)
        << r.reason;
    EXPECT_GE(r.taken_back(), 1u);
    EXPECT_FALSE(r.diverged());
    EXPECT_EQ(r.label(), "random (released from " + std::string(policy) + ")");
    EXPECT_EQ(ab.current(rt), ab.templ) << "a late thief is no reason to drop the template";
  }
}

// The root hands its second spawn, Y, to worker 1, and spawns it only once
// its first, X, has run on another worker: under the template X stays on
// worker 0's deque, so only worker 1 stealing it -- after the grace, the
// phase released -- lets the root go on. (Serial elision off: it would run X
// as a plain call at once.)
TEST(replay_grace, a_thief_whose_task_does_not_come_steals_after_the_grace) {
  for (const std::string_view policy : {cws::policy::stows, cws::policy::stuws}) {
    SCOPED_TRACE(std::string(policy));
    cws::runtime_config cfg = with_grace(grace_us);
    cws::schedulers::knobs_of(cfg).replay.elide = false;
    cws::runtime rt(cfg);
    auto& store = cws::schedulers::store_of(rt);
    st::tree t = cws::test::root_only(2);
    t.segments[0].end_ns = 10000;
    t.segments[0].tasks = 2;
    t.segments[0].steals = {st::steal_point{.level = 1, .step = 1, .thief = 1, .child = 1}};
    t.segments.push_back(cws::test::segment_of(1, 0, 1, 1, 1000, 5000, 1));
    t.worker_segments[1] = {1};
    store.seed("xy", t, "hand-built");
    const auto templ = store.at("xy").templ;
    auto& s = rt.schedule("xy", policy);
    std::atomic<unsigned> x_on{99};
    bool root_gave_up = false;
    const cws::run_report& r = rt.run(s, [&] {
      cws::spawn([&] { x_on = cws::this_worker(); });
      const auto start = std::chrono::steady_clock::now();
      while (x_on.load() != 1 && !root_gave_up) {
        root_gave_up = std::chrono::steady_clock::now() - start > 10s;
        std::this_thread::yield();
      }
      cws::spawn([] {});
      cws::sync();
    });
    EXPECT_FALSE(root_gave_up) << "worker 1 never stole X";
    EXPECT_EQ(x_on.load(), 1u);
    EXPECT_EQ(r.ran_as, cws::ran_as::random_released) << r.label() << ": " << r.reason;
    EXPECT_NE(r.reason.find("worker 1 waited over 1000 us for a designated task that had not come"), std::string::npos)
        << r.reason;
    EXPECT_EQ(store.at("xy").templ, templ);
  }
}

// With the grace off the spawner waits for the thief, however long: B runs on
// worker 1 once A is done.
TEST(replay_grace, zero_waits_for_the_thief) {
  cws::runtime rt(with_grace(0));
  cws::schedulers::store_of(rt).seed("ab", cws::test::a_and_b_to_worker_1(), "hand-built");
  auto& s = rt.schedule("ab", cws::policy::stows);
  scene sc;
  const cws::run_report& r = rt.run(s, [&] { spawn_a_then_b(sc, false, false, 20ms); });
  EXPECT_EQ(sc.b_on.load(), 1u);
  EXPECT_EQ(r.ran_as, cws::ran_as::stows) << r.label() << ": " << r.reason;
  EXPECT_EQ(r.taken_back(), 0u);
  EXPECT_EQ(r.designated(), 2u);
}

// A converged evolve schedule: a released run keeps its template and leaves
// it converged (its next runs replay under stows again), and moves no page.
TEST(replay_grace, a_released_run_leaves_evolve_converged_on_its_template) {
  cws::runtime rt(with_grace(grace_us));
  auto& store = cws::schedulers::store_of(rt);
  store.seed("ab", cws::test::a_and_b_to_worker_1(), "hand-built");
  store.mark_converged("ab");
  auto& s = rt.schedule("ab", cws::policy::evolve);
  const auto templ = store.at("ab").templ;
  scene sc;
  const cws::run_report& r = rt.run(s, [&] { spawn_a_then_b(sc, false, true); });
  EXPECT_FALSE(sc.a_gave_up);
  EXPECT_EQ(sc.b_on.load(), 0u);
  EXPECT_EQ(r.ran_as, cws::ran_as::random_released) << r.label() << ": " << r.reason;
  EXPECT_EQ(r.planned, cws::ran_as::stows);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.relocalization(), nullptr);
  EXPECT_EQ(store.at("ab").templ, templ);
  EXPECT_TRUE(store.at("ab").converged);
}

// Phases of two empty tasks for worker 1, with the grace on: the root often
// syncs before worker 1 has joined (released at once:
// test_absent_thief_release) or taken its tasks, and worker 1 races the
// root's take-back; on a loaded machine (TSan in CI) the root can also be
// descheduled before it posts, and worker 1 gives up waiting for its mail.
// Whichever wins, every task runs once, the run is a replay or a release,
// and a release names one of the three late-worker reasons.
// A stress of that race (TSan), not of what the timing gives.
TEST(replay_grace, tiny_phases_finish_whoever_wins_the_take_back) {
  cws::runtime rt(with_grace(grace_us));
  cws::schedulers::store_of(rt).seed("ab", cws::test::a_and_b_to_worker_1(), "hand-built");
  auto& s = rt.schedule("ab", cws::policy::stows);
  unsigned released = 0;
  for (int run = 0; run < 400; ++run) {
    std::atomic<unsigned> ran{0};
    const cws::run_report& r = rt.run(s, [&] {
      cws::spawn([&] { ran.fetch_add(1); });
      cws::spawn([&] { ran.fetch_add(1); });
      cws::sync();
    });
    ASSERT_EQ(ran.load(), 2u) << "run " << run;
    if (r.ran_as == cws::ran_as::random_released) {
      ++released;
      const bool late = r.reason.starts_with("worker 0 reached a sync before worker 1, the thief of its designated "
                                             "task, had joined the phase") ||
                        r.reason.starts_with("worker 0 waited over 1000 us in a sync") ||
                        r.reason.starts_with("worker 1 waited over 1000 us for a designated task that had not come");
      EXPECT_TRUE(late) << "run " << run << ": " << r.reason;
    } else {
      ASSERT_EQ(r.ran_as, cws::ran_as::stows) << "run " << run << ": " << r.label() << ": " << r.reason;
      EXPECT_EQ(r.designated(), 2u) << "run " << run;
    }
  }
  RecordProperty("released", static_cast<int>(released));
}

// The knob in the runtime's description (its parsing: test_knobs).
TEST(replay_grace, the_knob_is_described) {
  cws::runtime rt(with_grace(0));
  EXPECT_NE(rt.describe().find("grace off"), std::string::npos) << rt.describe();
  cws::runtime on(with_grace(350));
  EXPECT_NE(on.describe().find("grace 350 us"), std::string::npos) << on.describe();
}

}  // namespace
