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
#include <cstddef>
#include <string>

#include "common/iteration_lines.hpp"
#include "common/locality_tally.hpp"
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
  const cws::locality_report* first = tally.locality_of(s.name(), 0);
  ASSERT_NE(first, nullptr) << "a run that declared touches has a locality report";
  for (int i = 0; i < later_runs; ++i) rt.run(s, phase);
  EXPECT_EQ(tally.locality_of(s.name(), 0), first);
  EXPECT_EQ(tally.summarize(s.name(), 0, later_runs + 1).reported, std::size_t{later_runs} + 1);
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
