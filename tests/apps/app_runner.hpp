#pragma once
// Runs an app binary as a child process for the apps suites: arguments without
// a shell, a controlled environment (the caller's CWS_* variables removed, the
// test's own added, and CWS_TEMPLATE_TRIES=1 unless the test sets it: stows
// and stuws take their first run as the template on every machine, which by
// default they do on NUMA machines only), stdout and stderr captured apart,
// the exit code, and a time limit after which the child is killed and the run
// reported as timed out.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "support/scratch_files.hpp"

extern char** environ;

namespace cws::apps_test {

using nlohmann::json;
using env_list = std::vector<std::pair<std::string, std::string>>;

// The synthetic 2-node machine of the locality checks: 2 workers, one per node,
// page homes simulated.
inline const env_list two_nodes = {{"CWS_TOPOLOGY", "pack:2 numa:1 core:1 pu:1"}};
// The synthetic 4-node machine (one core per node) of the app suites.
inline const env_list four_nodes = {{"CWS_TOPOLOGY", "pack:4 numa:1 core:1 pu:1"}};

// Generous: every run of the suites takes well under a second on an idle core.
inline constexpr std::chrono::seconds default_timeout{60};

struct run_result {
  int code = -1;           // exit status; 128 + signal number when a signal ended it
  bool timed_out = false;  // killed after the time limit
  std::string out, err;
  std::string command;  // for failure messages

  // The lines of stderr (without their '\n'; a last line without '\n' counts too).
  std::vector<std::string> err_lines() const {
    std::vector<std::string> lines;
    std::istringstream in(err);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  }
  // What to print when an expectation on this run fails.
  std::string dump() const {
    return "command: " + command + "\nexit: " + std::to_string(code) + (timed_out ? " (timed out)" : "") +
           "\nstderr:\n" + err + "stdout (" + std::to_string(out.size()) + " bytes):\n" + out.substr(0, 4000);
  }
};

using cws::test::scratch_dir;
using cws::test::slurp;
using cws::test::spit;

// Runs `exe args...` with the environment of this process minus its CWS_*
// variables plus `env` (CWS_TEMPLATE_TRIES=1, CWS_EVOLVE_CONTENTION=0 and
// CWS_REPLAY_GRACE_US=0 unless it sets them), stdin from /dev/null. Never blocks longer than
// `timeout` (then the child's process group is killed).
inline run_result run_process(const std::string& exe, const std::vector<std::string>& args, const env_list& env = {},
                              std::chrono::milliseconds timeout = default_timeout) {
  run_result r;
  r.command = exe;
  for (const auto& a : args) r.command += " '" + a + "'";
  for (const auto& [k, v] : env) r.command = k + "='" + v + "' " + r.command;

  scratch_dir dir;
  const std::string out_path = dir.file("stdout"), err_path = dir.file("stderr");
  const int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int in_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out_fd < 0 || err_fd < 0 || in_fd < 0) throw std::runtime_error("cannot open the capture files");

  // Everything the child needs is built before fork (nothing allocates after it).
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "CWS_", 4) != 0) env_strings.emplace_back(*e);
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  const auto given = [&env](std::string_view name) {
    return std::any_of(env.begin(), env.end(), [name](const auto& kv) { return kv.first == name; });
  };
  if (!given("CWS_TEMPLATE_TRIES")) env_strings.emplace_back("CWS_TEMPLATE_TRIES=1");
  // ctest -j's other tests take the cores: a converged evolve would run its
  // phases under random stealing (CWS_EVOLVE_CONTENTION), which the suites'
  // checks of replay and locality do not expect.
  if (!given("CWS_EVOLVE_CONTENTION")) env_strings.emplace_back("CWS_EVOLVE_CONTENTION=0");
  // Nor a strict replay whose spawner ran its late thief's task (CWS_REPLAY_GRACE_US).
  if (!given("CWS_REPLAY_GRACE_US")) env_strings.emplace_back("CWS_REPLAY_GRACE_US=0");
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings{exe};
  arg_strings.insert(arg_strings.end(), args.begin(), args.end());
  for (auto& s : arg_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(in_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so that a kill cannot race the child's own call
  ::close(out_fd);
  ::close(err_fd);
  ::close(in_fd);

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw std::runtime_error("waitpid failed");
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

// The path of app `name` (fib, memcopy, heat, phases, recording, pagemove):
// a suite defines CWS_APP_<NAME> for the apps it runs (tests/apps/CMakeLists.txt);
// the suites of the apps in their own folders run their binary directly.
inline std::string app_path(std::string_view name) {
#ifdef CWS_APP_FIB
  if (name == "fib") return CWS_APP_FIB;
#endif
#ifdef CWS_APP_MEMCOPY
  if (name == "memcopy") return CWS_APP_MEMCOPY;
#endif
#ifdef CWS_APP_HEAT
  if (name == "heat") return CWS_APP_HEAT;
#endif
#ifdef CWS_APP_PHASES
  if (name == "phases") return CWS_APP_PHASES;
#endif
#ifdef CWS_APP_RECORDING
  if (name == "recording") return CWS_APP_RECORDING;
#endif
#ifdef CWS_APP_PAGEMOVE
  if (name == "pagemove") return CWS_APP_PAGEMOVE;
#endif
  throw std::invalid_argument("no app named " + std::string(name) + " in this suite");
}

inline run_result run_app(std::string_view name, const std::vector<std::string>& args, const env_list& env = {}) {
  return run_process(app_path(name), args, env);
}

// Runs the binary `exe` with --json; it must exit 0 within the time limit and
// print exactly one JSON document on stdout. Returns it (null on failure,
// which is then already reported).
inline json json_of(const std::string& exe, std::vector<std::string> args, const env_list& env = {},
                    run_result* keep = nullptr) {
  args.emplace_back("--json");
  run_result r = run_process(exe, args, env);
  EXPECT_FALSE(r.timed_out) << r.dump();
  EXPECT_EQ(r.code, 0) << r.dump();
  json doc;
  try {
    doc = json::parse(r.out);  // throws on anything after the one document
  } catch (const std::exception& e) {
    ADD_FAILURE() << "stdout is not one JSON document: " << e.what() << "\n" << r.dump();
  }
  if (keep != nullptr) *keep = std::move(r);
  return doc;
}

// Runs `exe args` with --json twice: the first run writes its schedules' steal
// trees to a trace file (--trace-out), the second seeds its schedules from
// that file (--trace-in). Returns the second run's document.
inline json json_seeded_by_own_trace(const std::string& exe, const std::vector<std::string>& args) {
  scratch_dir dir;
  const std::string file = dir.file("run.cwst");
  std::vector<std::string> out = args, in = args;
  out.insert(out.end(), {"--trace-out", file});
  in.insert(in.end(), {"--trace-in", file});
  json_of(exe, std::move(out));
  return json_of(exe, std::move(in));
}

// The same for app `name` of this suite (app_path).
inline json run_json(std::string_view name, std::vector<std::string> args, const env_list& env = {},
                     run_result* keep = nullptr) {
  return json_of(app_path(name), std::move(args), env, keep);
}

// `args` followed by `more`.
inline std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace cws::apps_test
