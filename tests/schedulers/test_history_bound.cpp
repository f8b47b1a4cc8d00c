// A schedule's bounded history (runtime_config::history = K): every
// policy's schedule keeps the reports of its last K runs, and the recorder the last K
// runs of the schedule, while what a replay needs survives: the template
// (never re-copied while it is replayed), the followed run of a schedule
// that follows another, evolve's state. K = 1 works for every policy.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "schedulers/replay_support.hpp"

namespace {

namespace st = cws::steal_tree;
namespace cs = cws::schedulers;

cws::runtime_config with_history(unsigned k) {
  cws::runtime_config c = cws::test::config(2);
  c.history = k;
  cs::knobs_of(c).replay.evolve_slowdown_pct = 0;  // evolve stays on its converged template (no timing noise)
  return c;
}

// One phase of schedule `s`: designations for `user`, plain fib otherwise.
void run_once(cws::runtime& rt, cws::schedule& s) {
  if (s.policy_name() == cws::policy::user)
    rt.run(s, [] {
      cws::parallel_for_owned(
          0, 64, [](std::size_t) {}, 8);
    });
  else
    rt.run(s, [] { (void)cws::test::fib(12); });
}

std::vector<std::uint64_t> recorded(const st::recorder& rec, const std::string& schedule) {
  std::vector<std::uint64_t> out;
  for (const st::phase_record& r : rec.phases())
    if (r.schedule == schedule) out.push_back(r.iteration);
  return out;
}

std::vector<std::uint64_t> reported(const cws::schedule& s) {
  std::vector<std::uint64_t> out;
  for (const cws::run_report& r : s.history()) out.push_back(r.phase.iteration);
  return out;
}

// The schedule a policy name stands for: "follow" is a stows schedule
// replaying "init", a random schedule that ran once before it.
cws::schedule& schedule_for(cws::runtime& rt, const std::string& policy) {
  if (policy != "follow") return rt.schedule(policy, policy);
  run_once(rt, rt.schedule("init"));
  return rt.schedule("follow", cws::policy::stows).follow("init");
}

const std::vector<std::string> all_policies{"stows", "stuws", "relws", "evolve", "user", "follow"};

TEST(history_bound, every_policy_keeps_its_last_k_runs) {
  for (unsigned k : {1u, 4u}) {
    for (const std::string& policy : all_policies) {
      SCOPED_TRACE(policy + ", history " + std::to_string(k));
      cws::runtime rt(with_history(k));
      cws::schedule& s = schedule_for(rt, policy);
      const std::uint64_t runs = 3 * k + 5;
      for (std::uint64_t i = 0; i < runs; ++i) run_once(rt, s);
      std::vector<std::uint64_t> last;
      for (std::uint64_t i = runs - k; i < runs; ++i) last.push_back(i);
      const cs::schedule_state& state = cs::store_of(rt).at(s.name());
      EXPECT_EQ(reported(s), last);
      EXPECT_EQ(s.history().capacity(), k);
      EXPECT_EQ(s.history().dropped(), runs - k);
      EXPECT_EQ(recorded(*st::recorder_of(rt), s.name()), last);
      // Replay kept working throughout: the latest run replayed a template.
      const cws::run_report& r = s.history().back();
      EXPECT_FALSE(r.diverged()) << r.reason;
      EXPECT_TRUE(r.ran_as != cws::ran_as::random_no_template && r.ran_as != cws::ran_as::random_diverged) << r.label();
      ASSERT_TRUE(state.templ || state.followed);
    }
  }
}

// A template the policy keeps replaying is the same object run after run:
// not re-copied nor re-checked per phase.
TEST(history_bound, a_kept_template_is_not_copied_per_phase) {
  cws::runtime rt(with_history(2));
  auto& s = rt.schedule("s", cws::policy::stows);
  run_once(rt, s);  // records the template
  const auto& state = cs::store_of(rt).at("s");
  const st::tree* templ = state.templ.get();
  ASSERT_NE(templ, nullptr);
  for (int i = 0; i < 20; ++i) {
    run_once(rt, s);
    ASSERT_EQ(state.templ.get(), templ) << "run " << i;
    EXPECT_EQ(s.history().back().ran_as, cws::ran_as::stows);
  }
}

// The followed run survives the recorder's window and even clear(): a
// schedule that follows one which ran once, long ago, still replays it.
TEST(history_bound, a_followed_run_from_long_ago_still_replays) {
  cws::runtime rt(with_history(2));
  auto& init = rt.schedule("init");
  st::tree first;
  for (int attempt = 0; attempt < 200; ++attempt) {  // a run with steals makes the check meaningful
    rt.run(init, [] { (void)cws::test::fib(14); });
    first = st::recorder_of(rt)->latest("init")->steals;
    if (first.segments.size() > 1) break;
  }
  const std::uint64_t init_run = init.iterations() - 1;
  auto& noise = rt.schedule("noise");
  for (int i = 0; i < 100; ++i) run_once(rt, noise);  // many runs of others since
  auto& copy = rt.schedule("copy", cws::policy::stows).follow("init");
  const std::string from = "follows 'init': its run #" + std::to_string(init_run);
  for (int i = 0; i < 10; ++i) {
    if (i == 4) st::recorder_of(rt)->clear();  // the followed run leaves the recorder
    rt.run(copy, [] { (void)cws::test::fib(14); });
    const cws::run_report& r = copy.history().back();
    EXPECT_EQ(r.ran_as, cws::ran_as::stows) << "run " << i;
    EXPECT_EQ(r.template_from, from);
    EXPECT_FALSE(r.diverged()) << r.reason;
    cws::test::expect_same_steal_points(first, st::recorder_of(rt)->latest("copy")->steals);
  }
  EXPECT_EQ(copy.history().size(), 2u);
}

// evolve's convergence, template and settling state are kept as such, not in
// the report window: with K = 1 it converges, then replays its template.
TEST(history_bound, evolve_state_survives_a_window_of_one) {
  cws::runtime rt(with_history(1));
  auto& s = rt.schedule("e", cws::policy::evolve);
  const auto& state = [&]() -> const cs::schedule_state& {
    run_once(rt, s);
    return cs::store_of(rt).at("e");
  }();
  for (int i = 0; i < 40 && !state.converged; ++i) run_once(rt, s);
  ASSERT_TRUE(state.converged);
  const std::uint64_t converged_at = state.converged_at;
  const st::tree* templ = state.templ.get();
  for (int i = 0; i < 20; ++i) {
    run_once(rt, s);
    // evolve's strict stage: stows, or stuws when it converged on a planned template (docs/replay.md).
    const cws::ran_as as = s.history().back().ran_as;
    EXPECT_TRUE(as == cws::ran_as::stows || as == cws::ran_as::stuws) << s.history().back().template_from;
    EXPECT_FALSE(s.history().back().diverged()) << s.history().back().reason;
  }
  EXPECT_TRUE(state.converged);
  EXPECT_EQ(state.converged_at, converged_at);
  EXPECT_EQ(state.templ.get(), templ);
  EXPECT_EQ(s.history().size(), 1u);
}

}  // namespace
