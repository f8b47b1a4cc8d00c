#pragma once
// The fixture of the cws-trace CLI suites: runs the program (CWS_TRACE_CLI)
// through the shell, capturing its exit code, stdout and stderr; golden files
// as inputs; a scratch directory for outputs and damaged copies.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "cws/traces/trace_file.hpp"
#include "helpers.hpp"

namespace cws::test {

using nlohmann::json;

struct result {
  int code = -1;
  std::string out, err;
};

// Single-quoted for the shell.
inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

class Cli : public ::testing::Test {
 protected:
  result run(const std::string& args) {
    const std::string out = dir.file("stdout"), err = dir.file("stderr");
    const std::string cmd = quote(CWS_TRACE_CLI) + " " + args + " >" + quote(out) + " 2>" + quote(err);
    const int status = std::system(cmd.c_str());
    result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    r.out = cws::test::slurp(out);
    r.err = cws::test::slurp(err);
    return r;
  }
  // Runs with --json; the output must be one JSON document.
  json run_json(const std::string& args, int expect_code) {
    const result r = run(args + " --json");
    EXPECT_EQ(r.code, expect_code) << args << "\n" << r.err;
    try {
      return json::parse(r.out);
    } catch (const std::exception& e) {
      ADD_FAILURE() << args << ": not JSON: " << e.what() << "\n" << r.out;
      return {};
    }
  }
  // A copy of a golden file with one byte changed (its checksum catches it).
  std::string damaged(const std::string& name = "v1-synthetic-4w-audit.cwst") {
    std::string bytes = cws::test::slurp(golden(name));
    bytes[bytes.size() / 2] ^= 0x20;
    const std::string path = dir.file("damaged.cwst");
    cws::test::spit(path, bytes);
    return path;
  }
  cws::test::scratch_dir dir;
  const std::string syn = golden("v1-synthetic-4w-audit.cwst");
  const std::string fib = golden("v1-fib12-2w.cwst");
  const std::string syn2 = golden("v2-synthetic-4w-audit.cwst");
  const std::string fib2 = golden("v2-fib12-2w.cwst");
  const std::string syn3 = golden("v3-synthetic-4w-audit.cwst");
  const std::string fib3 = golden("v3-fib12-2w.cwst");
  const std::string version = std::to_string(cws::traces::format_version);
};

}  // namespace cws::test
