// Workers are placed on the CPUs the process may use: its CPU set at start
// (taskset, an mpirun binding), or, for unbound MPI ranks sharing a node, each
// rank's own share of the cores. Checked end to end with cws-placement-probe
// (placement_probe.cpp), which reports every worker's CPU set as its thread
// sees it from inside a task designated onto that worker.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/scratch_files.hpp"

extern char** environ;

namespace {

struct probe_report {
  unsigned workers = 0;
  std::string rule;
  std::vector<std::set<unsigned>> cpus;  // per worker
};

struct run_result {
  int code = -1;
  std::string err;
  std::vector<probe_report> reports;  // one per process that ran the probe
};

std::set<unsigned> parse_list(const std::string& s) {
  std::set<unsigned> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.insert(static_cast<unsigned>(std::stoul(item)));
  return out;
}

// The caller's CWS_* and launcher variables must not leak into the probe.
void clean_environment() {
  std::vector<std::string> names;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    if (name.rfind("CWS_", 0) == 0 || name.rfind("OMPI_", 0) == 0 || name.rfind("SLURM_", 0) == 0 ||
        name.rfind("MPI_LOCAL", 0) == 0)
      names.push_back(name);
  }
  for (const std::string& n : names) ::unsetenv(n.c_str());
}

// Runs `prefix probe DIR` through the shell (bounded by timeout(1), so a hang
// fails instead of blocking) and reads every report the probe wrote.
run_result run_probe(const std::string& prefix) {
  clean_environment();
  cws::test::scratch_dir dir("cws-placement");
  const std::string err_file = dir.file("stderr");
  const std::string out_dir = dir.file("out");
  std::filesystem::create_directory(out_dir);
  const std::string cmd = "timeout 120 env " + prefix + " '" + CWS_PLACEMENT_PROBE + "' '" + out_dir + "' >/dev/null 2>'" +
                          err_file + "'";
  run_result r;
  const int status = std::system(cmd.c_str());
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream ef(err_file);
  r.err.assign(std::istreambuf_iterator<char>(ef), {});
  for (const auto& entry : std::filesystem::directory_iterator(out_dir)) {
    std::ifstream in(entry.path());
    probe_report rep;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("workers ", 0) == 0) rep.workers = static_cast<unsigned>(std::stoul(line.substr(8)));
      if (line.rfind("rule ", 0) == 0) rep.rule = line.substr(5);
      if (line.rfind("worker ", 0) == 0) rep.cpus.push_back(parse_list(line.substr(line.find(' ', 7) + 1)));
    }
    r.reports.push_back(rep);
  }
  return r;
}

bool have(const char* program) {
  return std::system((std::string("command -v ") + program + " >/dev/null 2>&1").c_str()) == 0;
}

unsigned machine_cpus() { return std::thread::hardware_concurrency(); }

std::set<unsigned> all_cpus(const probe_report& r) {
  std::set<unsigned> out;
  for (const auto& s : r.cpus) out.insert(s.begin(), s.end());
  return out;
}

TEST(CpuPlacement, TasksetGivesTheWorkersOnlyItsPu) {
  if (!have("taskset")) GTEST_SKIP() << "taskset not found";
  if (machine_cpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
  const run_result r = run_probe("taskset -c 1");
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(r.reports.size(), 1u);
  const probe_report& p = r.reports[0];
  EXPECT_EQ(p.workers, 1u) << "one worker per core of the allowed set";
  ASSERT_EQ(p.cpus.size(), 1u);
  EXPECT_EQ(p.cpus[0], std::set<unsigned>{1});
  EXPECT_NE(p.rule.find("the process's CPU set at start"), std::string::npos) << p.rule;
}

TEST(CpuPlacement, SyntheticTopologyPinsRoundRobinOntoTheAllowedPus) {
  if (!have("taskset")) GTEST_SKIP() << "taskset not found";
  if (machine_cpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
  const run_result r = run_probe("CWS_TOPOLOGY='pack:2 numa:1 core:2 pu:1' taskset -c 1");
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(r.reports.size(), 1u);
  EXPECT_EQ(r.reports[0].workers, 4u);
  for (const auto& s : r.reports[0].cpus) EXPECT_EQ(s, std::set<unsigned>{1});
}

TEST(CpuPlacement, MoreWorkersThanTheAllowedPusIsOneError) {
  if (!have("taskset")) GTEST_SKIP() << "taskset not found";
  if (machine_cpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
  const run_result r = run_probe("CWS_WORKERS=2 taskset -c 1");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot place 2 workers on a topology with 1 PU (1 package, 1 NUMA node, 1 L3 group, 1 core, 1 PU); "
                       "this process may use PUs 1 of 0-"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// Two ranks on this node: their workers' CPU sets are disjoint, whether mpirun
// binds them (each rank's binding) or not (each rank's share of the cores).
void expect_disjoint_ranks(const std::string& binding, const std::string& rule_part) {
  if (!have("mpirun")) GTEST_SKIP() << "mpirun not found (apt install openmpi-bin)";
  if (machine_cpus() < 2) GTEST_SKIP() << "needs 2 CPUs";
  const run_result r = run_probe("mpirun --allow-run-as-root --oversubscribe -np 2 " + binding);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(r.reports.size(), 2u) << r.err;
  const std::set<unsigned> a = all_cpus(r.reports[0]), b = all_cpus(r.reports[1]);
  EXPECT_FALSE(a.empty());
  EXPECT_FALSE(b.empty());
  std::vector<unsigned> common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
  EXPECT_TRUE(common.empty()) << "both ranks' workers run on CPU " << (common.empty() ? 0 : common[0]) << "\n"
                              << r.reports[0].rule << "\n"
                              << r.reports[1].rule;
  for (const probe_report& p : r.reports) {
    EXPECT_NE(p.rule.find(rule_part), std::string::npos) << p.rule;
    for (const auto& s : p.cpus) EXPECT_EQ(s.size(), 1u) << "every worker is pinned to one PU";
  }
}

TEST(CpuPlacement, UnboundMpiRanksGetDisjointShares) { expect_disjoint_ranks("--bind-to none", "the share of local rank"); }

TEST(CpuPlacement, MpiBoundRanksKeepTheirBinding) {
  expect_disjoint_ranks("--bind-to core --map-by core", "the process's CPU set at start");
}

}  // namespace
