// Pedigrees and serial elision (SC14's dynamic coarsening):
//   * every recorded steal point carries its pedigree, the ranks of the stolen
//     task's ancestors in its segment, and they agree with the spawn tree the
//     audit records describe;
//   * stows/stuws with a template that knows its pedigrees run every spawn off
//     the paths to its steals as a plain call: no task, results unchanged, the
//     designated tasks still on their thieves;
//   * a template whose pedigrees do not fit the program diverges safely and
//     the next run records afresh.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "schedulers/replay_support.hpp"
#include "support/leaf_order.hpp"
#include "support/steal_tree_builders.hpp"

namespace {

namespace st = cws::steal_tree;
using cws::test::audited;
using cws::test::config;
using cws::test::latest;

// A random run of `program` that stole something (more than two segments), in at most 300 runs.
template <class Program>
st::tree record_with_steals(cws::runtime& rt, const std::string& name, Program program) {
  return cws::test::record_with_steals(rt, name, program, 300, 2);
}

// The pedigree of every stolen task, rebuilt from the audit records alone:
// a task's rank is its position among its parent's spawns (ordered by step,
// all in the parent's segment), walked up to the spawning segment's root.
TEST(pedigree, recorded_paths_match_the_audited_spawn_tree) {
  cws::runtime rt(audited(4, cws::test::four_cores));
  const st::tree t = record_with_steals(rt, "fib", [] { cws::test::fib(16); });
  ASSERT_GT(t.segments.size(), 2u) << "no random run stole anything";
  ASSERT_FALSE(t.audit.empty());

  std::map<std::uint32_t, std::vector<std::uint32_t>> children;  // parent record -> its spawns
  for (std::uint32_t i = 0; i < t.audit.size(); ++i)
    if (t.audit[i].parent != st::no_parent) children[t.audit[i].parent].push_back(i);
  auto rank_of = [&](std::uint32_t i) {
    const auto& sib = children[t.audit[i].parent];
    return static_cast<std::uint32_t>(
        std::count_if(sib.begin(), sib.end(), [&](std::uint32_t j) { return t.audit[j].step < t.audit[i].step; }));
  };
  unsigned checked = 0;
  for (std::uint32_t s = 0; s < t.segments.size(); ++s)
    for (const st::steal_point& p : t.segments[s].steals) {
      const auto path = st::path_of(t, p);
      ASSERT_EQ(path.size(), p.level) << "steal (" << p.level << "," << p.step << ") of segment " << s;
      // The stolen task: spawned in s at (level, step).
      const auto it = std::find_if(t.audit.begin(), t.audit.end(), [&](const st::audit_record& r) {
        return r.spawn_segment == s && r.level == p.level && r.step == p.step;
      });
      ASSERT_NE(it, t.audit.end());
      std::uint32_t task = static_cast<std::uint32_t>(it - t.audit.begin());
      for (std::uint32_t d = p.level; d >= 1; --d) {
        EXPECT_EQ(path[d - 1], rank_of(task)) << "depth " << d << " of steal (" << p.level << "," << p.step << ")";
        task = t.audit[task].parent;
      }
      ++checked;
    }
  EXPECT_EQ(checked, t.segments.size() - 1);
}

// Real spawns (tasks) a replay under elision may still make: the nodes on the
// paths to the template's steals (at most `level` per steal) plus the
// segments' roots.
std::uint64_t path_bound(const st::tree& t) {
  std::uint64_t n = t.segments.size();
  for (const st::segment& s : t.segments)
    for (const st::steal_point& p : s.steals) n += p.level;
  return n;
}

class elision : public ::testing::TestWithParam<const char*> {};

TEST_P(elision, spawns_off_the_paths_run_as_calls_and_the_steals_stay) {
  cws::runtime rt(config(4, cws::test::four_cores));
  const st::tree templ = record_with_steals(rt, "probe", [] { cws::test::fib(20); });
  ASSERT_GT(templ.segments.size(), 2u);
  auto& store = cws::schedulers::store_of(rt);
  store.seed("fib", templ, "probe");
  auto& s = rt.schedule("fib", GetParam());
  for (int it = 0; it < 10; ++it) {
    std::uint64_t result = 0;
    const cws::run_report& report = rt.run(s, [&] { result = cws::test::fib(20); });
    ASSERT_EQ(result, cws::test::serial_fib(20));
    const auto& r = s.history().back();
    ASSERT_FALSE(r.diverged()) << r.reason;
    EXPECT_EQ(r.extra_steals(), 0u);
    EXPECT_EQ(r.designated(), templ.segments.size() - 1);
    // Every call counts as a task (elided ones included), so the totals match the template's...
    EXPECT_EQ(r.tasks(), cws::test::fib_spawns(20) + 1);
    // ... but only the spawns on the way to a steal were tasks.
    EXPECT_LE(r.tasks() - r.elided(), path_bound(templ)) << "elided " << r.elided() << " of " << r.tasks();
    EXPECT_EQ(report.elided(), r.elided()) << "the run's report totals the elided calls its history record counts";
    EXPECT_EQ(report.balance, cws::balance_of(report));
    // The designated tasks ran where the template put them: same tree.
    const st::tree& run = latest(rt, "fib").steals;
    ASSERT_EQ(run.segments.size(), templ.segments.size());
    for (std::size_t i = 0; i < run.segments.size(); ++i) {
      EXPECT_EQ(run.segments[i].worker, templ.segments[i].worker);
      EXPECT_EQ(run.segments[i].tasks, templ.segments[i].tasks) << "segment " << i;
      ASSERT_EQ(run.segments[i].steals.size(), templ.segments[i].steals.size());
      for (std::size_t k = 0; k < run.segments[i].steals.size(); ++k) {
        const st::steal_point &a = run.segments[i].steals[k], &b = templ.segments[i].steals[k];
        EXPECT_EQ(std::tie(a.level, a.step, a.thief), std::tie(b.level, b.step, b.thief));
        const auto pa = st::path_of(run, a), pb = st::path_of(templ, b);
        EXPECT_TRUE(std::equal(pa.begin(), pa.end(), pb.begin(), pb.end()));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(strict, elision, ::testing::Values("stows", "stuws"));

TEST(elision, off_with_cws_elide_0_and_in_audit_mode) {
  for (const bool audit : {false, true}) {
    cws::runtime_config c = config(4, cws::test::four_cores);
    cws::schedulers::knobs_of(c).replay.elide = audit;  // audit mode alone must turn it off
    c.audit = audit;
    cws::runtime rt(c);
    const st::tree templ = record_with_steals(rt, "probe", [] { cws::test::fib(16); });
    cws::schedulers::store_of(rt).seed("fib", templ, "probe");
    auto& s = rt.schedule("fib", cws::policy::stows);
    std::uint64_t result = 0;
    rt.run(s, [&] { result = cws::test::fib(16); });
    EXPECT_EQ(result, cws::test::serial_fib(16));
    const auto& r = s.history().back();
    EXPECT_FALSE(r.diverged()) << r.reason;
    EXPECT_EQ(r.elided(), 0u) << (audit ? "audit" : "CWS_ELIDE=0");
  }
}

// A loop with 1-element leaves (the finest grain): the replay under elision
// computes the same values and spawns only along the template's paths.
TEST(elision, fine_grained_loop_matches_serial) {
  cws::runtime rt(config(4, cws::test::four_cores));
  constexpr std::size_t n = 4096;
  std::vector<std::uint64_t> out(n, 0);
  auto body = [&] {
    cws::parallel_for(
        std::size_t{0}, n, [&](std::size_t i) { out[i] = i * i + 7; }, 1);
  };
  const st::tree templ = record_with_steals(rt, "probe", body);
  auto& store = cws::schedulers::store_of(rt);
  store.seed("loop", templ, "probe");
  auto& s = rt.schedule("loop", cws::policy::stows);
  for (int it = 0; it < 5; ++it) {
    std::fill(out.begin(), out.end(), 0);
    rt.run(s, body);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], i * i + 7) << i;
    const auto& r = s.history().back();
    ASSERT_FALSE(r.diverged()) << r.reason;
    EXPECT_LE(r.tasks() - r.elided(), path_bound(templ));
    EXPECT_GT(r.elided(), n / 2);
  }
}

// parallel_for leaves a right half whose spawn a replay elides for later, as
// the deque would (parallel_for.hpp): each worker then runs its leaves from
// the lowest index up within every range it runs, so a worker's order
// descends at most twice per segment it ran (into a segment nested in a sync
// and back). Run as the call at the spawn, the right halves of a range ran
// before its left ones: 11 descents per 4 096-leaf segment (its 12 levels).
TEST(elision, a_worker_runs_its_elided_leaves_left_to_right) {
  cws::runtime rt(config(4, cws::test::four_cores));
  constexpr std::size_t n = 4096;
  std::vector<std::vector<std::size_t>> order(4);
  auto body = [&] {
    for (auto& o : order) o.clear();
    cws::parallel_for(
        std::size_t{0}, n, [&](std::size_t i) { order[cws::this_worker()].push_back(i); }, 1);
  };
  const st::tree templ = record_with_steals(rt, "probe", body);
  cws::schedulers::store_of(rt).seed("loop", templ, "probe");
  auto& s = rt.schedule("loop", cws::policy::stows);
  for (int it = 0; it < 5; ++it) {
    const cws::run_report& r = rt.run(s, body);
    ASSERT_FALSE(r.diverged()) << r.reason;
    EXPECT_GT(r.elided(), n / 2);
    SCOPED_TRACE("run " + std::to_string(it));
    cws::test::expect_left_to_right(order, r, n);
  }
}

// A leaf that throws in a replay whose right halves wait as elided calls:
// rt.run rethrows, no leaf ran twice (the halves still waiting are dropped),
// and the next run of the same template runs every leaf once.
TEST(elision, a_leaf_throwing_before_the_elided_halves_ran_reaches_rt_run) {
  cws::runtime rt(config(4, cws::test::four_cores));
  constexpr std::size_t n = 1024;
  std::vector<std::atomic<unsigned>> ran(n);
  std::size_t throw_at = n;  // none
  struct boom {};
  auto body = [&] {
    cws::parallel_for(
        std::size_t{0}, n,
        [&](std::size_t i) {
          if (i == throw_at) throw boom{};
          ran[i].fetch_add(1, std::memory_order_relaxed);
        },
        1);
  };
  const st::tree templ = record_with_steals(rt, "probe", body);
  cws::schedulers::store_of(rt).seed("loop", templ, "probe");
  auto& s = rt.schedule("loop", cws::policy::stows);
  throw_at = 0;  // the first leaf of the root's range: every right half of it still waits
  for (auto& r : ran) r.store(0);
  EXPECT_THROW(rt.run(s, body), boom);
  for (std::size_t i = 0; i < n; ++i) ASSERT_LE(ran[i].load(), 1u) << i;
  throw_at = n;
  for (auto& r : ran) r.store(0);
  const cws::run_report& r = rt.run(s, body);
  EXPECT_FALSE(r.diverged()) << r.reason;
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(ran[i].load(), 1u) << i;
}

// A template of fib(20) that hands the root task's sixth spawn, fib(9), to
// worker 1. fib(20)'s root task spawns ten children (fib(19), fib(17), ...,
// fib(1)) and fib(6)'s only three, so fib(6) provably cannot reach that steal.
// Built by hand: a recorded random run may steal only the first spawns, which
// fib(6) has too (the replay then fits, and the test would assert what random
// scheduling happened to do).
st::tree fib20_handing_its_sixth_spawn_to_worker_1() {
  return cws::test::root_handing_spawn_to(4, 5, 1, 1000, 100);  // rank 5 among the root task's spawns
}

// That template replayed on fib(6): its pedigrees name spawns that do not
// exist. The replay diverges, finishes correctly, drops the template (a
// diverged elided run's tree is no template), and the runs after it, on
// fib(17), are correct again.
TEST(elision, a_template_that_does_not_fit_diverges_and_recovers) {
  cws::runtime rt(config(4, cws::test::four_cores));
  auto& store = cws::schedulers::store_of(rt);
  {  // the template does fit the program it describes
    store.seed("fib20", fib20_handing_its_sixth_spawn_to_worker_1(), "hand-built");
    auto& fits = rt.schedule("fib20", cws::policy::stuws);
    std::uint64_t result = 0;
    rt.run(fits, [&] { result = cws::test::fib(20); });
    EXPECT_EQ(result, cws::test::serial_fib(20));
    const auto& r = fits.history().back();
    ASSERT_FALSE(r.diverged()) << r.reason;
    EXPECT_EQ(r.steals(), 1u);  // exactly the template's steal
    EXPECT_EQ(r.designated(), 1u);
  }
  store.seed("fib", fib20_handing_its_sixth_spawn_to_worker_1(), "hand-built");
  auto& s = rt.schedule("fib", cws::policy::stuws);
  bool diverged = false;
  for (int it = 0; it < 4; ++it) {
    std::uint64_t result = 0;
    rt.run(s, [&] { result = cws::test::fib(it == 0 ? 6 : 17); });
    EXPECT_EQ(result, cws::test::serial_fib(it == 0 ? 6 : 17));
    const auto& r = s.history().back();
    if (it == 0) {
      diverged = r.diverged();
      EXPECT_TRUE(r.diverged()) << "fib(6) cannot reach the steals of a fib(20) template";
      EXPECT_EQ(store.at("fib").templ, nullptr) << "a diverged elided run must not become the template";
    }
    if (it == 1) {
      EXPECT_EQ(r.ran_as, cws::ran_as::random_no_template);
    }
    if (it >= 2) {
      EXPECT_FALSE(r.diverged()) << r.reason;
    }
  }
  EXPECT_TRUE(diverged);
}

}  // namespace

namespace {

// An exception thrown inside an elided call reaches the program as one thrown
// by a spawned task does: rt.run rethrows it, and the runtime stays usable.
TEST(elision, an_exception_in_an_elided_call_reaches_rt_run) {
  cws::runtime rt(config(4, cws::test::four_cores));
  const st::tree templ = record_with_steals(rt, "probe", [] { cws::test::fib(18); });
  auto& store = cws::schedulers::store_of(rt);
  store.seed("fib", templ, "probe");
  auto& s = rt.schedule("fib", cws::policy::stows);
  struct boom {};
  std::function<std::uint64_t(unsigned)> fib_throwing = [&](unsigned n) -> std::uint64_t {
    if (n == 3) throw boom{};
    if (n < 2) return n;
    std::uint64_t a = 0;
    cws::scope joined;  // joins the child when fib_throwing(n - 2) throws too (the child writes `a`)
    cws::spawn([&, n] { a = fib_throwing(n - 1); });
    const std::uint64_t b = fib_throwing(n - 2);
    joined.wait();
    return a + b;
  };
  EXPECT_THROW(rt.run(s, [&] { (void)fib_throwing(18); }), boom);
  std::uint64_t result = 0;
  rt.run(s, [&] { result = cws::test::fib(18); });
  EXPECT_EQ(result, cws::test::serial_fib(18));
}

}  // namespace
