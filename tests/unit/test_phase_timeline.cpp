// What rt.run does after a phase, seen through the public API:
//   * the phase timeline (runtime::time_phases, phase_timeline.hpp): present
//     only while timing, its parts consistent with the report's wall_s;
//   * the locality report of declared touches is made once and reused while
//     the run touches the same bytes from the same nodes and no page moved
//     (phase_timeline::locality_pages counts the pages it went over: 0 when
//     reused; a schedule keeps two, for a phase alternating two buffers),
//     and made again when a page moved (relocalize, a program's own
//     move), the touches changed, a cws::numa region came or went, or 256
//     runs reused it.
// Two workers on synthetic topologies (simulated page homes), touches placed
// by designation (policy `user`), so every count below is exact.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"

namespace numa = cws::numa;

namespace {

const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
const std::string two_nodes = "pack:2 numa:1 core:1 pu:1";
const std::string one_node = "pack:1 numa:1 core:2 pu:1";

class Touching {
 public:
  static constexpr std::size_t pages = 8;

  explicit Touching(const std::string& topology) : rt(cws::test::config(2, topology)) { rt.time_phases(true); }

  // Worker 1 (designated) touches [0, split) pages of the data, worker 0 the rest.
  const cws::run_report& run(cws::schedule& s, std::size_t split = pages / 2, std::size_t upto = pages) {
    return rt.run(s, [&] {
      cws::designate_after_next_spawn(1);
      cws::spawn([&] { cws::touch(data.data(), split * page); });
      cws::touch(data.data() + split * page, (upto - split) * page);
      cws::sync();
    });
  }
  static std::uint64_t examined(const cws::run_report& r) { return r.timeline.value().locality_pages; }

  cws::runtime rt;
  numa::array<char> data = numa::allocate<char>(pages * page, numa::first_touch);
};

TEST(PhaseTimeline, OnlyTimedRunsCarryOneAndItsPartsAddUpToTheWallTime) {
  Touching t(two_nodes);
  auto& s = t.rt.schedule("timeline", "user");
  t.rt.time_phases(false);
  EXPECT_FALSE(t.run(s).timeline.has_value());
  t.rt.time_phases(true);
  EXPECT_TRUE(t.rt.times_phases());
  for (int i = 0; i < 20; ++i) {
    const cws::run_report& r = t.run(s);
    ASSERT_TRUE(r.timeline.has_value());
    const cws::phase_timeline& tl = *r.timeline;
    for (double part : {tl.setup_s, tl.fork_s, tl.leaves_s, tl.join_s, tl.helpers_out_s, tl.collect_s, tl.locality_s,
                        tl.observers_s, tl.policy_s, tl.relocalize_s})
      EXPECT_GE(part, 0.0);
    // From the wake to the helpers' return, the parts are cut from the same
    // clock reads as wall_s.
    EXPECT_NEAR(tl.leaves_s + tl.join_s + tl.helpers_out_s, r.wall_s, 1e-9);
    EXPECT_GE(tl.total_s, tl.setup_s + r.wall_s + tl.after_phase_s() - 1e-9);
    // The designated task ran on worker 1 as a stolen segment.
    ASSERT_EQ(r.segments(), 2u);
    ASSERT_TRUE(tl.first_steal_s.has_value());
    EXPECT_LE(*tl.first_steal_s, tl.leaves_s + tl.join_s);
  }
  // A phase without a steal has no first steal.
  const cws::run_report& alone = t.rt.run(s, [] {});
  ASSERT_TRUE(alone.timeline.has_value());
  EXPECT_EQ(alone.segments(), 1u);
  EXPECT_FALSE(alone.timeline->first_steal_s.has_value());
  EXPECT_EQ(alone.timeline->locality_pages, 0u);  // nothing declared
}

TEST(LocalityReuse, TheSameTouchesReuseTheReportUntilAPageMoves) {
  Touching t(two_nodes);
  auto& s = t.rt.schedule("reuse", "user");
  const cws::locality_report first = *t.run(s).locality;
  EXPECT_EQ(Touching::examined(*s.last_report()), Touching::pages);
  EXPECT_EQ(first.local_bytes, Touching::pages * page);  // first touch placed every page where it was touched
  for (int i = 0; i < 10; ++i) {
    const cws::run_report& r = t.run(s);
    EXPECT_EQ(Touching::examined(r), 0u);
    EXPECT_EQ(*r.locality, first);
  }

  // The halves change hands: a new report, nothing local; then reused.
  auto& other = t.rt.schedule("other", "user");
  const cws::run_report& moved_work = t.run(other, Touching::pages / 4);
  EXPECT_EQ(Touching::examined(moved_work), Touching::pages);
  EXPECT_EQ(moved_work.locality->local_bytes, 3 * Touching::pages / 4 * page);
  EXPECT_EQ(Touching::examined(t.run(other, Touching::pages / 4)), 0u);

  // Relocalizing moves pages: every schedule's report is made again, and says so.
  ASSERT_EQ(t.rt.relocalize(other).pages_moved, Touching::pages / 4);
  const cws::run_report& after = t.run(other, Touching::pages / 4);
  EXPECT_EQ(Touching::examined(after), Touching::pages);
  EXPECT_EQ(after.locality->share(), 1.0);
  const cws::run_report& back = t.run(s);
  EXPECT_EQ(Touching::examined(back), Touching::pages);
  EXPECT_EQ(back.locality->local_bytes, 3 * Touching::pages / 4 * page);

  // A move made by the program through the runtime's backend counts too.
  const std::uintptr_t first_page = reinterpret_cast<std::uintptr_t>(t.data.data());
  const unsigned to_node[] = {0};
  ASSERT_EQ(t.rt.page_homes().move({&first_page, 1}, to_node).moved, 1u);
  const cws::run_report& own_move = t.run(s);
  EXPECT_EQ(Touching::examined(own_move), Touching::pages);
  EXPECT_EQ(own_move.locality->local_bytes, (Touching::pages / 2 + 1) * page);  // page 0 left node 1
}

TEST(LocalityReuse, OtherTouchesOrANewRegionMakeItAgain) {
  Touching t(two_nodes);
  auto& s = t.rt.schedule("changes", "user");
  t.run(s);
  EXPECT_EQ(Touching::examined(t.run(s)), 0u);
  // One page fewer: another report.
  const cws::run_report& fewer = t.run(s, Touching::pages / 2, Touching::pages - 1);
  EXPECT_EQ(Touching::examined(fewer), Touching::pages - 1);
  EXPECT_EQ(fewer.locality->touched_bytes, (Touching::pages - 1) * page);
  EXPECT_EQ(Touching::examined(t.run(s, Touching::pages / 2, Touching::pages - 1)), 0u);
  // A region allocated (or freed) may change simulated homes: made again.
  {
    auto more = numa::allocate<char>(page, numa::on_node(1));
    EXPECT_EQ(Touching::examined(t.run(s, Touching::pages / 2, Touching::pages - 1)), Touching::pages - 1);
    EXPECT_EQ(Touching::examined(t.run(s, Touching::pages / 2, Touching::pages - 1)), 0u);
  }
  EXPECT_EQ(Touching::examined(t.run(s, Touching::pages / 2, Touching::pages - 1)), Touching::pages - 1);
}

TEST(LocalityReuse, OnOneNodeHowTheWorkIsSplitDoesNotMatter) {
  Touching t(one_node);
  auto& s = t.rt.schedule("split", "user");
  const cws::locality_report first = *t.run(s, 2).locality;
  for (std::size_t split = 0; split <= Touching::pages; ++split) {
    const cws::run_report& r = t.run(s, split);
    EXPECT_EQ(Touching::examined(r), 0u) << "split " << split;
    EXPECT_EQ(*r.locality, first);
  }
}

// A phase that alternates two buffers (a Jacobi sweep with its grids swapped
// every run) finds each buffer's report; a third touch set replaces the
// report used least recently.
TEST(LocalityReuse, TwoBuffersInTurnEachKeepTheirReport) {
  Touching t(two_nodes);
  numa::array<char> other = numa::allocate<char>(Touching::pages * page, numa::first_touch);
  auto& s = t.rt.schedule("ping-pong", "user");
  const auto run_on = [&](char* data) -> const cws::run_report& {
    return t.rt.run(s, [&] {
      cws::designate_after_next_spawn(1);
      cws::spawn([&] { cws::touch(data, Touching::pages / 2 * page); });
      cws::touch(data + Touching::pages / 2 * page, Touching::pages / 2 * page);
      cws::sync();
    });
  };
  EXPECT_EQ(Touching::examined(run_on(t.data.data())), Touching::pages);
  EXPECT_EQ(Touching::examined(run_on(other.data())), Touching::pages);
  // other's first run placed its pages (first touch): t.data's report
  // predates that, so it is made again once.
  EXPECT_EQ(Touching::examined(run_on(t.data.data())), Touching::pages);
  for (int i = 1; i < 7; ++i) {
    const cws::run_report& r = run_on(i % 2 == 0 ? t.data.data() : other.data());
    EXPECT_EQ(Touching::examined(r), 0u) << "run " << i;
    EXPECT_EQ(r.locality->touched_bytes, Touching::pages * page);
    EXPECT_EQ(r.locality->local_bytes, Touching::pages * page);
  }
  // A third buffer takes the place of the report used least recently
  // (other's: t.data ran last); other's report is then made again in place
  // of t.data's, which the new region had made stale anyway. The two newest
  // are reused, t.data's is gone.
  numa::array<char> third = numa::allocate<char>(Touching::pages * page, numa::first_touch);
  EXPECT_EQ(Touching::examined(run_on(third.data())), Touching::pages);
  EXPECT_EQ(Touching::examined(run_on(other.data())), Touching::pages);
  EXPECT_EQ(Touching::examined(run_on(third.data())), 0u);
  EXPECT_EQ(Touching::examined(run_on(other.data())), 0u);
  EXPECT_EQ(Touching::examined(run_on(t.data.data())), Touching::pages);
}

// One NUMA node: every page is on it. The report counts every declared byte
// as local, once per worker that declared it, and the distinct pages, from
// the ranges alone: no page is gone over.
TEST(LocalityReuse, OnOneNodeTheReportNeedsNoPage) {
  Touching t(one_node);
  auto& s = t.rt.schedule("one-node", "user");
  const cws::run_report& r = t.rt.run(s, [&] {
    cws::designate_after_next_spawn(1);
    cws::spawn([&] { cws::touch(t.data.data(), 5 * page); });
    cws::touch(t.data.data() + 3 * page, 5 * page - 100);
    cws::touch(t.data.data() + 3 * page, 10);  // again: one range on this worker
    cws::sync();
  });
  EXPECT_EQ(Touching::examined(r), 0u);
  ASSERT_TRUE(r.locality.has_value());
  EXPECT_EQ(r.locality->pages, Touching::pages);
  EXPECT_EQ(r.locality->touched_bytes, 10 * page - 100);
  EXPECT_EQ(r.locality->local_bytes, r.locality->touched_bytes);
  EXPECT_EQ(r.locality->unknown_bytes, 0u);
  ASSERT_EQ(r.locality->per_node.size(), 1u);
  EXPECT_EQ(r.locality->per_node[0].touched_bytes, 10 * page - 100);
  EXPECT_EQ(r.locality->per_node[0].local_bytes, 10 * page - 100);
}

TEST(LocalityReuse, AReportIsMadeAgainAfter256Reuses) {
  Touching t(two_nodes);
  auto& s = t.rt.schedule("refresh", "user");
  std::vector<unsigned> made;
  for (unsigned run = 0; run < 600; ++run)
    if (Touching::examined(t.run(s)) != 0) made.push_back(run);
  EXPECT_EQ(made, (std::vector<unsigned>{0, 257, 514}));
}

}  // namespace
