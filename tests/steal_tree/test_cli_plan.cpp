// `cws-trace plan` and the balance column of `cws-trace info`, end to end: a
// program records a serial audit run of a loop and a parallel audit run of
// fib, saves the trace; the CLI plans it; another runtime loads the plans
// (runtime::load_traces) and replays them under stows, balanced. Plus the
// selection flags and the errors with their exit codes.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cws/cws.hpp"
#include "cws/steal_tree/balance.hpp"
#include "cws/steal_tree/plan.hpp"
#include "cws/traces/trace_file.hpp"
#include "support/runtime_fixture.hpp"
#include "support/scratch_files.hpp"
#include "support/steal_tree_builders.hpp"

namespace {

namespace st = cws::steal_tree;
using nlohmann::json;

struct result {
  int code = -1;
  std::string out, err;
};

class CliPlan : public ::testing::Test {
 protected:
  result run(const std::string& args) {
    const std::string out = dir.file("stdout"), err = dir.file("stderr");
    const std::string cmd = std::string(CWS_TRACE_CLI) + " " + args + " >" + out + " 2>" + err;
    const int status = std::system(cmd.c_str());
    result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = cws::test::slurp(out);
    r.err = cws::test::slurp(err);
    return r;
  }
  // A trace of 4 workers (two synthetic nodes): run #0 'loop', serial (stows
  // with a root-only template), run #1 'fib' under random, both with audit
  // records; run #2 'fib' again, its audit records stripped (a later run
  // that cannot be planned: the planner takes the latest one that can).
  std::string recorded_trace() {
    const std::string path = dir.file("recorded.cwst");
    cws::runtime_config c = cws::test::config(4, cws::test::four_cores);
    c.audit = true;
    cws::runtime rt(c);
    cws::schedulers::store_of(rt).seed("loop", cws::test::root_only(4), "root only");
    auto& loop = rt.schedule("loop", cws::policy::stows);
    rt.run(loop, [] {
      cws::parallel_for_range(
          0, 64, [](std::size_t, std::size_t) {}, 1);
    });
    auto& fib = rt.schedule("fib", cws::policy::random);
    rt.run(fib, [] { cws::test::fib(14); });
    rt.run(fib, [] { cws::test::fib(14); });
    rt.save_traces(path);
    cws::traces::trace_file f = cws::traces::read(path);
    f.phases.at(2).steals.audit.clear();
    cws::traces::write(path, f);
    return path;
  }
  cws::test::scratch_dir dir{"cws-plan-cli"};
};

TEST_F(CliPlan, PlansTheLatestAuditRunOfEverySchedule) {
  const std::string in = recorded_trace(), out = dir.file("plan.cwst");
  const result r = run("plan " + in + " " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("plan " + in + " (tolerance 1.10): 2 phase runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("loop #0 (stows)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("split_serial"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("share x4.00, 3 idle"), std::string::npos) << r.out;  // the serial run
  EXPECT_NE(r.out.find("fib #0 (random)"), std::string::npos) << r.out;      // fib #1 has no audit records

  // The output: one run per schedule, each the planner's tree.
  const cws::traces::trace_file a = cws::traces::read(in), b = cws::traces::read(out);
  ASSERT_EQ(b.phases.size(), 2u);
  EXPECT_EQ(b.header.options.workers, 4u);
  st::plan_options o;
  for (const auto& p : a.header.placement) o.worker_order.push_back(p.worker);
  std::stable_sort(o.worker_order.begin(), o.worker_order.end(),
                   [&](auto x, auto y) { return a.header.placement[x].numa_node < a.header.placement[y].numa_node; });
  EXPECT_EQ(b.phases[0].schedule, "loop");
  EXPECT_EQ(b.phases[0].steals, st::plan(a.phases[0].steals, o));
  EXPECT_EQ(b.phases[1].schedule, "fib");
  EXPECT_EQ(b.phases[1].steals, st::plan(a.phases[1].steals, o));
  EXPECT_EQ(st::balance_of(b.phases[0].steals).max_share_ratio, 1.0);

  // info shows the balance of each run.
  const result info = run("info " + out);
  ASSERT_EQ(info.code, 0) << info.err;
  EXPECT_NE(info.out.find("balance"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("share x1.00 "), std::string::npos) << info.out;
  const json j = json::parse(run("info " + in + " --json").out);
  EXPECT_EQ(j["phases"][0]["balance"]["max_share_ratio"], 4.0);
  EXPECT_EQ(j["phases"][0]["balance"]["idle_workers"], 3);

  // A runtime seeds its schedules from the file and replays them balanced.
  cws::runtime rt(cws::test::config(4, cws::test::four_cores));
  rt.load_traces(out);
  auto& loop = rt.schedule("loop", cws::policy::stows);
  std::vector<unsigned> owner(64, 99);
  const cws::run_report& rep = rt.run(loop, [&] {
    cws::parallel_for_range(
        0, 64,
        [&](std::size_t lo, std::size_t hi) {
          for (std::size_t i = lo; i < hi; ++i) owner[i] = cws::this_worker();
        },
        1);
  });
  EXPECT_EQ(rep.ran_as, cws::ran_as::stows) << rep.label();
  EXPECT_EQ(rep.balance.idle_workers, 0u);
  EXPECT_NE(rep.template_from.find("plan.cwst"), std::string::npos) << rep.template_from;
  for (std::size_t i = 1; i < 64; ++i) {  // one contiguous range per worker
    if (owner[i] != owner[i - 1]) {
      EXPECT_EQ(std::count(owner.begin() + static_cast<std::ptrdiff_t>(i), owner.end(), owner[i - 1]), 0);
    }
  }
  // A planned recursion's per-worker order is an estimate that strict
  // ordering can wait on forever (a stows replay of it stalled once under
  // ASan): it replays under stuws, with the plan's thieves (docs/replay.md).
  auto& fib = rt.schedule("fib", cws::policy::stuws);
  std::uint64_t x = 0;
  const cws::run_report& f = rt.run(fib, [&] { x = cws::test::fib(14); });
  EXPECT_EQ(x, cws::test::serial_fib(14));
  EXPECT_EQ(f.ran_as, cws::ran_as::stuws) << f.label();
  EXPECT_EQ(f.balance.idle_workers, 0u);
}

TEST_F(CliPlan, SelectsARunOrASchedule) {
  const std::string in = recorded_trace(), out = dir.file("plan.cwst");
  json j = json::parse(run("plan " + in + " " + out + " --schedule loop --tolerance 1.5 --json").out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["tolerance"], 1.5);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["schedule"], "loop");
  EXPECT_EQ(j["runs"][0]["method"], "split_serial");
  EXPECT_EQ(j["runs"][0]["steals_before"], 0);
  EXPECT_EQ(j["runs"][0]["before"]["idle_workers"], 3);
  EXPECT_EQ(j["runs"][0]["after"]["tasks"], (json{16, 16, 16, 16}));
  EXPECT_EQ(j["runs"][0]["balanced"], true);
  j = json::parse(run("plan " + in + " " + out + " --run 1 --json").out);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["index"], 1);
  EXPECT_EQ(cws::traces::read(out).phases.size(), 1u);
}

TEST_F(CliPlan, ErrorsAndExitCodes) {
  const std::string in = recorded_trace(), out = dir.file("plan.cwst");
  result r = run("plan " + in + " " + out + " --run 2");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "cws-trace: " + in +
                       ": run #2 (fib #1 (random)) has no audit records to plan from (record it with CWS_AUDIT=1)\n");
  r = run("plan " + in + " " + out + " --run 7");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "cws-trace: " + in + ": no phase run #7 (the file has 3 runs)\n");
  EXPECT_EQ(run("plan " + in + " " + out + " --run 0 --schedule fib").code, 1);
  EXPECT_EQ(run("plan " + in + " " + out + " --schedule nosuch").code, 1);
  EXPECT_EQ(run("plan " + in + " " + out + " --tolerance 0.5").code, 1);
  EXPECT_EQ(run("plan " + in).code, 1);  // no OUT

  // A trace without audit records says how to get one.
  cws::traces::trace_file f = cws::traces::read(in);
  for (auto& p : f.phases) p.steals.audit.clear();
  const std::string plain = dir.file("plain.cwst");
  cws::traces::write(plain, f);
  r = run("plan " + plain + " " + out + " --json");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(json::parse(r.out)["error"],
            plain + ": no phase run has audit records to plan from (record it with CWS_AUDIT=1)");
  EXPECT_EQ(run("plan " + dir.file("missing.cwst") + " " + out).code, 2);
  EXPECT_EQ(run("plan " + in + " " + dir.file("no/such/dir/out.cwst")).code, 4);
}

}  // namespace
