#pragma once
// Thread pinning on the real machine, and the process-wide hwloc topology of
// this machine that pinning (and topology::discover) use.
//
// Pinning always targets real PUs by OS index, whatever topology the runtime
// shows (a synthetic topology maps its workers onto real PUs first, see
// topology::place_workers). Private to cws::core.

#include <memory>
#include <string>
#include <vector>

struct hwloc_topology;
struct hwloc_bitmap_s;

namespace cws::detail {

// This machine's hwloc topology, loaded on first use (thread-safe) and then
// only read, which hwloc allows concurrently. Throws cws::error when hwloc
// cannot load it; a later call tries again.
hwloc_topology* machine_topology();

// The PUs of this machine the runtime's workers may use, and the rule that
// chose them (topology::discover builds the topology from these PUs only, so
// the default worker count is one per core of them):
//   1. the process's CPU set at start (sched_getaffinity: taskset, numactl, a
//      cgroup, an mpirun/srun binding) when it is narrower than the machine;
//   2. else, when a launcher says several ranks share this node
//      (OMPI_COMM_WORLD_LOCAL_RANK/_SIZE, MV2_COMM_WORLD_LOCAL_RANK/_SIZE,
//      MPI_LOCALRANKID/MPI_LOCALNRANKS, SLURM_LOCALID with SLURM_TASKS_PER_NODE
//      and SLURM_NODEID), local rank r of n gets the r-th of n equal shares of
//      the cores (hwloc logical order; ranks share a core only when there are
//      more ranks than cores);
//   3. else the whole machine.
struct cpu_choice {
  std::vector<unsigned> pus;  // OS indices, ascending
  std::string rule;           // one line, for describe()
  bool whole_machine = true;  // rule 3: pus are all of the machine's
};

// The rule, on given inputs (tests): `start` the process's CPU set, `cores`
// the PU OS indices of each core of the machine in hwloc logical order,
// `lookup` the launcher's variables (getenv). Throws cws::error when the CPU
// set holds none of the machine's PUs, or a launcher variable is malformed
// or inconsistent (a local rank not below the local size).
cpu_choice choose_cpus(const std::vector<unsigned>& start, const std::vector<std::vector<unsigned>>& cores,
                       const char* (*lookup)(const char*));

// The choice for this process: its CPU set when cws started, this machine,
// the real environment. Computed once (thread-safe); throws as choose_cpus.
const cpu_choice& worker_cpus();

// "0-3,8,10-11".
std::string cpu_list(const std::vector<unsigned>& pus);

// Binds the calling thread to the real PU with OS index `pu_os_index`.
// Throws cws::error when there is no such PU or the kernel refuses.
void pin_current_thread(unsigned pu_os_index);

// The CPU binding of one thread, so it can be put back: the calling thread of
// rt.run() becomes worker 0 and is pinned for the phase, but it belongs to the
// user and must leave the phase with the affinity it came with.
class thread_binding {
 public:
  // The calling thread's current binding. Throws cws::error if hwloc cannot read it.
  static thread_binding save_current();
  // Rebinds the calling thread to the saved set. Throws cws::error on failure.
  void restore() const;

 private:
  struct bitmap_free {
    void operator()(hwloc_bitmap_s* b) const noexcept;
  };
  explicit thread_binding(hwloc_bitmap_s* set) : set_(set) {}
  std::unique_ptr<hwloc_bitmap_s, bitmap_free> set_;
};

}  // namespace cws::detail
