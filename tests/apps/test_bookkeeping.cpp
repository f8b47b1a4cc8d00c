// The apps' per-phase bookkeeping (locality_tally, line_log; counter_tally
// is built as locality_tally) never moves what it already holds when a
// phase adds to it. A vector's
// doubling would copy every entry so far between two phases; at a thousand
// entries or two that took long enough for the helpers to go to sleep, and
// the phases after it ran without them (cws-cg: small kernels released at
// the 1 024th and 2 048th run of their schedules). So the entry of a
// schedule's first run must stay at its address while thousands more are
// added.

#include <gtest/gtest.h>

#include <array>
#include <vector>
#include <cstddef>
#include <string>

#include "common/iteration_lines.hpp"
#include "common/locality_tally.hpp"
#include "common/per_schedule.hpp"
#include "support/runtime_fixture.hpp"

namespace {

constexpr int later_runs = 3000;  // past two doublings of a vector (1 024, 2 048)

// One worker: the phases take a microsecond or two; the bookkeeping is what is tested.
cws::runtime_config one_worker() { return cws::test::config(1); }

TEST(bookkeeping, the_locality_tally_keeps_a_run_where_it_put_it) {
  cws::runtime rt(one_worker());
  cws_apps::locality_tally tally(rt);
  auto& s = rt.schedule("touching", cws::policy::random);
  std::array<double, 512> data{};
  const auto phase = [&] { cws::touch(data.data(), sizeof data); };
  rt.run(s, phase);
  const cws_apps::locality_figures* first = tally.locality_of(s.name(), 0);
  ASSERT_NE(first, nullptr) << "a run that declared touches has a locality report";
  for (int i = 0; i < later_runs; ++i) rt.run(s, phase);
  EXPECT_EQ(tally.locality_of(s.name(), 0), first);
  EXPECT_EQ(tally.summarize(s.name(), 0, later_runs + 1).reported, std::size_t{later_runs} + 1);
}

// The tallies find a schedule's log by its index after each phase and by
// its name when read: two interleaved schedules stay apart, and each run's
// figures are its own report's.
TEST(bookkeeping, the_tallies_keep_interleaved_schedules_apart) {
  cws::runtime rt(one_worker());
  cws_apps::locality_tally tally(rt);
  auto& a = rt.schedule("a-touching-schedule", cws::policy::random);
  auto& b = rt.schedule("b-touching-schedule", cws::policy::random);
  std::array<double, 512> data{};
  std::vector<double> shares;
  for (int i = 0; i < 5; ++i) {
    const cws::run_report& ra = rt.run(a, [&] { cws::touch(data.data(), sizeof data); });
    ASSERT_TRUE(ra.locality.has_value());
    shares.push_back(ra.locality->share());
    rt.run(b, [&] { cws::touch(data.data(), sizeof data / 2); });
  }
  const cws_apps::locality_summary sa = tally.summarize(a.name(), 0, 5);
  const cws_apps::locality_summary sb = tally.summarize(b.name(), 0, 5);
  EXPECT_EQ(sa.reported, 5u);
  EXPECT_EQ(sb.reported, 5u);
  EXPECT_EQ(sa.touched_bytes, 5 * sizeof data);
  EXPECT_EQ(sb.touched_bytes, 5 * sizeof data / 2);
  for (std::uint64_t i = 0; i < 5; ++i) {
    const cws_apps::locality_figures* f = tally.locality_of(a.name(), i);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->share(), shares[i]);
    EXPECT_EQ(f->touched_bytes, sizeof data);
  }
  EXPECT_EQ(tally.locality_of("never-ran", 0), nullptr);
}

// per_schedule: by index once an index was seen, by name always (a
// phase_info made by hand has no index), both reaching the same state.
TEST(bookkeeping, per_schedule_state_is_found_by_index_and_by_name) {
  cws_apps::per_schedule<int> state;
  cws::phase_info x;
  x.schedule = "x";
  state.of(x) = 7;  // no index: by name
  EXPECT_EQ(state.of(x), 7);
  cws::phase_info y;
  y.schedule = "y";
  y.schedule_index = 3;
  state.of(y) = 11;
  EXPECT_EQ(&state.of(y), state.find("y"));
  EXPECT_EQ(&state.named("y"), state.find("y"));
  EXPECT_EQ(*state.find("x"), 7);
  cws::phase_info z;
  z.schedule = "z";
  z.schedule_index = 1;  // a lower index after a higher one
  state.of(z) = 13;
  EXPECT_EQ(state.of(y), 11);
  EXPECT_EQ(state.of(z), 13);
  EXPECT_EQ(state.find("w"), nullptr);
}

TEST(bookkeeping, a_line_log_has_room_for_every_line_its_map_covers) {
  cws::runtime rt(one_worker());
  auto& s = rt.schedule("lines", cws::policy::random);
  const cws_apps::run_map map{.first = 0, .per_run = 1000, .warmup = 1, .runs_total = 4};
  cws_apps::line_log log(map);
  const auto phase = [] {};
  rt.run(s, phase);
  log.add(rt, s);
  ASSERT_EQ(log.lines().size(), 1u);
  const cws_apps::iteration_line* first = &log.lines().front();
  for (int i = 0; i < later_runs; ++i) {
    rt.run(s, phase);
    log.add(rt, s);
  }
  ASSERT_EQ(log.lines().size(), std::size_t{later_runs} + 1);
  EXPECT_EQ(&log.lines().front(), first);
  EXPECT_EQ(log.lines()[1500].run, 1u);  // run 1 of 1 000 phases: the first measured one
  EXPECT_EQ(log.lines()[1500].index, 500u);
}

}  // namespace
