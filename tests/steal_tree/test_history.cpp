// The recorder's bounded history (record_window.hpp): the last K runs of
// every schedule (runtime_config::history), in recording order across
// schedules; each schedule's latest run kept however many runs of others
// follow; evicted records' storage reused; history = 1; the window against a
// model of its order under skewed schedule frequencies, reads and clears.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cws/steal_tree/record_window.hpp"

#include "record_checks.hpp"

namespace {

namespace st = cws::steal_tree;

cws::runtime_config with_history(unsigned k) {
  cws::runtime_config c = cws::test::config(2);
  c.history = k;
  return c;
}

// The kept records of `schedule`, oldest first.
std::vector<std::uint64_t> kept_iterations(const st::recorder& rec, const std::string& schedule) {
  std::vector<std::uint64_t> out;
  for (const st::phase_record& r : rec.phases())
    if (r.schedule == schedule) out.push_back(r.iteration);
  return out;
}

TEST(recorder_history, keeps_the_last_k_runs_of_every_schedule_in_recording_order) {
  cws::runtime rt(with_history(3));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->history(), 3u);
  auto& a = rt.schedule("a");
  auto& b = rt.schedule("b");
  auto& c = rt.schedule("c");
  rt.run(c, [] { cws::test::fib(10); });  // once, long before the rest
  // a runs twice as often as b: 20 runs of a, 10 of b.
  for (int i = 0; i < 10; ++i) {
    rt.run(a, [] { cws::test::fib(12); });
    rt.run(b, [] { cws::test::fib(11); });
    const auto& sa = rt.run(a, [] { cws::test::fib(12); });
    cws::test::check_tree(*rec->latest("a"), sa, "a");
  }
  EXPECT_EQ(kept_iterations(*rec, "a"), (std::vector<std::uint64_t>{17, 18, 19}));
  EXPECT_EQ(kept_iterations(*rec, "b"), (std::vector<std::uint64_t>{7, 8, 9}));
  EXPECT_EQ(kept_iterations(*rec, "c"), (std::vector<std::uint64_t>{0}));
  ASSERT_EQ(rec->phases().size(), 7u);
  // Recording order across schedules: c#0, then the kept runs as they ran
  // (each round runs a, b, a: round 8 is a#16 b#8 a#17, round 9 a#18 b#9 a#19).
  std::vector<std::string> order;
  for (const st::phase_record& r : rec->phases()) order.push_back(r.schedule + "#" + std::to_string(r.iteration));
  EXPECT_EQ(order, (std::vector<std::string>{"c#0", "b#7", "b#8", "a#17", "a#18", "b#9", "a#19"}));
  EXPECT_EQ(rec->latest("a")->iteration, 19u);
  EXPECT_EQ(rec->latest("c")->iteration, 0u);
  EXPECT_EQ(&rec->phases().back(), rec->latest("a"));
  EXPECT_EQ(&rec->phases()[5], rec->latest("b"));
  // Random access and iteration agree, and the copy keeps the order.
  const std::vector<st::phase_record> copy = rec->phases();
  ASSERT_EQ(copy.size(), rec->phases().size());
  for (std::size_t i = 0; i < copy.size(); ++i) EXPECT_EQ(copy[i].iteration, rec->phases()[i].iteration);
  EXPECT_EQ(rec->phases().evicted(), 20u + 10u + 1u - 7u);
}

TEST(recorder_history, history_one_keeps_each_schedules_latest_run) {
  cws::runtime rt(with_history(1));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  auto& a = rt.schedule("a");
  auto& b = rt.schedule("b");
  for (int i = 0; i < 5; ++i) {
    const auto& sa = rt.run(a, [] { cws::test::fib(14); });
    ASSERT_EQ(kept_iterations(*rec, "a"), (std::vector<std::uint64_t>{static_cast<std::uint64_t>(i)}));
    cws::test::check_tree(*rec->latest("a"), sa, "a");
  }
  rt.run(b, [] { cws::test::fib(10); });
  ASSERT_EQ(rec->phases().size(), 2u);
  EXPECT_EQ(rec->phases()[0].schedule, "a");
  EXPECT_EQ(rec->phases()[1].schedule, "b");
  rt.run(a, [] { cws::test::fib(14); });  // a's run moves behind b's
  EXPECT_EQ(rec->phases()[0].schedule, "b");
  EXPECT_EQ(rec->phases()[1].iteration, 5u);
}

TEST(recorder_history, relocalization_reports_and_clear_follow_the_window) {
  cws::runtime rt(with_history(2));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  auto& a = rt.schedule("a");
  for (int i = 0; i < 4; ++i) rt.run(a, [] { cws::test::fib(10); });
  rec->clear();
  EXPECT_TRUE(rec->phases().empty());
  EXPECT_EQ(rec->latest("a"), nullptr);
  for (int i = 0; i < 3; ++i) rt.run(a, [] { cws::test::fib(10); });
  EXPECT_EQ(kept_iterations(*rec, "a"), (std::vector<std::uint64_t>{5, 6}));
  // The storage of cleared and evicted records is reused: nothing new is held.
  const std::size_t held = rec->history_bytes();
  for (int i = 0; i < 50; ++i) rt.run(a, [] {});
  EXPECT_LE(rec->history_bytes(), held);
  EXPECT_EQ(rec->phases().size(), 2u);
}

// Reused storage never leaks one run's contents into another's record: each
// kept record matches its own phase's statistics, whatever the record it
// overwrote held (alternating big and small trees through a window of 2).
TEST(recorder_history, a_reused_record_holds_only_its_own_run) {
  cws::runtime rt(with_history(2));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  auto& s = rt.schedule("s");
  for (int i = 0; i < 40; ++i) {
    const unsigned n = i % 3 == 0 ? 18 : i % 3 == 1 ? 2 : 12;
    const auto& stats = rt.run(s, [n] { cws::test::fib(n); });
    cws::test::check_tree(*rec->latest("s"), stats, "reused record");
  }
}

TEST(recorder_history, a_reused_record_holds_only_its_own_audit) {
  cws::runtime_config c = with_history(2);
  c.audit = true;
  cws::runtime rt(c);
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  auto& s = rt.schedule("s");
  for (int i = 0; i < 12; ++i) {
    const unsigned n = i % 2 == 0 ? 15 : 5;
    const auto& stats = rt.run(s, [n] { cws::test::fib(n); });
    cws::test::check_tree(*rec->latest("s"), stats, "reused record");
    cws::test::check_audit(*rec->latest("s"), stats, "reused record");
  }
}

// A policy asks for its schedule's latest run by the schedule (its index),
// not its name: the same record, once the window recycles its storage too.
TEST(recorder_history, latest_by_schedule_is_latest_by_name) {
  cws::runtime rt(with_history(2));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  cws::schedule& a = rt.schedule("first-schedule-with-a-long-name");
  cws::schedule& b = rt.schedule("second-schedule-with-a-long-name");
  EXPECT_EQ(rec->latest(a), nullptr);
  for (std::uint64_t i = 0; i < 7; ++i) {
    rt.run(a, [] { (void)cws::test::fib(14); });
    const st::phase_record* by_name = rec->latest(a.name());
    ASSERT_NE(by_name, nullptr);
    EXPECT_EQ(rec->latest(a), by_name);
    EXPECT_EQ(by_name->schedule, a.name());
    EXPECT_EQ(by_name->iteration, i);
    EXPECT_EQ(rec->latest(b), i == 0 ? nullptr : rec->latest(b.name()));
    rt.run(b, [] {});
    EXPECT_EQ(rec->latest(b), rec->latest(b.name()));
    EXPECT_EQ(rec->latest(b)->schedule, b.name());
    EXPECT_EQ(rec->latest(b)->policy, "random");
  }
  EXPECT_EQ(kept_iterations(*rec, a.name()), (std::vector<std::uint64_t>{5, 6}));
}

// The window's order against a model that erases each evicted run from a
// plain list. Schedules run at very different rates (as cws-cg's kernels:
// some 25 times an iteration, some once), so an evicted run often sits behind
// runs of rarer schedules; the order is read at random moments (between
// evictions, so with tombstones in it) and cleared now and then.
TEST(record_window, order_matches_a_model_under_skewed_rates_reads_clears_and_keys) {
  constexpr std::size_t k = 5;
  st::record_window w(k);
  std::vector<std::pair<std::string, std::uint64_t>> model;  // kept runs, recording order
  std::mt19937 rng(2026);
  const std::vector<std::string> names{"spmv", "dot", "update", "start", "norms", "init"};
  std::discrete_distribution<int> pick{40, 40, 40, 3, 2, 1};
  std::vector<std::uint64_t> runs(names.size(), 0);
  std::vector<bool> keyed(names.size(), false);  // next() was given the schedule's key
  auto expect_same_order = [&](int step) {
    ASSERT_EQ(w.size(), model.size()) << "step " << step;
    std::size_t i = 0;
    for (const st::phase_record& r : w) {
      ASSERT_LT(i, model.size()) << "step " << step;
      EXPECT_EQ(r.schedule, model[i].first) << "step " << step << " position " << i;
      EXPECT_EQ(r.iteration, model[i].second) << "step " << step << " position " << i;
      EXPECT_EQ(&w[i], &r);
      ++i;
    }
    EXPECT_EQ(i, model.size());
  };
  for (int step = 0; step < 20000; ++step) {
    const auto s = static_cast<std::size_t>(pick(rng));
    const std::string& name = names[s];
    const bool full = std::count_if(model.begin(), model.end(), [&](const auto& m) { return m.first == name; }) ==
                      static_cast<std::ptrdiff_t>(k);
    if (full) model.erase(std::find_if(model.begin(), model.end(), [&](const auto& m) { return m.first == name; }));
    // By name, or by key (the schedule's index) as the recorder does; the
    // name is written only into storage that is not already this
    // schedule's, so a slot said to be recycled from another schedule shows
    // up as a wrong name in the order below.
    bool recycled = false;
    st::phase_record& r = step % 2 == 0 ? w.next(name) : w.next(name, static_cast<std::uint32_t>(s), recycled);
    if (step % 2 == 0 || !recycled) r.schedule = name;
    if (step % 2 != 0) {
      EXPECT_EQ(recycled, full) << "step " << step;
    }
    r.iteration = runs[s]++;
    model.emplace_back(name, r.iteration);
    ASSERT_EQ(w.latest(name), &r);
    if (step % 2 != 0) keyed[s] = true;
    // A key finds the schedule's runs, whichever way they were added, once
    // it was given for that schedule; before that it finds nothing.
    ASSERT_EQ(w.latest_keyed(static_cast<std::uint32_t>(s)), keyed[s] ? &r : nullptr) << "step " << step;
    if (rng() % 97 == 0) expect_same_order(step);
    if (rng() % 4999 == 0) {
      w.clear();
      model.clear();
      EXPECT_TRUE(w.empty());
    }
    if (HasFatalFailure()) return;
  }
  expect_same_order(20000);
}

}  // namespace
