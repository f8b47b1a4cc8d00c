// The runtime object: schedules and policy names, phase statistics, observer
// events and (level, step) tags, misuse errors, sleeping between phases,
// memory stability over many phases.

#include <gtest/gtest.h>
#include <malloc.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CWS_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CWS_TEST_ASAN 1
#endif
#ifdef CWS_TEST_ASAN
// Public sanitizer API (GCC ships the runtime but not this header).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace {

using cws::test::config;

TEST(runtime, schedules_are_found_by_name) {
  cws::runtime rt(config(2));
  auto& a = rt.schedule("init");
  auto& b = rt.schedule("init", cws::policy::random);
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(a.policy_name(), "random");
  EXPECT_EQ(a.last(), nullptr);
  EXPECT_NE(&rt.schedule("copy"), &a);
}

TEST(runtime, unknown_policy_names_the_valid_ones) {
  cws::runtime rt(config(1));
  try {
    rt.schedule("x", "stows-typo");
    FAIL() << "no error for an unknown policy";
  } catch (const cws::error& e) {
    // Every registered policy, sorted (cws::cws registers the replaying ones;
    // another suite of this binary may add a test policy).
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("unknown policy 'stows-typo' (valid: coarsen, evolve, evolve-hinted, hinted, hinted-hpt, "
                        "random, relws, stows, "
                        "stuws, ",
                        0),
              0u)
        << msg;
    EXPECT_NE(msg.find("user"), std::string::npos) << msg;
  }
}

TEST(runtime, runs_const_and_temporary_callables) {
  cws::runtime rt(config(2));
  std::uint64_t r = 0;
  const auto root = [&r] { r = cws::test::fib(15); };
  rt.run(root);
  EXPECT_EQ(r, cws::test::serial_fib(15));
  rt.run(rt.schedule("tmp"), [&r] { r = cws::test::fib(10); });
  EXPECT_EQ(r, cws::test::serial_fib(10));
}

// A plain function is a callable too (rt.run takes it by reference to a
// function type, which has no object address of its own).
std::uint64_t plain_result = 0;
void plain_root() { plain_result = cws::test::fib(12); }

TEST(runtime, runs_a_plain_function) {
  cws::runtime rt(config(2));
  plain_result = 0;
  const cws::run_report& r = rt.run(rt.schedule("plain"), plain_root);
  EXPECT_EQ(plain_result, cws::test::serial_fib(12));
  EXPECT_EQ(r.phase.schedule, "plain");
  plain_result = 0;
  rt.run(&plain_root);
  EXPECT_EQ(plain_result, cws::test::serial_fib(12));
}

// Several runtimes: nothing of a runtime is global (policies get their
// runtime through policy_context), so they may follow each other or live at
// once. Replaying schedules exercise the per-runtime store and recorder.
std::uint64_t run_fib_phases(cws::runtime& rt, cws::schedule& s, int phases, unsigned n) {
  std::uint64_t wrong = 0;
  for (int i = 0; i < phases; ++i) {
    std::uint64_t r = 0;
    rt.run(s, [&] { r = cws::test::fib(n); });
    wrong += r != cws::test::serial_fib(n);
  }
  return wrong;
}

TEST(runtimes, one_after_another) {
  for (int round = 0; round < 3; ++round) {
    cws::runtime rt(config(2));
    EXPECT_EQ(cws::runtime::current(), &rt);
    auto& s = rt.schedule("fib", cws::policy::stows);
    EXPECT_EQ(run_fib_phases(rt, s, 3, 18), 0u);
    EXPECT_EQ(s.last_report()->ran_as, cws::ran_as::stows) << "round " << round;
    EXPECT_EQ(s.history().size(), 3u);
  }
  EXPECT_EQ(cws::runtime::current(), nullptr);
}

TEST(runtimes, two_alive_phases_alternating_on_one_thread) {
  cws::runtime_config c = config(2);
  c.history = 6;  // every run below
  cws::runtime a(c);
  cws::runtime b(c);
  EXPECT_EQ(cws::runtime::current(), &b);  // the most recently created
  auto& sa = a.schedule("fib", cws::policy::evolve);
  auto& sb = b.schedule("fib", cws::policy::stows);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(run_fib_phases(a, sa, 1, 18), 0u);
    EXPECT_EQ(run_fib_phases(b, sb, 1, 17), 0u);
  }
  // Each runtime kept its own schedule state: same name, its own runs.
  EXPECT_EQ(sa.iterations(), 6u);
  EXPECT_EQ(sb.iterations(), 6u);
  EXPECT_EQ(sa.history().size(), 6u);
  EXPECT_EQ(sb.history().size(), 6u);
  EXPECT_EQ(sa.history()[0].phase.policy, "evolve");
  EXPECT_EQ(sb.history()[0].phase.policy, "stows");
  EXPECT_FALSE(sa.last_report()->diverged()) << sa.last_report()->reason;
  EXPECT_EQ(sb.last_report()->ran_as, cws::ran_as::stows);
  EXPECT_EQ(sb.last_report()->tasks(), cws::test::fib_spawns(17) + 1);
}

TEST(runtimes, two_alive_each_driven_by_its_own_thread) {
  cws::runtime a(config(2));
  cws::runtime b(config(2));
  std::atomic<std::uint64_t> wrong{0};
  auto drive = [&wrong](cws::runtime& rt, std::string_view policy) {
    auto& s = rt.schedule("fib", policy);
    wrong += run_fib_phases(rt, s, 20, 17);
  };
  std::thread ta(drive, std::ref(a), cws::policy::relws);
  std::thread tb(drive, std::ref(b), cws::policy::random);
  ta.join();
  tb.join();
  EXPECT_EQ(wrong.load(), 0u);
  const cws::run_report& ra = *a.schedule("fib", cws::policy::relws).last_report();
  const cws::run_report& rb = *b.schedule("fib", cws::policy::random).last_report();
  EXPECT_EQ(ra.phase.iteration, 19u);
  EXPECT_EQ(rb.phase.iteration, 19u);
  EXPECT_FALSE(ra.diverged()) << ra.reason;
  EXPECT_EQ(rb.ran_as, cws::ran_as::random);
  EXPECT_EQ(a.schedule("fib", cws::policy::relws).history().size(), std::min(20u, a.config().history));
  EXPECT_EQ(cws::schedulers::store_of(b).find("fib"), nullptr);  // random keeps no replay state
}

TEST(run_report, says_what_ran_with_balance) {
  cws::runtime rt(config(2));
  auto& s = rt.schedule("fib", cws::policy::random);
  std::uint64_t r = 0;
  const cws::run_report& rep = rt.run(s, [&] { r = cws::test::fib(20); });
  EXPECT_EQ(&rep, s.last_report());
  EXPECT_EQ(static_cast<const cws::phase_stats*>(&rep), s.last());
  EXPECT_EQ(rep.ran_as, cws::ran_as::random);
  EXPECT_EQ(rep.planned, cws::ran_as::random);
  EXPECT_TRUE(rep.reason.empty());
  EXPECT_FALSE(rep.distance_to_previous);
  EXPECT_EQ(rep.relocalization(), nullptr);
  const cws::load_balance b = cws::balance_of(rep);
  EXPECT_EQ(rep.balance, b);
  EXPECT_GE(rep.balance.max_over_fair, 1.0);
  EXPECT_LE(rep.balance.max_over_fair, 2.0);
  EXPECT_LE(rep.balance.idle_workers, 1u);

  // A replaying policy: the first run has no template, the second replays one.
  auto& t = rt.schedule("fib-stows", cws::policy::stows);
  rt.run(t, [&] { r = cws::test::fib(20); });
  EXPECT_EQ(t.last_report()->ran_as, cws::ran_as::random_no_template);
  EXPECT_EQ(t.last_report()->planned, cws::ran_as::random_no_template);
  EXPECT_FALSE(t.last_report()->reason.empty());
  const cws::run_report& second = rt.run(t, [&] { r = cws::test::fib(20); });
  EXPECT_EQ(second.ran_as, cws::ran_as::stows);
  EXPECT_TRUE(second.reason.empty());
  EXPECT_FALSE(second.template_from.empty());
  ASSERT_TRUE(second.distance_to_previous);
  EXPECT_EQ(*second.distance_to_previous, 0.0);  // stows replays exactly
}

TEST(run_report, ran_as_tokens_round_trip) {
  for (cws::ran_as r :
       {cws::ran_as::other, cws::ran_as::random, cws::ran_as::stows, cws::ran_as::stuws, cws::ran_as::relws,
        cws::ran_as::user, cws::ran_as::random_no_template, cws::ran_as::random_diverged})
    EXPECT_EQ(cws::ran_as_from_string(cws::to_string(r)), r);
  EXPECT_FALSE(cws::ran_as_from_string("random (no template yet)"));
  EXPECT_EQ(cws::ran_as_label(cws::ran_as::stows, cws::ran_as::stows, ""), "stows");
  EXPECT_EQ(cws::ran_as_label(cws::ran_as::random_diverged, cws::ran_as::relws, "why"), "random (diverged from relws)");
}

TEST(run_report, balance_from_per_worker_tasks) {
  cws::phase_stats st;
  st.per_worker.resize(4);
  EXPECT_EQ(cws::balance_of(st).max_over_fair, 1.0);  // no task: nothing unbalanced
  st.per_worker[0].tasks = 30;
  st.per_worker[1].tasks = 10;
  const cws::load_balance b = cws::balance_of(st);
  EXPECT_DOUBLE_EQ(b.max_over_fair, 3.0);  // 30 of 40 tasks = 0.75, fair share 0.25
  EXPECT_EQ(b.idle_workers, 2u);
}

// The same in time: each worker's wall time less its idle time, a worker
// that started no segment not busy at all.
TEST(run_report, balance_in_busy_time) {
  cws::phase_stats st;
  st.per_worker.resize(3);
  st.wall_s = 10e-6;
  EXPECT_EQ(cws::balance_of(st).busy_over_fair, 1.0);               // nobody started a segment: nothing to compare
  st.per_worker[0] = {.tasks = 8, .segments = 1, .idle_s = 0};      // busy 10 us
  st.per_worker[1] = {.tasks = 2, .segments = 2, .idle_s = 5e-6};   // busy 5 us
  st.per_worker[2] = {.tasks = 0, .segments = 0, .idle_s = 10e-6};  // in the phase, found nothing
  const cws::load_balance b = cws::balance_of(st);
  EXPECT_DOUBLE_EQ(b.busy_over_fair, 10.0 * 3 / 15.0);  // 10 of 15 us, fair share 1/3
  EXPECT_DOUBLE_EQ(b.max_over_fair, 8.0 * 3 / 10.0);
  EXPECT_EQ(b.idle_workers, 1u);
  EXPECT_EQ(cws::balance_of(st.per_worker).busy_over_fair, 1.0) << "no wall time given: not known";
  st.per_worker[1].idle_s = 20e-6;  // more idle than the phase lasted (clock skew): not busy, not negative
  EXPECT_DOUBLE_EQ(cws::balance_of(st).busy_over_fair, 3.0);
}

TEST(runtime, too_many_workers_is_refused_up_front) {
  try {
    cws::runtime rt(config(9, cws::test::eight_cores));
    FAIL() << "9 workers on 8 PUs accepted";
  } catch (const cws::error& e) {
    EXPECT_NE(std::string(e.what()).find("9 workers"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cws::runtime::current(), nullptr);  // a failed construction leaves no runtime behind
}

TEST(runtime, nested_run_is_an_error) {
  cws::runtime rt(config(2));
  bool refused = false;
  rt.run([&] {
    try {
      rt.run([] {});
    } catch (const cws::error&) {
      refused = true;
    }
  });
  EXPECT_TRUE(refused);
}

TEST(runtime, phase_statistics_count_tasks_and_iterations) {
  cws::runtime rt(config(2));
  auto& s = rt.schedule("fib");
  for (int it = 0; it < 3; ++it) {
    std::uint64_t r = 0;
    const cws::phase_stats& st = rt.run(s, [&] { r = cws::test::fib(20); });
    EXPECT_EQ(r, cws::test::serial_fib(20));
    EXPECT_EQ(st.tasks(), cws::test::fib_spawns(20) + 1);  // + the root
    EXPECT_EQ(st.per_worker.size(), 2u);
    EXPECT_EQ(st.segments(), st.steals() + 1);  // one segment per steal, plus the root's
    EXPECT_EQ(st.phase.iteration, static_cast<std::uint64_t>(it));
    EXPECT_EQ(st.phase.schedule, "fib");
    EXPECT_GT(st.wall_s, 0.0);
  }
  EXPECT_EQ(s.iterations(), 3u);
  ASSERT_NE(s.last(), nullptr);
}

// What every run passes on: the schedule's index (creation order), and its
// name, policy and followed schedule as they are at that run. The history
// keeps two runs, so slots are written again from the third run on: a
// follow() made in between must reach the run after it, in a reused slot
// too, and the observers see the same.
class phase_info_observer final : public cws::observer {
 public:
  void on_phase_begin(const cws::phase_info& info) override { begun.push_back(info); }
  void on_phase_end(const cws::phase_stats& stats) override { ended.push_back(stats.phase); }
  std::vector<cws::phase_info> begun, ended;
};

TEST(runtime, every_run_carries_the_schedules_index_and_its_current_follow) {
  cws::runtime_config c = config(2);
  c.history = 2;
  cws::runtime rt(c);
  phase_info_observer obs;
  rt.add_observer(obs);
  cws::schedule& a = rt.schedule("a-schedule-name-longer-than-sso");
  cws::schedule& b = rt.schedule("b", cws::policy::random);
  EXPECT_EQ(a.index(), 0u);
  EXPECT_EQ(b.index(), 1u);
  EXPECT_EQ(rt.schedule("a-schedule-name-longer-than-sso").index(), 0u) << "found again, not made again";
  const std::vector<std::string> follows{"", "", "b", "b", "b", "", "other-schedule-name-also-long", "b", "b", ""};
  for (std::size_t i = 0; i < follows.size(); ++i) {
    a.follow(follows[i]);
    const cws::run_report& r = rt.run(a, [] { (void)cws::test::fib(12); });
    EXPECT_EQ(r.phase.follows, follows[i]) << "run " << i;
    EXPECT_EQ(r.phase.schedule, "a-schedule-name-longer-than-sso") << "run " << i;
    EXPECT_EQ(r.phase.policy, "random") << "run " << i;
    EXPECT_EQ(r.phase.iteration, i);
    EXPECT_EQ(r.phase.schedule_index, 0u);
    const cws::run_report& rb = rt.run(b, [] {});
    EXPECT_EQ(rb.phase.schedule, "b");
    EXPECT_EQ(rb.phase.schedule_index, 1u);
    EXPECT_EQ(rb.phase.follows, "");
  }
  rt.remove_observer(obs);
  ASSERT_EQ(obs.begun.size(), 2 * follows.size());
  ASSERT_EQ(obs.ended.size(), 2 * follows.size());
  for (std::size_t i = 0; i < follows.size(); ++i) {
    for (const auto* seen : {&obs.begun[2 * i], &obs.ended[2 * i]}) {
      EXPECT_EQ(seen->schedule_index, 0u);
      EXPECT_EQ(seen->follows, follows[i]) << "run " << i;
      EXPECT_EQ(seen->iteration, i);
    }
    EXPECT_EQ(obs.ended[2 * i + 1].schedule_index, 1u);
  }
  // The history's two runs hold their own follows, not the latest one.
  ASSERT_EQ(a.history().size(), 2u);
  EXPECT_EQ(a.history()[0].phase.follows, follows[follows.size() - 2]);
  EXPECT_EQ(a.history()[1].phase.follows, follows.back());
}

// Records what the observer interface reports.
class recording_observer final : public cws::observer {
 public:
  bool wants_task_events() const override { return true; }
  void on_segment_begin(unsigned w, cws::segment_id s, const cws::task_tag&, std::uint64_t) override {
    std::lock_guard l(m);
    segments_begun++;
    EXPECT_EQ(cws::segment_worker(s), w);
    open.insert(s);
  }
  void on_segment_end(unsigned, cws::segment_id s, std::uint64_t tasks, std::uint64_t) override {
    std::lock_guard l(m);
    EXPECT_EQ(open.erase(s), 1u);
    tasks_in_segments += tasks;
  }
  void on_steal(unsigned, unsigned, const cws::task_tag&) override {
    std::lock_guard l(m);
    steals++;
  }
  void on_spawn(unsigned w, const cws::task_tag& t) override {
    std::lock_guard l(m);
    EXPECT_EQ(cws::segment_worker(t.segment), w) << "a spawn is tagged with the spawner's segment";
    EXPECT_TRUE(tags.emplace(t.segment, t.level, t.step).second) << "duplicate (segment, level, step)";
  }
  void on_task_begin(unsigned w, cws::segment_id s, const cws::task_tag&) override {
    std::lock_guard l(m);
    EXPECT_EQ(cws::segment_worker(s), w);
    tasks_begun++;
  }
  std::mutex m;
  std::set<cws::segment_id> open;
  std::set<std::tuple<cws::segment_id, std::uint32_t, std::uint32_t>> tags;
  std::uint64_t segments_begun = 0, tasks_in_segments = 0, steals = 0, tasks_begun = 0;
};

TEST(runtime, observer_sees_segments_steals_and_unique_tags) {
  for (const auto& topo : {std::string{}, cws::test::four_cores}) {
    cws::runtime rt(config(topo.empty() ? 2 : 0, topo));
    recording_observer obs;
    rt.add_observer(obs);
    const cws::phase_stats& st = rt.run([&] { (void)cws::test::fib(21); });
    rt.remove_observer(obs);
    EXPECT_EQ(obs.segments_begun, st.segments());
    EXPECT_TRUE(obs.open.empty());
    EXPECT_EQ(obs.tasks_in_segments, st.tasks());
    EXPECT_EQ(obs.tasks_begun, st.tasks());
    EXPECT_EQ(obs.steals, st.steals());
    EXPECT_EQ(obs.tags.size(), cws::test::fib_spawns(21));
    rt.run([&] { (void)cws::test::fib(10); });  // removed: sees nothing more
    EXPECT_EQ(obs.tags.size(), cws::test::fib_spawns(21));
  }
}

TEST(runtime, levels_and_steps_follow_the_spawn_tree) {
  // One worker: a single segment, so the tags are fully determined.
  cws::runtime rt(config(1));
  recording_observer obs;
  rt.add_observer(obs);
  rt.run([&] {
    cws::spawn([] {
      cws::spawn([] {});
      cws::spawn([] {});
    });                                     // (1,0) with children (2,0) (2,1)
    cws::spawn([] { cws::spawn([] {}); });  // (1,1) with child (2,2)
  });
  rt.remove_observer(obs);
  std::set<std::pair<std::uint32_t, std::uint32_t>> got;
  for (auto& [seg, level, step] : obs.tags) got.emplace(level, step);
  const std::set<std::pair<std::uint32_t, std::uint32_t>> want{{1, 0}, {1, 1}, {2, 0}, {2, 1}, {2, 2}};
  EXPECT_EQ(got, want);
}

TEST(runtime, caller_is_pinned_only_during_the_phase) {
  cpu_set_t before, during, after;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  auto cfg = config(2);
  cfg.pin = true;
  cws::runtime rt(cfg);
  rt.run([&] { sched_getaffinity(0, sizeof during, &during); });
  ASSERT_EQ(sched_getaffinity(0, sizeof after, &after), 0);
  EXPECT_EQ(CPU_COUNT(&during), 1) << "worker 0 runs pinned to one PU";
  EXPECT_TRUE(CPU_EQUAL(&before, &after)) << "the caller's own affinity is restored after the phase";
}

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

TEST(runtime, workers_sleep_between_phases) {
  cws::runtime rt(config(2));
  rt.run([&] { (void)cws::test::fib(20); });
  const double cpu0 = process_cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the program is "serial" here
  const double used = process_cpu_seconds() - cpu0;
  std::printf("[ figure ] CPU used by an idle 2-worker runtime over 0.5 s: %.4f s (%.2f %% of one core)\n", used,
              used / 0.5 * 100);
  EXPECT_LT(used, 0.05) << "idle workers burn CPU between phases";
}

std::size_t heap_in_use() {
#ifdef CWS_TEST_ASAN
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}

TEST(runtime, ten_thousand_phases_do_not_grow_memory) {
  // Recording off: the recorder keeps every phase's tree by design (that is
  // what trace files hold); this test is about the scheduler itself.
  auto cfg = config(2);
  cfg.record = false;
  cws::runtime rt(cfg);
  auto& s = rt.schedule("small");
  std::uint64_t sink = 0;
  auto phase = [&] { rt.run(s, [&] { sink += cws::test::fib(12); }); };
  for (int i = 0; i < 1000; ++i) phase();  // warm-up: pools and deques reach their size
  const std::size_t before = heap_in_use();
  for (int i = 0; i < 9000; ++i) phase();
  const std::size_t after = heap_in_use();
  EXPECT_EQ(sink, 10000 * cws::test::serial_fib(12));
  EXPECT_EQ(s.iterations(), 10000u);
  std::printf("[ figure ] heap in use after 1000 phases: %zu B, after 10000: %zu B\n", before, after);
  EXPECT_LE(after, before + 64 * 1024) << "memory grows with the number of phases";
}

}  // namespace
