// The schedule store and the policies' contract with the rest of the runtime:
// names, refusals, seeding from trace files.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "schedulers/replay_support.hpp"
#include "support/error_of.hpp"

namespace {

namespace st = cws::steal_tree;

TEST(policies, are_registered_by_name) {
  cws::runtime rt(cws::test::config(1));  // cws::cws registers its policies when the first runtime is created
  const auto names = cws::policy_registry::names();
  for (std::string_view n :
       {"random", "stows", "stuws", "relws", "evolve", "user", "hinted", "hinted-hpt", "evolve-hinted"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  const std::string e = cws::test::error_of([] { cws::policy_registry::create("stowz"); });
  EXPECT_EQ(
      e,
      "unknown policy 'stowz' (valid: coarsen, evolve, evolve-hinted, hinted, hinted-hpt, random, relws, stows, stuws, "
      "user)");
}

TEST(policies, refuse_to_run_without_recording) {
  cws::runtime_config cfg = cws::test::config(2);
  cfg.record = false;
  cws::runtime rt(cfg);
  auto& s = rt.schedule("x", cws::policy::stows);
  const std::string e = cws::test::error_of([&] { rt.run(s, [] {}); });
  EXPECT_EQ(e,
            "schedule 'x': policy 'stows' replays recorded steal trees, but recording is off (CWS_RECORD=0 or "
            "runtime_config::record = false)");
  rt.run([] {});  // the runtime is still usable
}

TEST(store, replans_a_seeded_template_for_another_worker_count_and_refuses_a_followed_one) {
  st::tree four;
  {
    cws::runtime rt(cws::test::config(4, cws::test::four_cores));
    rt.run(rt.schedule("fib"), [] { cws::test::fib(16); });
    four = st::recorder_of(rt)->latest("fib")->steals;
  }
  cws::runtime rt(cws::test::config(2));
  auto& store = cws::schedulers::store_of(rt);
  // Seeded (a file, a program's own tree): re-planned for 2 workers, the steals by workers 2 and 3 dropped.
  store.seed("fib", four, "test");
  ASSERT_NE(store.at("fib").templ, nullptr);
  EXPECT_EQ(store.at("fib").templ->workers, 2u);
  for (const st::segment& g : store.at("fib").templ->segments) EXPECT_LT(g.worker, 2u);
  EXPECT_EQ(store.at("fib").template_from.rfind("test, re-planned from 4 to 2 workers (", 0), 0u)
      << store.at("fib").template_from;
  std::uint64_t result = 0;
  const cws::run_report& r = rt.run(rt.schedule("fib", cws::policy::stows), [&] { result = cws::test::fib(16); });
  EXPECT_EQ(result, cws::test::serial_fib(16));
  EXPECT_FALSE(r.diverged()) << r.reason;
  // Sneaked in through a followed schedule: refused when the phase starts, before it runs.
  auto& other = rt.schedule("other", cws::policy::random);
  (void)other;
  auto& follower = rt.schedule("follower", cws::policy::stows);
  cws::schedulers::store_of(rt).state("fourway").templ = std::make_shared<const st::tree>(four);
  cws::schedulers::store_of(rt).state("fourway").template_from = "a 4-worker run";
  follower.follow("fourway");
  bool ran = false;
  const std::string e = cws::test::error_of([&] { rt.run(follower, [&] { ran = true; }); });
  EXPECT_FALSE(ran);
  EXPECT_EQ(e,
            "schedule 'follower' (policy stows): refusing to replay its template (follows 'fourway': a 4-worker "
            "run): recorded for 4 workers, this runtime has 2 (set CWS_WORKERS=4 to replay it)");
  EXPECT_EQ(follower.iterations(), 0u);
}

// A converged schedule saved with its trace seeds the next program run: with
// its latest run that stole (a random run whose helper never came, as on a
// loaded machine under ASan, is passed over), or its latest when none did.
TEST(store, load_traces_seeds_templates_and_stows_replays_them) {
  const std::string path = (std::filesystem::temp_directory_path() / "cws_store_seed.cwst").string();
  st::tree recorded;
  int seeding_run = -1;
  {
    cws::runtime rt(cws::test::audited(2));
    auto& s = rt.schedule("fib", cws::policy::random);
    for (int i = 0; i < 3; ++i) {
      rt.run(s, [] { cws::test::fib(17); });
      const st::tree& run = st::recorder_of(rt)->latest("fib")->steals;
      if (run.segments.size() > 1 || seeding_run < 0 || recorded.segments.size() == 1) {
        recorded = run;
        seeding_run = i;
      }
    }
    rt.save_traces(path);
  }
  cws::runtime rt(cws::test::audited(2));
  rt.load_traces(path);
  const auto& state = cws::schedulers::store_of(rt).at("fib");
  ASSERT_TRUE(state.templ);
  EXPECT_EQ(*state.templ, recorded);
  EXPECT_EQ(state.template_from, "file " + path + ", run #" + std::to_string(seeding_run));
  auto& s = rt.schedule("fib", cws::policy::stows);
  std::uint64_t result = 0;
  rt.run(s, [&] { result = cws::test::fib(17); });
  EXPECT_EQ(result, cws::test::serial_fib(17));
  const auto& r = s.history().back();
  EXPECT_EQ(r.ran_as, cws::ran_as::stows);
  EXPECT_FALSE(r.diverged()) << r.reason;
  cws::test::expect_same_task_mapping(recorded, st::recorder_of(rt)->latest("fib")->steals);
  std::filesystem::remove(path);
}

TEST(store, unknown_schedule_is_a_clear_error) {
  cws::runtime rt(cws::test::config(2));
  EXPECT_EQ(cws::test::error_of([&] { cws::schedulers::store_of(rt).at("nope"); }),
            "schedule 'nope' has no replay state (it never ran under a replaying policy nor was seeded)");
}

}  // namespace
