// `cws-trace diff` between STOWS iterations of one phase in a saved trace
// reports distance 0 (task by task: the trace carries audit data).

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "schedulers/replay_support.hpp"

namespace {

struct cli_result {
  int code = -1;
  std::string out;
};

cli_result run_cli(const std::string& args) {
  cli_result r;
  const std::string cmd = std::string(CWS_TRACE_CLI) + " " + args + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(stows_trace, cws_trace_diff_between_stows_iterations_is_zero) {
  const std::string path = (std::filesystem::temp_directory_path() / "cws_stows_diff.cwst").string();
  {
    cws::runtime_config c = cws::test::audited(4, cws::test::four_cores);
    c.history = 8;  // every run below goes to the file
    cws::runtime rt(c);
    auto& s = rt.schedule("fib", cws::policy::stows);
    cws::test::heat_grid grid(64);
    auto& h = rt.schedule("heat", cws::policy::stows);
    for (int it = 0; it < 8; ++it) {
      rt.run(s, [] { cws::test::fib(16); });
      rt.run(h, [&] { grid.step(2); });
    }
    rt.save_traces(path);
  }
  for (const char* phase : {"fib", "heat"}) {
    for (auto [a, b] : {std::pair{1, 7}, std::pair{2, 3}, std::pair{4, 6}}) {
      const std::string args = "diff " + path + "@" + phase + "#" + std::to_string(a) + " " + path + "@" + phase + "#" +
                               std::to_string(b) + " --json";
      const cli_result r = run_cli(args);
      ASSERT_EQ(r.code, 0) << args << "\n" << r.out;
      const auto doc = nlohmann::json::parse(r.out);
      const std::string dump = doc.dump();
      // Every distance figure in the document is zero, and the comparison was exact.
      const auto count = [&](const std::string& needle) {
        std::size_t n = 0;
        for (std::size_t at = dump.find(needle); at != std::string::npos; at = dump.find(needle, at + 1)) ++n;
        return n;
      };
      ASSERT_GT(count("\"moved_worker\":"), 0u) << dump;
      EXPECT_EQ(count("\"moved_worker\":"), count("\"moved_worker\":0.0,")) << dump;
      EXPECT_EQ(count("\"moved_node\":"), count("\"moved_node\":0.0,")) << dump;
      EXPECT_NE(dump.find("\"exact\":true"), std::string::npos) << dump;
    }
  }
  std::filesystem::remove(path);
}

}  // namespace
