// runtime_config parsing: every CWS_* variable with good and bad values.
// parse_config takes a plain function pointer, so the fake environment is a
// file-level map that each test fills.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cws/config.hpp"
#include "cws/error.hpp"
#include "support/env_guard.hpp"

namespace {

std::map<std::string, std::string> fake_env;

const char* fake_lookup(const char* name) {
  auto it = fake_env.find(name);
  return it == fake_env.end() ? nullptr : it->second.c_str();
}

cws::runtime_config parse(std::map<std::string, std::string> env, cws::runtime_config base = {}) {
  fake_env = std::move(env);
  return cws::parse_config(base, fake_lookup);
}

// The message thrown for NAME=VALUE; fails the test when nothing is thrown.
std::string error_for(const std::string& name, const std::string& value) {
  fake_env = {{name, value}};
  try {
    cws::parse_config({}, fake_lookup);
  } catch (const cws::error& e) {
    return e.what();
  }
  ADD_FAILURE() << name << "=\"" << value << "\" was accepted";
  return {};
}

// Every rejected value names the variable and the offending value, on one line.
void expect_rejected(const std::string& name, const std::string& value, const std::string& expected) {
  SCOPED_TRACE(name + "=" + value);
  std::string msg = error_for(name, value);
  EXPECT_EQ(msg.rfind(name + "=\"", 0), 0u) << msg;
  EXPECT_NE(msg.find(expected), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST(Config, DefaultsWhenNothingIsSet) {
  auto c = parse({});
  EXPECT_EQ(c.workers, 0u);
  EXPECT_FALSE(c.topology.has_value());
  EXPECT_TRUE(c.pin);
  EXPECT_EQ(c.idle, cws::idle_mode::adaptive);
  EXPECT_EQ(c.max_nesting, 16u);
  EXPECT_EQ(c.seed, 0x5eedu);
  EXPECT_TRUE(c.record);
  EXPECT_FALSE(c.audit);
}

TEST(Config, BaseSuppliesDefaultsAndVariablesOverrideThem) {
  cws::runtime_config base;
  base.workers = 3;
  base.pin = false;
  base.seed = 42;
  auto c = parse({{"CWS_WORKERS", "5"}}, base);
  EXPECT_EQ(c.workers, 5u);
  EXPECT_FALSE(c.pin);
  EXPECT_EQ(c.seed, 42u);
}

TEST(Config, EmptyVariablesCountAsUnset) {
  cws::runtime_config base;
  base.workers = 7;
  base.topology = "pack:2 core:1";
  base.record = false;
  auto c = parse({{"CWS_WORKERS", ""},
                  {"CWS_TOPOLOGY", ""},
                  {"CWS_PIN", ""},
                  {"CWS_IDLE", ""},
                  {"CWS_NESTING", ""},
                  {"CWS_SEED", ""},
                  {"CWS_RECORD", ""},
                  {"CWS_AUDIT", ""}},
                 base);
  EXPECT_EQ(c.workers, 7u);
  EXPECT_EQ(c.topology, "pack:2 core:1");
  EXPECT_TRUE(c.pin);
  EXPECT_EQ(c.idle, cws::idle_mode::adaptive);
  EXPECT_EQ(c.max_nesting, 16u);
  EXPECT_EQ(c.seed, 0x5eedu);
  EXPECT_FALSE(c.record);
  EXPECT_FALSE(c.audit);
}

TEST(Config, Workers) {
  EXPECT_EQ(parse({{"CWS_WORKERS", "1"}}).workers, 1u);
  EXPECT_EQ(parse({{"CWS_WORKERS", "8"}}).workers, 8u);
  EXPECT_EQ(parse({{"CWS_WORKERS", "4096"}}).workers, 4096u);
  const std::string want = "expected a positive integer (1..4096)";
  EXPECT_EQ(error_for("CWS_WORKERS", "abc"), "CWS_WORKERS=\"abc\": " + want);
  for (const char* bad : {"0", "4097", "-1", "+4", " 4", "4 ", "4x", "1e3", "0x10", "99999999999999999999999"})
    expect_rejected("CWS_WORKERS", bad, want);
}

TEST(Config, Topology) {
  EXPECT_EQ(parse({{"CWS_TOPOLOGY", "pack:4 numa:1 core:2 pu:1"}}).topology, "pack:4 numa:1 core:2 pu:1");
  // Stored as-is: hwloc validates it when the topology is built.
  EXPECT_EQ(parse({{"CWS_TOPOLOGY", "  not hwloc "}}).topology, "  not hwloc ");
}

TEST(Config, Pin) {
  for (const char* yes : {"1", "true", "yes", "on", "TRUE", "On"}) EXPECT_TRUE(parse({{"CWS_PIN", yes}}).pin) << yes;
  cws::runtime_config pinned;
  pinned.pin = true;
  for (const char* no : {"0", "false", "no", "off", "OFF", "No"})
    EXPECT_FALSE(parse({{"CWS_PIN", no}}, pinned).pin) << no;
  for (const char* bad : {"2", "maybe", "y", "truee", " 1", "-1"})
    expect_rejected("CWS_PIN", bad, "expected 1/0, true/false, yes/no or on/off");
}

// CWS_RECORD and CWS_AUDIT take the same spellings as CWS_PIN.
TEST(Config, RecordAndAudit) {
  cws::runtime_config base;
  EXPECT_FALSE(parse({{"CWS_RECORD", "0"}}, base).record);
  EXPECT_FALSE(parse({{"CWS_RECORD", "off"}}, base).record);
  EXPECT_TRUE(parse({{"CWS_AUDIT", "1"}}, base).audit);
  EXPECT_TRUE(parse({{"CWS_AUDIT", "yes"}}, base).audit);
  base.record = false;
  base.audit = true;
  EXPECT_TRUE(parse({{"CWS_RECORD", "true"}}, base).record);
  EXPECT_FALSE(parse({{"CWS_AUDIT", "no"}}, base).audit);
  expect_rejected("CWS_RECORD", "2", "expected 1/0, true/false, yes/no or on/off");
  expect_rejected("CWS_AUDIT", "full", "expected 1/0, true/false, yes/no or on/off");
}

TEST(Config, Idle) {
  EXPECT_EQ(parse({{"CWS_IDLE", "spin"}}).idle, cws::idle_mode::spin);
  EXPECT_EQ(parse({{"CWS_IDLE", "sleep"}}).idle, cws::idle_mode::sleep);
  cws::runtime_config base;
  base.idle = cws::idle_mode::spin;
  EXPECT_EQ(parse({{"CWS_IDLE", "adaptive"}}, base).idle, cws::idle_mode::adaptive);
  for (const char* bad : {"fast", "spinning", "sleep ", "0"})
    expect_rejected("CWS_IDLE", bad, "expected adaptive, spin or sleep");
}

TEST(Config, IdleModeNames) {
  EXPECT_EQ(cws::to_string(cws::idle_mode::adaptive), "adaptive");
  EXPECT_EQ(cws::to_string(cws::idle_mode::spin), "spin");
  EXPECT_EQ(cws::to_string(cws::idle_mode::sleep), "sleep");
}

TEST(Config, Nesting) {
  EXPECT_EQ(parse({{"CWS_NESTING", "0"}}).max_nesting, 0u);
  EXPECT_EQ(parse({{"CWS_NESTING", "3"}}).max_nesting, 3u);
  EXPECT_EQ(parse({{"CWS_NESTING", "1024"}}).max_nesting, 1024u);
  for (const char* bad : {"1025", "-1", "x", "4.5", "4294967296"})
    expect_rejected("CWS_NESTING", bad, "expected an integer (0..1024)");
}

TEST(Config, Seed) {
  EXPECT_EQ(parse({{"CWS_SEED", "0"}}).seed, 0u);
  EXPECT_EQ(parse({{"CWS_SEED", "12345"}}).seed, 12345u);
  EXPECT_EQ(parse({{"CWS_SEED", "18446744073709551615"}}).seed, 18446744073709551615ull);
  EXPECT_EQ(parse({{"CWS_SEED", "0xDEADbeef"}}).seed, 0xdeadbeefull);
  EXPECT_EQ(parse({{"CWS_SEED", "0X10"}}).seed, 16u);
  EXPECT_EQ(parse({{"CWS_SEED", "0xffffffffffffffff"}}).seed, ~0ull);
  for (const char* bad :
       {"18446744073709551616", "0x10000000000000000", "-1", "0x", "0x-1", "0x+1", "abc", "12a", "0xg", " 1"})
    expect_rejected("CWS_SEED", bad, "expected an unsigned 64-bit integer (decimal or 0x hex)");
}

TEST(Config, ErrorMessageStaysOneLineAndShort) {
  std::string msg = error_for("CWS_IDLE", "spin\nsleep\"" + std::string(200, 'z'));
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_NE(msg.find("spin\\x0asleep\\\""), std::string::npos) << msg;
  EXPECT_LT(msg.size(), 160u) << msg;
}

using cws::test::env_guard;

TEST(Config, FromEnvReadsTheProcessEnvironment) {
  env_guard workers("CWS_WORKERS", "6");
  env_guard idle("CWS_IDLE", "sleep");
  env_guard seed("CWS_SEED", "0x7");
  auto c = cws::runtime_config::from_env();
  EXPECT_EQ(c.workers, 6u);
  EXPECT_EQ(c.idle, cws::idle_mode::sleep);
  EXPECT_EQ(c.seed, 7u);

  cws::runtime_config base;
  base.max_nesting = 2;
  auto d = cws::runtime_config::from_env(base);
  EXPECT_EQ(d.workers, 6u);
  EXPECT_EQ(d.max_nesting, 2u);

  env_guard bad("CWS_WORKERS", "none");
  EXPECT_THROW(cws::runtime_config::from_env(), cws::error);
}

}  // namespace

// Phase fork/join and long-run knobs.
TEST(Config, PhaseKnobs) {
  const cws::runtime_config d;
  EXPECT_EQ(d.blocktime_us, 50u);
  EXPECT_EQ(d.pin_caller, cws::caller_pinning::sticky);
  EXPECT_EQ(d.stack_kib, 8192u);
  EXPECT_EQ(d.history, 4u);
  EXPECT_FALSE(d.trace_path.has_value());
  EXPECT_EQ(parse({{"CWS_BLOCKTIME", "0"}}).blocktime_us, 0u);  // sleep at once
  EXPECT_EQ(parse({{"CWS_BLOCKTIME", "1000"}}).blocktime_us, 1000u);
  EXPECT_EQ(parse({{"CWS_PIN_CALLER", "Phase"}}).pin_caller, cws::caller_pinning::phase);
  EXPECT_EQ(parse({{"CWS_PIN_CALLER", "off"}}).pin_caller, cws::caller_pinning::off);
  EXPECT_EQ(parse({{"CWS_STACK_KIB", "65536"}}).stack_kib, 65536u);
  EXPECT_EQ(parse({{"CWS_HISTORY", "1"}}).history, 1u);
  EXPECT_EQ(parse({{"CWS_TRACE", "run.cwst"}}).trace_path, std::optional<std::string>("run.cwst"));
  for (const char* bad : {"-1", "1000001", "50us", " 5"})
    expect_rejected("CWS_BLOCKTIME", bad, "expected microseconds (0..1000000; 0 = sleep at once)");
  for (const char* bad : {"yes", "stick", "1"}) expect_rejected("CWS_PIN_CALLER", bad, "expected sticky, phase or off");
  for (const char* bad : {"63", "0", "8M"}) expect_rejected("CWS_STACK_KIB", bad, "expected KiB (64..4194304)");
  for (const char* bad : {"0", "1000001", "all"})
    expect_rejected("CWS_HISTORY", bad, "expected runs per schedule (1..1000000)");
}

// A misspelt CWS_* name is not silently ignored: one warning per unknown name,
// with the closest known name. The environment listing is injected, so the
// test does not depend on the real environ.
TEST(Config, MisspeltVariableWarnsWithTheClosestName) {
  fake_env = {{"CWS_WORKER", "3"}, {"CWS_IDEL", "spin"}, {"CWS_WORKERS", "2"}};
  const std::vector<std::string_view> names = {"CWS_WORKER", "CWS_IDEL", "CWS_WORKERS", "PATH", "cws_workers"};
  std::vector<std::string> warnings;
  const cws::runtime_config c = cws::parse_config({}, fake_lookup, names, warnings);
  EXPECT_EQ(c.workers, 2u);                     // the known one still applies
  EXPECT_EQ(c.idle, cws::idle_mode::adaptive);  // the misspelt one does not
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "cws: warning: CWS_WORKER is not a cws variable (did you mean CWS_WORKERS?)");
  EXPECT_EQ(warnings[1], "cws: warning: CWS_IDEL is not a cws variable (did you mean CWS_IDLE?)");
}

TEST(Config, UnknownNameFarFromAnyKnownOneGetsNoGuess) {
  const auto w = cws::unknown_variable_warnings({"CWS_FROBNICATE_EVERYTHING", "CWS_STACK_KB", "CWS_HISTORYMB"});
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0], "cws: warning: CWS_FROBNICATE_EVERYTHING is not a cws variable (docs/tuning.md lists them)");
  EXPECT_EQ(w[1], "cws: warning: CWS_STACK_KB is not a cws variable (did you mean CWS_STACK_KIB?)");
  EXPECT_EQ(w[2], "cws: warning: CWS_HISTORYMB is not a cws variable (did you mean CWS_HISTORY_MB?)");
  // A name with control characters stays on one line.
  const auto odd = cws::unknown_variable_warnings({"CWS_\nX"});
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_EQ(odd[0].find('\n'), std::string::npos) << odd[0];
}

// Every name the parser reads is known (the table is the one list), so no
// knob is ever flagged; and every name listed is one the parser reads.
TEST(Config, EveryKnownNameIsParsedAndNoneIsFlagged) {
  const std::vector<std::string_view> known = cws::known_variables();
  EXPECT_GE(known.size(), 27u);
  EXPECT_TRUE(cws::unknown_variable_warnings(known).empty());
  for (const char* name : {"CWS_WORKERS", "CWS_TOPOLOGY", "CWS_PIN", "CWS_PIN_CALLER", "CWS_HISTORY_MB", "CWS_HPT",
                           "CWS_HINTED_RELAXED", "CWS_PAGE_MOVER", "CWS_TRACE"})
    EXPECT_NE(std::find(known.begin(), known.end(), name), known.end()) << name;
  // Each known name is looked up by parse_config.
  static std::vector<std::string> asked;
  asked.clear();
  cws::parse_config({}, [](const char* name) -> const char* {
    asked.emplace_back(name);
    return nullptr;
  });
  EXPECT_EQ(std::vector<std::string>(known.begin(), known.end()), asked);
}

TEST(Config, WorkerCapIsMaxWorkers) {
  EXPECT_EQ(parse({{"CWS_WORKERS", std::to_string(cws::max_workers)}}).workers, cws::max_workers);
  expect_rejected("CWS_WORKERS", std::to_string(cws::max_workers + 1), "expected a positive integer (1..4096)");
}

// The warning for a name far from every known one points at docs/tuning.md:
// it documents every variable the table knows.
TEST(Config, TuningDocListsEveryVariable) {
  std::ifstream in(CWS_DOCS_TUNING);
  ASSERT_TRUE(in) << CWS_DOCS_TUNING;
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::string_view name : cws::known_variables())
    EXPECT_NE(doc.find("| `" + std::string(name) + "` |"), std::string::npos) << name << " is not in docs/tuning.md";
}
