// cws::topology (synthetic and this machine), worker placement, thread pinning.

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cws/config.hpp"
#include "cws/error.hpp"
#include "cws/runtime.hpp"
#include "cws/topology.hpp"
#include "cws/platform/pinning.hpp"
#include "topology_xml.hpp"
#include "support/error_of.hpp"

namespace {

std::vector<unsigned> field(const std::vector<cws::core_info>& cores, unsigned cws::core_info::*f) {
  std::vector<unsigned> out;
  for (const auto& c : cores) out.push_back(c.*f);
  return out;
}

std::vector<unsigned> nodes_of(const std::vector<cws::worker_placement>& p) {
  std::vector<unsigned> out;
  for (const auto& w : p) out.push_back(w.numa_node);
  return out;
}

std::vector<unsigned> cores_of(const std::vector<cws::worker_placement>& p) {
  std::vector<unsigned> out;
  for (const auto& w : p) out.push_back(w.core);
  return out;
}

using cws::test::error_of;

using V = std::vector<unsigned>;

TEST(SyntheticTopology, FourPackagesOneNodeEach) {
  auto t = cws::topology::synthetic("pack:4 numa:1 core:2 pu:1");
  EXPECT_TRUE(t.is_synthetic());
  EXPECT_EQ(t.source(), "synthetic \"pack:4 numa:1 core:2 pu:1\" (CWS_TOPOLOGY)");
  EXPECT_EQ(t.packages(), 4u);
  EXPECT_EQ(t.numa_nodes(), 4u);
  EXPECT_EQ(t.l3_groups(), 4u);  // no L3 level: one group per NUMA node
  EXPECT_EQ(t.pus(), 8u);
  ASSERT_EQ(t.cores().size(), 8u);
  EXPECT_EQ(t.summary(), "4 packages, 4 NUMA nodes, 4 L3 groups, 8 cores, 8 PUs");

  EXPECT_EQ(field(t.cores(), &cws::core_info::index), (V{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(field(t.cores(), &cws::core_info::numa_node), (V{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(field(t.cores(), &cws::core_info::l3_group), (V{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(field(t.cores(), &cws::core_info::package), (V{0, 0, 1, 1, 2, 2, 3, 3}));
  for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(t.cores()[i].pus, V{i});
  for (unsigned n = 0; n < 4; ++n) EXPECT_EQ(t.numa_os_index(n), n);

  auto p = t.place_workers(8);
  EXPECT_EQ(nodes_of(p), (V{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(cores_of(p), (V{0, 1, 2, 3, 4, 5, 6, 7}));
  // Threads run on this machine: round-robin over its real PUs.
  const auto& real = t.real_pus();
  ASSERT_FALSE(real.empty());
  EXPECT_EQ(real, cws::topology::discover().real_pus());
  for (unsigned w = 0; w < 8; ++w) {
    EXPECT_EQ(p[w].worker, w);
    EXPECT_EQ(p[w].pin_pu, real[w % real.size()]) << "worker " << w;
  }
}

TEST(SyntheticTopology, NodesInsideL3InsidePackagesWithHyperthreads) {
  auto t = cws::topology::synthetic("pack:2 numa:2 l3:1 core:2 pu:2");
  EXPECT_EQ(t.summary(), "2 packages, 4 NUMA nodes, 4 L3 groups, 8 cores, 16 PUs");
  EXPECT_EQ(field(t.cores(), &cws::core_info::numa_node), (V{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(field(t.cores(), &cws::core_info::l3_group), (V{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(field(t.cores(), &cws::core_info::package), (V{0, 0, 0, 0, 1, 1, 1, 1}));
  for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(t.cores()[i].pus, (V{2 * i, 2 * i + 1}));

  // One worker per core first, then the second hardware thread of each core.
  auto p = t.place_workers(11);
  EXPECT_EQ(cores_of(p), (V{0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2}));
  EXPECT_EQ(nodes_of(p), (V{0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 1}));
  EXPECT_EQ(t.place_workers(16).size(), 16u);
  EXPECT_EQ(t.place_workers(3).size(), 3u);
}

TEST(SyntheticTopology, SeveralNodesShareAnL3) {
  auto t = cws::topology::synthetic("pack:1 l3:2 numa:2 core:2 pu:1");
  EXPECT_EQ(t.summary(), "1 package, 4 NUMA nodes, 2 L3 groups, 8 cores, 8 PUs");
  EXPECT_EQ(field(t.cores(), &cws::core_info::numa_node), (V{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(field(t.cores(), &cws::core_info::l3_group), (V{0, 0, 0, 0, 1, 1, 1, 1}));
}

TEST(SyntheticTopology, NoNumaLevelIsOneNode) {
  auto t = cws::topology::synthetic("pack:2 l3:2 core:2 pu:1");
  EXPECT_EQ(t.summary(), "2 packages, 1 NUMA node, 4 L3 groups, 8 cores, 8 PUs");
  EXPECT_EQ(field(t.cores(), &cws::core_info::numa_node), V(8, 0));
  EXPECT_EQ(field(t.cores(), &cws::core_info::l3_group), (V{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(nodes_of(t.place_workers(8)), V(8, 0));
}

TEST(SyntheticTopology, NodePerCore) {
  auto t = cws::topology::synthetic("pack:2 core:2 numa:1 pu:2");
  EXPECT_EQ(t.summary(), "2 packages, 4 NUMA nodes, 4 L3 groups, 4 cores, 8 PUs");
  EXPECT_EQ(field(t.cores(), &cws::core_info::numa_node), (V{0, 1, 2, 3}));
  EXPECT_EQ(nodes_of(t.place_workers(6)), (V{0, 1, 2, 3, 0, 1}));
}

TEST(SyntheticTopology, PusWithoutCoresAreCoresOfTheirOwn) {
  auto t = cws::topology::synthetic("pack:2 pu:2");
  EXPECT_EQ(t.summary(), "2 packages, 1 NUMA node, 1 L3 group, 4 cores, 4 PUs");
  for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(t.cores()[i].pus, V{i});
  EXPECT_EQ(field(t.cores(), &cws::core_info::package), (V{0, 0, 1, 1}));
}

// Memory-only nodes (a second node on the same package, a machine-wide node
// above per-package ones) are local to no core and are not nodes of the topology.
TEST(SyntheticTopology, NodesWithoutLocalCoresAreNotCounted) {
  auto two_per_package = cws::topology::synthetic("pack:2 [numa] [numa] core:2 pu:1");
  EXPECT_EQ(two_per_package.numa_nodes(), 2u);
  EXPECT_EQ(field(two_per_package.cores(), &cws::core_info::numa_node), (V{0, 0, 1, 1}));
  EXPECT_EQ(two_per_package.numa_os_index(0), 0u);
  EXPECT_EQ(two_per_package.numa_os_index(1), 2u);  // hwloc numbers the skipped node 1

  auto machine_wide = cws::topology::synthetic("[numa] pack:2 [numa] core:2 pu:1");
  EXPECT_EQ(machine_wide.summary(), "2 packages, 2 NUMA nodes, 2 L3 groups, 4 cores, 4 PUs");
  EXPECT_EQ(field(machine_wide.cores(), &cws::core_info::numa_node), (V{0, 0, 1, 1}));
}

// Package 0 has no node of its own, so its cores use the machine-wide node,
// which hwloc numbers after package 1's node: placement must put package 1's
// cores (node 0) first.
constexpr const char* asymmetric_xml = R"(<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0xf" complete_cpuset="0xf" allowed_cpuset="0xf" nodeset="0x3" complete_nodeset="0x3" allowed_nodeset="0x3" gp_index="1">
    <object type="NUMANode" os_index="0" cpuset="0xf" complete_cpuset="0xf" nodeset="0x1" complete_nodeset="0x1" gp_index="2" local_memory="1073741824"/>
    <object type="Package" os_index="0" cpuset="0x3" complete_cpuset="0x3" nodeset="0x1" complete_nodeset="0x1" gp_index="3">
      <object type="Core" os_index="0" cpuset="0x1" complete_cpuset="0x1" nodeset="0x1" complete_nodeset="0x1" gp_index="4">
        <object type="PU" os_index="0" cpuset="0x1" complete_cpuset="0x1" nodeset="0x1" complete_nodeset="0x1" gp_index="5"/>
      </object>
      <object type="Core" os_index="1" cpuset="0x2" complete_cpuset="0x2" nodeset="0x1" complete_nodeset="0x1" gp_index="6">
        <object type="PU" os_index="1" cpuset="0x2" complete_cpuset="0x2" nodeset="0x1" complete_nodeset="0x1" gp_index="7"/>
      </object>
    </object>
    <object type="Package" os_index="1" cpuset="0xc" complete_cpuset="0xc" nodeset="0x3" complete_nodeset="0x3" gp_index="8">
      <object type="NUMANode" os_index="1" cpuset="0xc" complete_cpuset="0xc" nodeset="0x2" complete_nodeset="0x2" gp_index="9" local_memory="1073741824"/>
      <object type="Core" os_index="2" cpuset="0x4" complete_cpuset="0x4" nodeset="0x3" complete_nodeset="0x3" gp_index="10">
        <object type="PU" os_index="2" cpuset="0x4" complete_cpuset="0x4" nodeset="0x3" complete_nodeset="0x3" gp_index="11"/>
      </object>
      <object type="Core" os_index="3" cpuset="0x8" complete_cpuset="0x8" nodeset="0x3" complete_nodeset="0x3" gp_index="12">
        <object type="PU" os_index="3" cpuset="0x8" complete_cpuset="0x8" nodeset="0x3" complete_nodeset="0x3" gp_index="13"/>
      </object>
    </object>
  </object>
</topology>
)";

TEST(XmlTopology, CoresAreSortedByNodeFirst) {
  auto t = cws::detail::topology_from_xml(asymmetric_xml);
  EXPECT_EQ(t.summary(), "2 packages, 2 NUMA nodes, 2 L3 groups, 4 cores, 4 PUs");
  EXPECT_EQ(field(t.cores(), &cws::core_info::numa_node), (V{0, 0, 1, 1}));
  EXPECT_EQ(field(t.cores(), &cws::core_info::package), (V{1, 1, 0, 0}));
  EXPECT_EQ(field(t.cores(), &cws::core_info::index), (V{0, 1, 2, 3}));
  EXPECT_EQ(t.cores()[0].pus, V{2});
  EXPECT_EQ(t.cores()[1].pus, V{3});
  EXPECT_EQ(t.cores()[2].pus, V{0});
  EXPECT_EQ(t.numa_os_index(0), 1u);
  EXPECT_EQ(t.numa_os_index(1), 0u);
  auto p = t.place_workers(4);
  EXPECT_EQ(nodes_of(p), (V{0, 0, 1, 1}));
  EXPECT_EQ(cores_of(p), (V{0, 1, 2, 3}));
  EXPECT_THROW(cws::detail::topology_from_xml("<topology>"), cws::error);
}

TEST(SyntheticTopology, SingularSummary) {
  EXPECT_EQ(cws::topology::synthetic("pack:1 core:1 pu:1").summary(),
            "1 package, 1 NUMA node, 1 L3 group, 1 core, 1 PU");
}

TEST(SyntheticTopology, BadDescriptionIsOneClearLine) {
  std::string msg = error_of([] { cws::topology::synthetic("pack:two core:2"); });
  EXPECT_EQ(msg.rfind("CWS_TOPOLOGY=\"pack:two core:2\": hwloc rejected the synthetic description", 0), 0u) << msg;
  EXPECT_NE(msg.find("\"pack:2 numa:1 core:2 pu:1\""), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);

  msg = error_of([] { cws::topology::synthetic("pack:2 numa:1\ncore:2 pu:1 foo"); });
  EXPECT_EQ(msg.rfind("CWS_TOPOLOGY=\"pack:2 numa:1 core:2 pu:1 foo\": hwloc rejected", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);

  msg = error_of([] { cws::topology::synthetic(""); });
  EXPECT_EQ(msg.rfind("CWS_TOPOLOGY=\"\": empty synthetic description", 0), 0u) << msg;
}

TEST(Placement, TooManyOrZeroWorkers) {
  auto t = cws::topology::synthetic("pack:4 numa:1 core:2 pu:1");
  EXPECT_EQ(error_of([&] { t.place_workers(9); }),
            "cannot place 9 workers on a topology with 8 PUs (4 packages, 4 NUMA nodes, 4 L3 groups, 8 cores, 8 PUs)");
  EXPECT_EQ(error_of([&] { t.place_workers(0); }).rfind("cannot place 0 workers", 0), 0u);
  EXPECT_EQ(t.place_workers(8).size(), 8u);
  EXPECT_EQ(t.place_workers(1).size(), 1u);
}

TEST(ThisMachine, Discover) {
  auto t = cws::topology::discover();
  EXPECT_FALSE(t.is_synthetic());
  EXPECT_EQ(t.source(), "hwloc (this system)");
  ASSERT_GE(t.cores().size(), 1u);
  EXPECT_GE(t.numa_nodes(), 1u);
  EXPECT_GE(t.l3_groups(), 1u);
  EXPECT_GE(t.packages(), 1u);
  EXPECT_GE(t.pus(), t.cores().size());

  // Cores are in placement order: node numbers never decrease, indices are positions.
  for (std::size_t i = 0; i < t.cores().size(); ++i) {
    EXPECT_EQ(t.cores()[i].index, i);
    EXPECT_LT(t.cores()[i].numa_node, t.numa_nodes());
    EXPECT_FALSE(t.cores()[i].pus.empty());
    if (i > 0) {
      EXPECT_LE(t.cores()[i - 1].numa_node, t.cores()[i].numa_node);
    }
  }

  // Every PU is used exactly once, and a real topology pins to the core's own PU.
  auto p = t.place_workers(t.pus());
  std::set<unsigned> pins;
  for (std::size_t w = 0; w < p.size(); ++w) {
    const auto& core = t.cores()[p[w].core];
    EXPECT_NE(std::find(core.pus.begin(), core.pus.end(), p[w].pin_pu), core.pus.end());
    EXPECT_EQ(p[w].numa_node, core.numa_node);
    if (w < t.cores().size()) {
      EXPECT_EQ(p[w].pin_pu, core.pus.front()) << "the first round uses each core's first PU";
    }
    pins.insert(p[w].pin_pu);
  }
  EXPECT_EQ(pins.size(), t.pus());
  EXPECT_EQ(std::set<unsigned>(t.real_pus().begin(), t.real_pus().end()), pins);
  EXPECT_EQ(t.real_pus().size(), t.pus());
  EXPECT_THROW(t.place_workers(t.pus() + 1), cws::error);
}

// The calling thread's affinity as a sorted list of CPUs.
std::vector<unsigned> affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  std::vector<unsigned> out;
  for (unsigned c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

TEST(Pinning, PinThenRestore) {
  auto real = cws::topology::discover().real_pus();
  // In a thread of its own, so the test runner's thread keeps its affinity.
  std::thread([&] {
    auto before = affinity();
    auto saved = cws::detail::thread_binding::save_current();
    for (unsigned pu : real) {
      cws::detail::pin_current_thread(pu);
      EXPECT_EQ(affinity(), V{pu});
      std::this_thread::yield();
      EXPECT_EQ(static_cast<unsigned>(sched_getcpu()), pu);
    }
    saved.restore();
    EXPECT_EQ(affinity(), before);
  }).join();
}

TEST(Pinning, NoSuchPu) {
  std::string msg = error_of([] { cws::detail::pin_current_thread(100000); });
  EXPECT_EQ(msg.rfind("cannot pin to PU 100000: this machine has no such PU", 0), 0u) << msg;
}

// The message of synthetic(description), built in a child process under a
// generous alarm: a regression that makes hwloc build a huge topology again
// fails (killed, reported) instead of hanging the suite. "" when accepted.
std::string synthetic_error_in_child(const std::string& description) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(60);
    std::string msg;
    try {
      cws::topology::synthetic(description);
    } catch (const cws::error& e) {
      msg = e.what();
    }
    if (write(fds[1], msg.data(), msg.size()) < 0) _exit(2);
    _exit(0);
  }
  close(fds[1]);
  std::string msg;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) msg.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) ADD_FAILURE() << description << ": killed by signal " << WTERMSIG(status) << " (hung?)";
  return msg;
}

TEST(SyntheticTopology, BeyondTheWorkerCapIsRefusedBeforeHwlocBuildsIt) {
  EXPECT_EQ(synthetic_error_in_child("pack:2 numa:2 core:1024 pu:64"),
            "CWS_TOPOLOGY=\"pack:2 numa:2 core:1024 pu:64\": 262144 PUs, more than the 4096 workers cws runs at most "
            "(cws::max_workers)");
  // The default of one worker per core would have started 8192 workers.
  EXPECT_NE(synthetic_error_in_child("numa:2 core:4096 pu:1").find(": 8192 PUs, more than the 4096"), std::string::npos);
  // Bare arities, memory children, attributes and absurd numbers are counted the same way.
  EXPECT_NE(synthetic_error_in_child("2 2 1025").find(": 4100 PUs"), std::string::npos);
  EXPECT_NE(synthetic_error_in_child("[numa] pack:2 [numa(memory=1GB)] core:2049(x=1 2) pu:1").find(": 4098 PUs"),
            std::string::npos);
  EXPECT_NE(synthetic_error_in_child("pack:2 core:99999999999999999999999 pu:1").find(": over 1099511627776 PUs"),
            std::string::npos);
  // At the cap hwloc is asked (and small ones build as before).
  EXPECT_EQ(synthetic_error_in_child("pack:2 core:2 pu:1"), "");
}

TEST(SyntheticTopology, DefaultWorkersIsOnePerCore) {
  EXPECT_EQ(cws::topology::synthetic("pack:2 numa:1 core:3 pu:2").default_workers(), 6u);
  EXPECT_EQ(cws::topology::discover().default_workers(), cws::topology::discover().cores().size());
}

std::map<std::string, std::string> launcher_env;
const char* launcher_lookup(const char* name) {
  auto it = launcher_env.find(name);
  return it == launcher_env.end() ? nullptr : it->second.c_str();
}

const std::vector<V> four_cores_two_threads = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};

TEST(WorkerCpus, WholeMachineWhenUnboundAndAlone) {
  launcher_env = {};
  auto c = cws::detail::choose_cpus({0, 1, 2, 3, 4, 5, 6, 7}, four_cores_two_threads, launcher_lookup);
  EXPECT_TRUE(c.whole_machine);
  EXPECT_EQ(c.pus, (V{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(c.rule, "PUs 0-7: the whole machine");
  launcher_env = {{"OMPI_COMM_WORLD_LOCAL_RANK", "0"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "1"}};  // one rank: all of it
  EXPECT_TRUE(cws::detail::choose_cpus({}, four_cores_two_threads, launcher_lookup).whole_machine);  // set unknown
}

TEST(WorkerCpus, TheProcessCpuSetWins) {
  launcher_env = {{"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}};
  auto c = cws::detail::choose_cpus({1, 5, 9}, four_cores_two_threads, launcher_lookup);  // 9: not this machine's
  EXPECT_FALSE(c.whole_machine);
  EXPECT_EQ(c.pus, (V{1, 5}));
  EXPECT_EQ(c.rule, "PUs 1,5 of 0-7: the process's CPU set at start (taskset, cgroup or launcher binding)");
  EXPECT_EQ(error_of([] { cws::detail::choose_cpus({9, 10}, four_cores_two_threads, launcher_lookup); }),
            "the process's CPU set (9-10) holds none of this machine's PUs (0-7)");
}

TEST(WorkerCpus, UnboundRanksShareTheCores) {
  const V all = {0, 1, 2, 3, 4, 5, 6, 7};
  launcher_env = {{"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}};
  auto c = cws::detail::choose_cpus(all, four_cores_two_threads, launcher_lookup);
  EXPECT_EQ(c.pus, (V{2, 3, 6, 7}));
  EXPECT_EQ(c.rule,
            "PUs 2-3,6-7 of 0-7: cores 2-3 of 4, the share of local rank 1 of 2 (OMPI_COMM_WORLD_LOCAL_RANK, "
            "OMPI_COMM_WORLD_LOCAL_SIZE; the process was not bound to a CPU set)");
  // MPICH / Intel MPI, three ranks on four cores: 1, 1 and 2 cores, disjoint.
  std::vector<V> shares;
  for (const char* r : {"0", "1", "2"}) {
    launcher_env = {{"MPI_LOCALRANKID", r}, {"MPI_LOCALNRANKS", "3"}};
    shares.push_back(cws::detail::choose_cpus(all, four_cores_two_threads, launcher_lookup).pus);
  }
  EXPECT_EQ(shares, (std::vector<V>{{0, 4}, {1, 5}, {2, 3, 6, 7}}));
  // More ranks than cores: ranks share cores evenly.
  shares.clear();
  for (const char* r : {"0", "1", "2"}) {
    launcher_env = {{"MV2_COMM_WORLD_LOCAL_RANK", r}, {"MV2_COMM_WORLD_LOCAL_SIZE", "3"}};
    shares.push_back(cws::detail::choose_cpus({0, 1}, {{0}, {1}}, launcher_lookup).pus);
  }
  EXPECT_EQ(shares, (std::vector<V>{{0}, {0}, {1}}));
  // srun: this node's entry of SLURM_TASKS_PER_NODE.
  launcher_env = {{"SLURM_LOCALID", "1"}, {"SLURM_NODEID", "2"}, {"SLURM_TASKS_PER_NODE", "1,2(x2),4"}};
  EXPECT_EQ(cws::detail::choose_cpus(all, four_cores_two_threads, launcher_lookup).pus, (V{2, 3, 6, 7}));
  launcher_env = {{"SLURM_LOCALID", "0"}, {"SLURM_NODEID", "0"}, {"SLURM_TASKS_PER_NODE", "1,2(x2),4"}};
  EXPECT_TRUE(cws::detail::choose_cpus(all, four_cores_two_threads, launcher_lookup).whole_machine);
}

TEST(WorkerCpus, MalformedLauncherVariablesAreOneClearError) {
  const V all = {0, 1, 2, 3, 4, 5, 6, 7};
  auto err = [&](std::map<std::string, std::string> env) {
    launcher_env = std::move(env);
    return error_of([&] { cws::detail::choose_cpus(all, four_cores_two_threads, launcher_lookup); });
  };
  EXPECT_EQ(err({{"OMPI_COMM_WORLD_LOCAL_RANK", "2"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}}),
            "OMPI_COMM_WORLD_LOCAL_RANK=2 with OMPI_COMM_WORLD_LOCAL_SIZE=2: the local rank must be below the local size");
  EXPECT_EQ(err({{"MPI_LOCALRANKID", "x"}, {"MPI_LOCALNRANKS", "2"}}),
            "MPI_LOCALRANKID=\"x\": expected a rank or rank count (cws places its workers by it)");
  EXPECT_EQ(err({{"SLURM_LOCALID", "0"}, {"SLURM_NODEID", "5"}, {"SLURM_TASKS_PER_NODE", "2(x2)"}}),
            "SLURM_TASKS_PER_NODE=\"2(x2)\" has no entry for SLURM_NODEID=5");
}

TEST(WorkerCpus, ThisProcess) {
  // Whatever rule applies here, the topology is built from those PUs only.
  const auto& c = cws::detail::worker_cpus();
  auto t = cws::topology::discover();
  EXPECT_EQ(t.cpu_rule(), c.rule);
  std::set<unsigned> pus;
  for (const auto& core : t.cores()) pus.insert(core.pus.begin(), core.pus.end());
  EXPECT_EQ(std::vector<unsigned>(pus.begin(), pus.end()), c.pus);
  EXPECT_EQ(cws::topology::synthetic("pack:2 core:1 pu:1").cpu_rule(), c.rule);
  // describe() says which rule applied.
  cws::runtime_config cfg;
  cfg.workers = 1;
  cws::runtime rt(cfg);
  EXPECT_NE(rt.describe().find("\ncpus:     " + c.rule + "\n"), std::string::npos) << rt.describe();
}

}  // namespace
