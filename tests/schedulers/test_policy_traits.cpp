// What each registered policy is (cws::policy_traits), answered by the
// registry from the table its component registered, and what happens to a
// name no component registered.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cws/cws.hpp"
#include "support/error_of.hpp"
#include "support/runtime_fixture.hpp"

namespace {

struct expected_policy {
  const char* name;
  cws::policy_traits traits;
};

// Written out here, not read from the schedulers' table: the test says what
// each policy is, the registry must agree.
const expected_policy expected[] = {
    {"random", {}},
    {"stows", {.replays = true, .elides = true}},
    {"stuws", {.replays = true, .elides = true}},
    {"relws", {.replays = true}},
    {"evolve", {.replays = true, .evolves = true, .elides = true}},
    {"coarsen", {.replays = true, .evolves = true, .elides = true}},
    {"evolve-hinted", {.replays = true, .evolves = true, .routes_hints = true, .elides = true}},
    {"user", {}},  // runs its program's designations: no template to replay or follow
    {"hinted", {.routes_hints = true}},
    {"hinted-hpt", {.routes_hints = true}},
};

std::string describe(const cws::policy_traits& t) {
  return "replays=" + std::to_string(t.replays) + " evolves=" + std::to_string(t.evolves) +
         " routes_hints=" + std::to_string(t.routes_hints) + " elides=" + std::to_string(t.elides);
}

TEST(policy_traits, every_registered_name_answers_the_traits_of_its_policy) {
  cws::runtime rt(cws::test::config(2));  // the components register their policies with the first runtime
  const std::vector<std::string> names = cws::policy_registry::names();
  ASSERT_EQ(names.size(), std::size(expected));
  for (const expected_policy& e : expected) {
    ASSERT_NE(std::find(names.begin(), names.end(), e.name), names.end()) << e.name << " is not registered";
    const cws::policy_traits got = cws::policy_registry::traits(e.name);
    EXPECT_EQ(got, e.traits) << e.name << ": " << describe(got) << ", expected " << describe(e.traits);
  }
}

TEST(policy_traits, the_registry_answers_before_any_runtime_registered_the_components) {
  // Run alone (--gtest_filter), no runtime was made before: traits()
  // registers the components itself, as a program asking that early needs.
  EXPECT_TRUE(cws::policy_registry::traits("evolve").evolves);
  EXPECT_FALSE(cws::policy_registry::traits("random").replays);
}

TEST(policy_traits, an_unknown_name_is_rejected_with_the_valid_names) {
  const std::string msg = cws::test::error_of([] { (void)cws::policy_registry::traits("evolv"); });
  EXPECT_EQ(msg,
            "unknown policy 'evolv' (valid: coarsen, evolve, evolve-hinted, hinted, hinted-hpt, random, relws, stows, "
            "stuws, user)");
}

TEST(policy_traits, an_unknown_policy_makes_no_schedule) {
  cws::runtime rt(cws::test::config(2));
  const std::string msg = cws::test::error_of([&] { rt.schedule("step", "evolv"); });
  EXPECT_EQ(msg.rfind("unknown policy 'evolv' (valid: ", 0), 0u) << msg;
  EXPECT_EQ(cws::schedulers::store_of(rt).find("step"), nullptr) << "a rejected policy left replay state behind";
  // The name is still free for a policy that exists.
  EXPECT_EQ(rt.schedule("step", cws::policy::evolve).policy_name(), cws::policy::evolve);
}

TEST(policy_traits, a_replaying_schedule_has_its_state_from_the_moment_it_is_made) {
  cws::runtime rt(cws::test::config(2));
  const auto& store = cws::schedulers::store_of(rt);
  for (const expected_policy& e : expected) {
    const std::string name = std::string("s-") + e.name;
    const cws::schedule& made = rt.schedule(name, e.name);
    EXPECT_TRUE(made.history().empty()) << e.name;
    const cws::schedulers::schedule_state* s = store.find(name);
    // The replaying policies (and user, which keeps its runs as templates)
    // bind their schedule's state when attached; random and hinted keep none.
    const bool keeps_state = e.traits.replays || std::string(e.name) == "user";
    EXPECT_EQ(s != nullptr, keeps_state) << e.name;
    if (s == nullptr) continue;
    EXPECT_EQ(s->name, name);
    EXPECT_FALSE(s->converged) << e.name;
  }
}

TEST(policy_traits, each_kind_runs_and_reports_under_its_own_name) {
  cws::runtime rt(cws::test::config(2));
  for (const expected_policy& e : expected) {
    cws::schedule& s = rt.schedule(std::string("run-") + e.name, e.name);
    std::uint64_t result = 0;
    for (int run = 0; run < 2; ++run) rt.run(s, [&] { result = cws::test::fib(12); });
    EXPECT_EQ(result, cws::test::serial_fib(12)) << e.name;
    EXPECT_EQ(s.policy_name(), e.name);
    ASSERT_EQ(s.history().size(), 2u) << e.name;
    EXPECT_EQ(s.history().back().phase.policy, e.name);
  }
}

}  // namespace
