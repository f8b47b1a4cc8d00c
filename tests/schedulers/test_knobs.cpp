// The knobs of cws::schedulers (cws/schedulers/knobs.hpp): their defaults,
// each CWS_* variable of their table as the core's parser applies it, the
// one-line error of a bad value (raised before a runtime exists), the
// misspelling warning that knows their names once the schedulers are linked,
// and knobs set from code, in force in (and described by) the runtime
// created from the config.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cws/cws.hpp"
#include "support/env_guard.hpp"
#include "support/runtime_fixture.hpp"

namespace {

using cws::schedulers::knobs_of;
using cws::test::env_guard;

std::map<std::string, std::string> fake_env;

const char* fake_lookup(const char* name) {
  auto it = fake_env.find(name);
  return it == fake_env.end() ? nullptr : it->second.c_str();
}

cws::schedulers::knobs parse(std::map<std::string, std::string> env) {
  fake_env = std::move(env);
  return knobs_of(cws::parse_config({}, fake_lookup));
}

// A bad NAME=VALUE is one line naming the variable, the value and `expected`.
void expect_rejected(const std::string& name, const std::string& value, const std::string& expected) {
  SCOPED_TRACE(name + "=" + value);
  fake_env = {{name, value}};
  try {
    cws::parse_config({}, fake_lookup);
    ADD_FAILURE() << "accepted";
  } catch (const cws::error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg, name + "=\"" + value + "\": expected " + expected);
  }
}

TEST(SchedulerKnobs, DefaultsWhenNothingIsSet) {
  for (const cws::schedulers::knobs& k : {knobs_of(cws::runtime_config{}), parse({})}) {
    EXPECT_EQ(k.replay.evolve_bound, 5u);
    EXPECT_EQ(k.replay.evolve_slowdown_pct, 25u);
    EXPECT_EQ(k.replay.stall_ms, 50u);
    EXPECT_EQ(k.replay.grace_us, 200u);
    EXPECT_TRUE(k.replay.evolve_relocalize);
    EXPECT_EQ(k.replay.evolve_balance_pct, 10u);
    EXPECT_TRUE(k.replay.elide);
    EXPECT_EQ(k.replay.coarsen_tries, 4u);
    EXPECT_EQ(k.replay.template_tries, 0u);  // auto
    EXPECT_EQ(k.replay.template_tries_on(1), 5u);
    EXPECT_EQ(k.replay.template_tries_on(2), 1u);
    EXPECT_EQ(k.replay.template_tries_on(8), 1u);
    EXPECT_TRUE(k.hinted.het);
    EXPECT_EQ(k.hinted.het_limit, 2u);
    EXPECT_FALSE(k.hinted.relaxed);
  }
}

TEST(SchedulerKnobs, EachVariableSetsItsKnob) {
  EXPECT_EQ(parse({{"CWS_EVOLVE_BOUND", "3"}}).replay.evolve_bound, 3u);
  EXPECT_EQ(parse({{"CWS_EVOLVE_SLOWDOWN", "10"}}).replay.evolve_slowdown_pct, 10u);
  EXPECT_EQ(parse({{"CWS_EVOLVE_SLOWDOWN", "0"}}).replay.evolve_slowdown_pct, 0u);  // never back to relws
  EXPECT_EQ(parse({{"CWS_STALL_MS", "200"}}).replay.stall_ms, 200u);
  EXPECT_EQ(parse({{"CWS_REPLAY_GRACE_US", "350"}}).replay.grace_us, 350u);
  EXPECT_EQ(parse({{"CWS_REPLAY_GRACE_US", "0"}}).replay.grace_us, 0u);  // wait for the thief
  EXPECT_FALSE(parse({{"CWS_EVOLVE_RELOCALIZE", "off"}}).replay.evolve_relocalize);
  EXPECT_EQ(parse({{"CWS_EVOLVE_BALANCE", "0"}}).replay.evolve_balance_pct, 0u);
  EXPECT_FALSE(parse({{"CWS_ELIDE", "0"}}).replay.elide);
  EXPECT_EQ(parse({{"CWS_COARSEN_TRIES", "9"}}).replay.coarsen_tries, 9u);
  EXPECT_EQ(parse({{"CWS_TEMPLATE_TRIES", "5"}}).replay.template_tries, 5u);
  EXPECT_EQ(parse({{"CWS_TEMPLATE_TRIES", "3"}}).replay.template_tries_on(4), 3u);  // set: on every machine
  EXPECT_EQ(parse({{"CWS_TEMPLATE_TRIES", "1"}}).replay.template_tries_on(1), 1u);
  EXPECT_EQ(parse({{"CWS_TEMPLATE_TRIES", "0"}}).replay.template_tries, 0u);
  EXPECT_EQ(parse({{"CWS_REPLAY_ALONE_US", "50"}}).replay.alone_us, 50u);
  EXPECT_EQ(parse({{"CWS_REPLAY_ALONE_US", "0"}}).replay.alone_us, 0u);  // never alone
  EXPECT_EQ(parse({{"CWS_REPLAY_ALONE_US", "0"}}).replay.alone_us_on(1), 0u);
  EXPECT_EQ(parse({{"CWS_REPLAY_ALONE_US", "50"}}).replay.alone_us_on(4), 50u);  // set: on every machine
  EXPECT_EQ(parse({}).replay.alone_us_on(1), 20u);                              // auto: 20 us on one node
  EXPECT_EQ(parse({}).replay.alone_us_on(2), 0u);                               // off with several
  EXPECT_FALSE(parse({{"CWS_HINTED_HET", "false"}}).hinted.het);
  EXPECT_EQ(parse({{"CWS_HINTED_HET_LIMIT", "0"}}).hinted.het_limit, 0u);
  EXPECT_TRUE(parse({{"CWS_HINTED_RELAXED", "Yes"}}).hinted.relaxed);
  // An empty variable counts as unset, as for the core's.
  EXPECT_EQ(parse({{"CWS_EVOLVE_BOUND", ""}}).replay.evolve_bound, 5u);
}

TEST(SchedulerKnobs, BadValuesAreOneLineNamingWhatIsAccepted) {
  for (const char* bad : {"0", "1001", "x", "-2", "5 "})
    expect_rejected("CWS_EVOLVE_BOUND", bad, "an integer (1..1000)");
  for (const char* bad : {"1001", "25%", "-1"})
    expect_rejected("CWS_EVOLVE_SLOWDOWN", bad, "a percentage (1..1000), or 0 for never");
  for (const char* bad : {"0", "60001", "1s"}) expect_rejected("CWS_STALL_MS", bad, "milliseconds (1..60000)");
  for (const char* bad : {"-1", "10000001", "2ms"})
    expect_rejected("CWS_REPLAY_GRACE_US", bad, "microseconds (1..10000000), or 0 to wait for the thief");
  expect_rejected("CWS_ELIDE", "maybe", "1/0, true/false, yes/no or on/off");
  expect_rejected("CWS_COARSEN_TRIES", "65", "an integer (1..64)");
  for (const char* bad : {"-1", "1001"})
    expect_rejected("CWS_TEMPLATE_TRIES", bad, "an integer (0..1000; 1 = adopt the first run, 0 = auto)");
  expect_rejected("CWS_HINTED_HET_LIMIT", "many", "a task count (0..1000000)");
  for (const char* bad : {"-1", "1000001", "20us"})
    expect_rejected("CWS_REPLAY_ALONE_US", bad, "microseconds (1..1000000), or 0 to never run a replay alone");
}

// The runtime reads the environment when it is created: a bad value stops it
// there, not at the first phase of some replaying schedule.
TEST(SchedulerKnobs, BadEnvironmentValueFailsTheRuntimeCreation) {
  env_guard bad("CWS_STALL_MS", "0");
  EXPECT_THROW(cws::runtime_config::from_env(), cws::error);
  EXPECT_THROW(cws::runtime rt, cws::error);
}

TEST(SchedulerKnobs, MisspellingWarningKnowsTheSchedulersNames) {
  const std::vector<std::string_view> known = cws::known_variables();
  for (const char* name : {"CWS_EVOLVE_BOUND", "CWS_EVOLVE_SLOWDOWN", "CWS_STALL_MS", "CWS_REPLAY_GRACE_US",
                           "CWS_EVOLVE_RELOCALIZE", "CWS_EVOLVE_BALANCE", "CWS_ELIDE", "CWS_COARSEN_TRIES", "CWS_REPLAY_ALONE_US",
                           "CWS_HINTED_HET", "CWS_HINTED_HET_LIMIT", "CWS_HINTED_RELAXED"})
    EXPECT_NE(std::find(known.begin(), known.end(), name), known.end()) << name;
  EXPECT_TRUE(cws::unknown_variable_warnings(known).empty());
  const auto w = cws::unknown_variable_warnings({"CWS_EVOLVE_BOUNDS", "CWS_HINTED_RELAXD"});
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], "cws: warning: CWS_EVOLVE_BOUNDS is not a cws variable (did you mean CWS_EVOLVE_BOUND?)");
  EXPECT_EQ(w[1], "cws: warning: CWS_HINTED_RELAXD is not a cws variable (did you mean CWS_HINTED_RELAXED?)");
}

// Knobs set from code travel with the config: the runtime created from it
// has them from its first phase. Set after from_env, they override the
// environment; a base given to from_env keeps those the environment leaves unset.
TEST(SchedulerKnobs, SetFromCodeInForceInTheRuntime) {
  env_guard bound("CWS_EVOLVE_BOUND", "7");
  env_guard tries("CWS_COARSEN_TRIES", nullptr);
  cws::runtime_config base = cws::test::config(2);
  knobs_of(base).replay.coarsen_tries = 2;
  cws::runtime_config cfg = cws::runtime_config::from_env(base);
  EXPECT_EQ(knobs_of(cfg).replay.evolve_bound, 7u);
  EXPECT_EQ(knobs_of(cfg).replay.coarsen_tries, 2u);
  knobs_of(cfg).replay.evolve_bound = 3;
  knobs_of(cfg).hinted.relaxed = true;
  cws::runtime rt(cfg);
  EXPECT_EQ(knobs_of(rt.config()).replay.evolve_bound, 3u);
  EXPECT_EQ(knobs_of(rt.config()).replay.coarsen_tries, 2u);
  EXPECT_TRUE(knobs_of(rt.config()).hinted.relaxed);
  // describe() shows the knobs in force.
  const std::string d = rt.describe();
  EXPECT_NE(d.find("\nreplay:   evolve bound 3, "), std::string::npos) << d;
  EXPECT_NE(d.find(", coarsen tries 2, template tries 1, alone off\n"), std::string::npos) << d;  // the fixture's
  cws::runtime_config plain;
  plain.workers = 1;
  const std::string auto_tries = cws::runtime(plain).describe();
  EXPECT_NE(auto_tries.find(", template tries auto (5 on one NUMA node, else 1), alone auto (timed up to 20 us on one NUMA node, else off)\n"), std::string::npos) << auto_tries;
  EXPECT_NE(d.find("\nhinted:   het on (limit 2), relaxed on\n"), std::string::npos) << d;
}

}  // namespace
