#pragma once
// The machine as cws sees it: packages, NUMA nodes, L3 groups, cores and PUs,
// discovered with hwloc from this system or built from an hwloc synthetic
// description (CWS_TOPOLOGY). Workers are placed one per core, NUMA node 0
// first. For a synthetic topology, worker threads are pinned round-robin onto
// the real PUs of this machine; node numbers stay the virtual ones, so
// placement and locality accounting behave as on the described machine.
//
// "This machine" is the part of it the process may use (cpu_rule()): the CPU
// set it started with (taskset, a cgroup, an mpirun/srun binding), or, when
// it was not bound and a launcher says several ranks share the node, this
// rank's share of the cores. Workers are placed and pinned on those PUs only.

#include <string>
#include <vector>

namespace cws {

// The most workers a runtime runs (CWS_WORKERS, runtime_config::workers, and
// the default of one per core); a synthetic topology with more PUs is refused.
inline constexpr unsigned max_workers = 4096;

struct core_info {
  unsigned index;      // position in topology::cores() (worker-placement order)
  unsigned numa_node;  // logical NUMA node index
  unsigned l3_group;   // logical L3 index (== numa_node when there is no L3 level)
  unsigned package;
  std::vector<unsigned> pus;  // OS indices of the core's PUs in this topology
};

struct worker_placement {
  unsigned worker;
  unsigned core;  // index into topology::cores()
  unsigned numa_node;
  unsigned pin_pu;  // OS index of the real PU the thread is pinned to
};

class topology {
 public:
  // Discover this machine (description empty) or build a synthetic one.
  // Throws cws::error with hwloc's complaint when that fails.
  static topology discover();
  static topology synthetic(const std::string& description);

  unsigned packages() const noexcept { return packages_; }
  unsigned numa_nodes() const noexcept { return numa_nodes_; }
  unsigned l3_groups() const noexcept { return l3_groups_; }
  unsigned pus() const noexcept { return pus_; }
  const std::vector<core_info>& cores() const noexcept { return cores_; }

  bool is_synthetic() const noexcept { return synthetic_; }
  // "hwloc (this system)" or "synthetic \"pack:4 core:2\" (CWS_TOPOLOGY)".
  const std::string& source() const noexcept { return source_; }
  // One-line summary: "2 packages, 4 NUMA nodes, 4 L3 groups, 8 cores, 8 PUs".
  std::string summary() const;
  // Which of this machine's PUs the workers may use and why, e.g. "PUs 1 of
  // 0-1: the process's CPU set at start (taskset, cgroup or launcher binding)"
  // or "PUs 0-3 of 0-7: cores 0-3 of 8, the share of local rank 0 of 2 (...)".
  const std::string& cpu_rule() const noexcept { return cpu_rule_; }

  // The worker count when none is asked for: one per core, at most max_workers.
  unsigned default_workers() const noexcept;

  // Placement of `workers` workers: one per core in core order (node 0 first),
  // wrapping onto further PUs of each core when there are more workers than
  // cores. Throws cws::error when workers is 0 or exceeds pus().
  std::vector<worker_placement> place_workers(unsigned workers) const;

  // OS indices of the PUs of this real machine (the pinning targets), in the
  // real machine's placement order: one PU per core first, then the further
  // hardware threads, so round-robin pinning spreads over cores before sharing one.
  const std::vector<unsigned>& real_pus() const noexcept { return real_pus_; }

  // The OS (kernel) number of logical NUMA node `node`, e.g. for mbind. For a
  // synthetic topology these are hwloc's virtual numbers, which mean nothing
  // to the kernel. NUMA nodes without PUs (memory-only nodes) are not counted
  // as nodes of the topology: no worker runs there, so nothing is local to them.
  // Precondition: node < numa_nodes().
  unsigned numa_os_index(unsigned node) const noexcept { return numa_os_[node]; }

 private:
  topology() = default;
  unsigned packages_ = 0, numa_nodes_ = 0, l3_groups_ = 0, pus_ = 0;
  std::vector<core_info> cores_;
  std::vector<unsigned> real_pus_;
  std::vector<unsigned> numa_os_;  // OS index of each logical NUMA node
  bool synthetic_ = false;
  std::string source_;
  std::string cpu_rule_;
  bool restricted_ = false;  // built from part of this machine (cpu_rule_ says which part)
  friend struct topology_builder;
};

}  // namespace cws
