// The apps' error conventions and trace files, run as programs:
//   - a cws::error (unknown policy, bad CWS_* variable, impossible worker
//     count, unloadable --trace-in, unwritable --trace-out) is exactly one line
//     "cws-<app>: error: <message>" on stderr, exit code 2, nothing on stdout;
//   - a bad flag gives CLI11's message and CLI11's exit code, nothing on stdout;
//   - --trace-out writes a file cws-trace validates and the same app accepts
//     back with --trace-in (same worker count); a damaged, truncated or
//     other-worker-count file is a cws error naming the file.
// Every run has a time limit (app_runner.hpp): nothing may hang.
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "app_runner.hpp"

namespace {

using namespace cws::apps_test;
using strings = std::vector<std::string>;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Tiny runs of each app that take the common cws flags (no --policies, so that
// --policy may be added).
strings tiny_args(const std::string& app) {
  if (app == "fib") return {"-n", "10", "--runs", "1", "--warmup", "0"};
  if (app == "memcopy") return {"--mb", "1", "--runs", "1", "--warmup", "0"};
  if (app == "heat") return {"--size", "32", "--iters", "2", "--runs", "1", "--warmup", "0"};
  if (app == "recording") return {"-n", "10", "--mb", "1", "--pairs", "1", "--phases", "1"};
  return {};
}

// A cws::error: one line on stderr naming the app, exit 2, no output.
void expect_cws_error(const run_result& r, const std::string& app, const strings& mentions) {
  SCOPED_TRACE(r.command);
  ASSERT_FALSE(r.timed_out) << r.dump();
  EXPECT_EQ(r.code, 2) << r.dump();
  EXPECT_EQ(r.out, "") << r.dump();
  const strings lines = r.err_lines();
  ASSERT_EQ(lines.size(), 1u) << "one error line expected\n" << r.dump();
  EXPECT_EQ(r.err.back(), '\n');
  EXPECT_EQ(lines[0].rfind("cws-" + app + ": error: ", 0), 0u) << lines[0];
  for (const std::string& m : mentions) EXPECT_TRUE(contains(lines[0], m)) << "'" << m << "' not in: " << lines[0];
}

// A CLI11 parse error: its exit code, its message on stderr, no output.
void expect_cli_error(const run_result& r, CLI::ExitCodes code, const std::string& mention) {
  SCOPED_TRACE(r.command);
  ASSERT_FALSE(r.timed_out) << r.dump();
  EXPECT_EQ(r.code, static_cast<int>(code)) << r.dump();
  EXPECT_EQ(r.out, "") << r.dump();
  EXPECT_TRUE(contains(r.err, mention)) << r.dump();
  EXPECT_FALSE(contains(r.err, ": error: ")) << "not a cws error\n" << r.dump();
}

class AppErrors : public ::testing::TestWithParam<std::string> {
 protected:
  const std::string app = GetParam();
  run_result run(const strings& more, const env_list& env = two_nodes) const {
    return run_app(app, with(tiny_args(app), more), env);
  }
};

TEST_P(AppErrors, UnknownPolicyNamesTheValidOnes) {
  for (const strings& flags : {strings{"--policy", "nosuch"}, strings{"--policy", "nosuch", "--json"}}) {
    const run_result r = run(flags);
    expect_cws_error(r, app, {"unknown policy 'nosuch'", "valid: ", "random", "stows", "evolve"});
  }
}

TEST_P(AppErrors, UnknownPolicyInAList) {
  // fib takes a list in --policy, memcopy and heat in --policies; recording one name.
  const strings flags =
      app == "memcopy" || app == "heat" ? strings{"--policies", "random,nosuch"} : strings{"--policy", "random,nosuch"};
  const run_result r = run(with(flags, {"--json"}));
  expect_cws_error(r, app, {"unknown policy '", "nosuch", "valid: ", "random"});
}

TEST_P(AppErrors, BadEnvironmentVariable) {
  expect_cws_error(run({"--json"}, {{"CWS_WORKERS", "abc"}}), app, {"CWS_WORKERS", "abc"});
  expect_cws_error(run({}, {{"CWS_WORKERS", "0"}}), app, {"CWS_WORKERS"});
  expect_cws_error(run({}, {{"CWS_TOPOLOGY", "bogus"}}), app, {"CWS_TOPOLOGY"});
  expect_cws_error(run({}, {{"CWS_PIN", "maybe"}, {"CWS_TOPOLOGY", "pack:2 numa:1 core:1 pu:1"}}), app, {"CWS_PIN"});
}

TEST_P(AppErrors, ImpossibleWorkerCount) {
  // Two PUs in the synthetic machine: three workers cannot be placed.
  expect_cws_error(run({"--workers", "3", "--json"}), app, {"3 workers"});
  env_list env = two_nodes;
  env.emplace_back("CWS_WORKERS", "3");
  expect_cws_error(run({}, env), app, {"3 workers"});
}

TEST_P(AppErrors, BadFlagsAreCli11Errors) {
  if (app != "recording") {  // recording has no run flags (RecordingRefusesTheRunFlags)
    expect_cli_error(run({"--runs", "0", "--json"}), CLI::ExitCodes::ValidationError, "--runs");
    expect_cli_error(run({"--runs", "abc", "--json"}), CLI::ExitCodes::ValidationError, "--runs");
    expect_cli_error(run({"--iters", "-1", "--json"}), CLI::ExitCodes::ValidationError, "--iters");
  }
  expect_cli_error(run({"--workers", "0", "--json"}), CLI::ExitCodes::ValidationError, "--workers");
  expect_cli_error(run({"--no-such-flag", "--json"}), CLI::ExitCodes::ExtrasError, "--no-such-flag");
  if (app == "memcopy" || app == "heat")
    expect_cli_error(run({"--policy", "stows", "--policies", "random", "--json"}), CLI::ExitCodes::ExcludesError,
                     "--policies");
}

TEST_P(AppErrors, UnwritableTraceOut) {
  scratch_dir dir;
  const std::string path = dir.file("no/such/dir/out.cwst");
  expect_cws_error(run({"--trace-out", path, "--json"}), app, {path});
}

TEST_P(AppErrors, MissingTraceIn) {
  scratch_dir dir;
  const std::string path = dir.file("missing.cwst");
  expect_cws_error(run({"--trace-in", path, "--json"}), app, {path, "cannot open"});
}

INSTANTIATE_TEST_SUITE_P(Apps, AppErrors, ::testing::Values("fib", "memcopy", "heat", "recording"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(PagemoveErrors, BadFlagsAreCli11Errors) {
  expect_cli_error(run_app("pagemove", {"--runs", "0", "--json"}), CLI::ExitCodes::ValidationError, "--runs");
  expect_cli_error(run_app("pagemove", {"--mb", "x", "--json"}), CLI::ExitCodes::ValidationError, "--mb");
  expect_cli_error(run_app("pagemove", {"--policy", "random"}), CLI::ExitCodes::ExtrasError, "--policy");
}

// ---- trace files -------------------------------------------------------------

// Per app: flags whose cws variants replay templates, and the schedule names
// such a run records.
struct trace_case {
  std::string app;
  strings args;
  std::set<std::string> schedules;
};

trace_case trace_case_of(const std::string& app) {
  if (app == "fib") return {app, with(tiny_args(app), {"--policy", "random,stows"}), {"fib-random", "fib-stows"}};
  if (app == "memcopy")
    return {app, with(tiny_args(app), {"--policies", "stows"}), {"init/cws-stows", "copy/cws-stows"}};
  return {app,
          with(tiny_args(app), {"--policies", "stows"}),
          {"heat-init/stows", "heat-step/stows", "heat-init/stows-follow-init", "heat-step/stows-follow-init"}};
}

class TraceFiles : public ::testing::TestWithParam<std::string> {
 protected:
  // Records a trace with 2 workers; returns its path (empty on failure, reported).
  std::string record() {
    const std::string path = dir.file(c.app + ".cwst");
    run_result r;
    const json doc = run_json(c.app, with(c.args, {"--trace-out", path}), two_nodes, &r);
    if (doc.is_null()) return "";
    for (const json& e : doc["results"]) EXPECT_EQ(e["verified"], true) << e["variant"];
    // One note line on stderr: "trace: N phase runs written to PATH".
    static const std::regex note("trace: ([0-9]+) phase runs written to (.*)");
    std::smatch m;
    const strings lines = r.err_lines();
    EXPECT_EQ(lines.size(), 1u) << r.dump();
    if (lines.empty() || !std::regex_match(lines[0], m, note)) {
      ADD_FAILURE() << "no trace note\n" << r.dump();
      return "";
    }
    EXPECT_EQ(m[2], path);
    written = std::stoul(m[1]);
    return path;
  }

  run_result replay(const std::string& path, const strings& more = {}, const env_list& env = two_nodes) const {
    return run_app(c.app, with(c.args, with({"--trace-in", path, "--json"}, more)), env);
  }

  trace_case c = trace_case_of(GetParam());
  scratch_dir dir;
  std::size_t written = 0;
};

TEST_P(TraceFiles, TraceOutIsValidAndLoadsBack) {
  const std::string path = record();
  ASSERT_FALSE(path.empty());
#ifdef CWS_TRACE_CLI
  const run_result val = run_process(CWS_TRACE_CLI, {"validate", path, "--json"});
  ASSERT_FALSE(val.timed_out) << val.dump();
  EXPECT_EQ(val.code, 0) << val.dump();
  const json valid = json::parse(val.out);
  EXPECT_EQ(valid["ok"], true);
  EXPECT_EQ(valid["files"][0]["valid"], true);
  EXPECT_EQ(valid["files"][0]["phases"], written);
  // The file holds what the app ran: its schedules, its worker count.
  const run_result i = run_process(CWS_TRACE_CLI, {"info", path, "--json"});
  ASSERT_EQ(i.code, 0) << i.dump();
  const json info = json::parse(i.out);
  EXPECT_EQ(info["options"]["workers"], 2);
  ASSERT_EQ(info["phases"].size(), written);
  std::set<std::string> names;
  for (const json& p : info["phases"]) names.insert(p["schedule"].get<std::string>());
  EXPECT_EQ(names, c.schedules);
#else
  GTEST_LOG_(INFO) << "cws-trace CLI not built: the file is only read back by the app";
#endif
  // Read back by the same app with the same worker count.
  const run_result r = replay(path);
  ASSERT_FALSE(r.timed_out) << r.dump();
  ASSERT_EQ(r.code, 0) << r.dump();
  const json doc = json::parse(r.out);
  for (const json& e : doc["results"]) EXPECT_EQ(e["verified"], true) << e["variant"];
  static const std::regex note("trace: templates of ([0-9]+) schedule\\(s\\) loaded from (.*)");
  std::smatch m;
  const strings lines = r.err_lines();
  ASSERT_EQ(lines.size(), 1u) << r.dump();
  ASSERT_TRUE(std::regex_match(lines[0], m, note)) << lines[0];
  EXPECT_EQ(m[2], path);
  EXPECT_GE(std::stoul(m[1]), 1u);
  if (c.app == "heat") {
    // The replaying variants start from the file's templates, not from a random first iteration.
    for (const char* v : {"cws-stows", "cws-stows-follow-init"})
      for (const json& e : doc["results"])
        if (e["variant"] == v)
          for (const json& it : e["iterations"]) {
            EXPECT_EQ(it["ran_as_kind"], "stows") << v;
            EXPECT_TRUE(contains(it.value("template_from", ""), "file " + path)) << v << ": " << it["template_from"];
          }
  }
}

TEST_P(TraceFiles, DamagedTraceInIsOneErrorAndAnotherWorkerCountIsReplanned) {
  const std::string path = record();
  ASSERT_FALSE(path.empty());
  const std::string bytes = slurp(path);
  ASSERT_GT(bytes.size(), 64u);
  const std::string truncated = dir.file("truncated.cwst"), flipped = dir.file("flipped.cwst");
  spit(truncated, bytes.substr(0, bytes.size() / 2));
  std::string changed = bytes;
  changed[changed.size() / 2] ^= 0x20;
  spit(flipped, changed);
  expect_cws_error(replay(truncated), c.app, {truncated, "truncated"});
  expect_cws_error(replay(flipped), c.app, {flipped});
  // Recorded with 2 workers, loaded by a runtime of 1: re-planned, not refused
  // (the steals by worker 1 are dropped); the app runs and verifies.
  const run_result one = replay(path, {"--workers", "1"});
  EXPECT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(one.err.find("error"), std::string::npos) << one.err;
}

INSTANTIATE_TEST_SUITE_P(Apps, TraceFiles, ::testing::Values("fib", "memcopy", "heat"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// cws-recording's runtime records nothing itself (it attaches recorders by
// hand, on alternate phases); --trace-out writes the --phases copy phases of
// its size figure.
TEST(RecordingTrace, RecordingWritesTheCopyPhasesOfItsSizeFigure) {
  scratch_dir dir;
  const std::string path = dir.file("recording.cwst");
  run_result r;
  const json doc = run_json(
      "recording", {"-n", "10", "--mb", "1", "--pairs", "1", "--phases", "3", "--trace-out", path}, two_nodes, &r);
  ASSERT_FALSE(doc.is_null());
  EXPECT_NE(r.err.find("trace: 3 phase runs written to " + path), std::string::npos) << r.dump();
#ifdef CWS_TRACE_CLI
  const run_result i = run_process(CWS_TRACE_CLI, {"info", path, "--json"});
  ASSERT_EQ(i.code, 0) << i.dump();
  const json info = json::parse(i.out);
  ASSERT_EQ(info["phases"].size(), 3u);
  for (const json& p : info["phases"]) EXPECT_EQ(p["schedule"], "copy");
#else
  EXPECT_FALSE(slurp(path).empty()) << r.dump();
#endif
}

// Its runs are the --pairs: the common --runs, --warmup and --iters are not offered.
TEST(RecordingTrace, RecordingRefusesTheRunFlags) {
  for (const char* flag : {"--runs", "--warmup", "--iters"})
    expect_cli_error(run_app("recording", with(tiny_args("recording"), {flag, "2", "--json"})),
                     CLI::ExitCodes::ExtrasError, flag);
}

}  // namespace
