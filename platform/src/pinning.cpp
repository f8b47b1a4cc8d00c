#include "cws/platform/pinning.hpp"

#include <fmt/format.h>
#include <hwloc.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cws/error.hpp"

static_assert(HWLOC_API_VERSION >= 0x00020000, "cws needs the hwloc 2.x API");

namespace cws::detail {
namespace {

// Owns the loaded topology for the lifetime of the process.
struct machine {
  hwloc_topology_t topo = nullptr;

  machine() {
    // Built against 2.x but running with a 1.x library would misread every object.
    if ((hwloc_get_api_version() >> 16) != (HWLOC_API_VERSION >> 16))
      throw error(fmt::format("hwloc library version {:#x} does not match the {:#x} API cws was built with",
                              hwloc_get_api_version(), HWLOC_API_VERSION));
    if (hwloc_topology_init(&topo) != 0) throw error("hwloc_topology_init failed: cannot discover this machine");
    if (hwloc_topology_load(topo) != 0) {
      int e = errno;
      hwloc_topology_destroy(topo);
      throw error(fmt::format("hwloc could not discover this machine: {}", std::strerror(e)));
    }
  }
  ~machine() { hwloc_topology_destroy(topo); }
  machine(const machine&) = delete;
  machine& operator=(const machine&) = delete;
};

std::string bitmap_string(hwloc_const_bitmap_t set) {
  char* s = nullptr;
  if (hwloc_bitmap_list_asprintf(&s, set) < 0 || !s) return "?";
  std::string out = s;
  std::free(s);
  return out;
}

// The calling thread's CPU set, ascending OS indices; empty when the kernel
// will not say. A raw system call: cws interposes sched_getaffinity.
std::vector<unsigned> read_affinity() {
  std::array<unsigned long, 8192 / (8 * sizeof(unsigned long))> bits{};
  const long n = ::syscall(SYS_sched_getaffinity, 0, sizeof(bits), bits.data());
  std::vector<unsigned> out;
  if (n <= 0) return out;
  const std::size_t words = static_cast<std::size_t>(n) / sizeof(unsigned long);
  constexpr unsigned per_word = 8 * sizeof(unsigned long);
  for (std::size_t w = 0; w < words && w < bits.size(); ++w)
    for (unsigned b = 0; b < per_word; ++b)
      if (bits[w] >> b & 1UL) out.push_back(static_cast<unsigned>(w * per_word + b));
  return out;
}

// The process's CPU set when cws started: read on first use, and forced at
// static initialisation below, so the main thread's set is taken before any
// thread (worker 0 included) is pinned, whichever thread starts a runtime.
const std::vector<unsigned>& start_affinity() {
  static const std::vector<unsigned> set = read_affinity();
  return set;
}
[[maybe_unused]] const bool start_affinity_read = (start_affinity(), true);

// A launcher's unsigned variable: nullopt when unset or empty, an error when malformed.
std::optional<unsigned> launcher_number(const char* (*lookup)(const char*), const char* name) {
  const char* v = lookup ? lookup(name) : nullptr;
  if (!v || !*v) return std::nullopt;
  const std::string_view s(v);
  unsigned x = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc{} || end != s.data() + s.size() || x > 1u << 20)
    throw error(fmt::format("{}=\"{}\": expected a rank or rank count (cws places its workers by it)", name,
                            s.substr(0, 32)));
  return x;
}

// SLURM_TASKS_PER_NODE ("2(x3),1": 2 tasks on each of 3 nodes, then 1) at node `node`.
std::optional<unsigned> slurm_tasks_on(std::string_view list, unsigned node) {
  unsigned seen = 0;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    unsigned tasks = 0, repeat = 1;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), tasks);
    if (ec != std::errc{}) return std::nullopt;
    std::string_view rest(end, static_cast<std::size_t>(item.data() + item.size() - end));
    if (!rest.empty()) {
      if (rest.size() < 4 || rest.substr(0, 2) != "(x" || rest.back() != ')') return std::nullopt;
      auto [e2, ec2] = std::from_chars(rest.data() + 2, rest.data() + rest.size() - 1, repeat);
      if (ec2 != std::errc{} || e2 != rest.data() + rest.size() - 1) return std::nullopt;
    }
    if (node < seen + repeat) return tasks;
    seen += repeat;
  }
  return std::nullopt;
}

struct local_rank {
  unsigned rank = 0, size = 1;
  std::string source;  // the variables it came from
};

// This rank's place among the ranks of its node, from the launcher's variables.
std::optional<local_rank> local_rank_of(const char* (*lookup)(const char*)) {
  static constexpr std::array<std::array<const char*, 2>, 3> pairs = {{
      {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},  // Open MPI
      {"MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE"},    // MVAPICH2
      {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},                        // MPICH and Intel MPI (Hydra)
  }};
  for (const auto& [rank_name, size_name] : pairs) {
    const auto rank = launcher_number(lookup, rank_name);
    const auto size = launcher_number(lookup, size_name);
    if (!rank || !size) continue;
    if (*size == 0 || *rank >= *size)
      throw error(fmt::format("{}={} with {}={}: the local rank must be below the local size", rank_name, *rank,
                              size_name, *size));
    return local_rank{*rank, *size, fmt::format("{}, {}", rank_name, size_name)};
  }
  // srun: the local id, and this node's entry of the per-node task counts.
  const auto id = launcher_number(lookup, "SLURM_LOCALID");
  const auto node = launcher_number(lookup, "SLURM_NODEID");
  const char* per_node = lookup ? lookup("SLURM_TASKS_PER_NODE") : nullptr;
  if (!id || !node || !per_node || !*per_node) return std::nullopt;
  const auto size = slurm_tasks_on(per_node, *node);
  if (!size)
    throw error(fmt::format("SLURM_TASKS_PER_NODE=\"{}\" has no entry for SLURM_NODEID={}",
                            std::string_view(per_node).substr(0, 64), *node));
  if (*size == 0 || *id >= *size)
    throw error(fmt::format("SLURM_LOCALID={} with {} tasks on node {} (SLURM_TASKS_PER_NODE): the local id must be "
                            "below the task count",
                            *id, *size, *node));
  return local_rank{*id, *size, "SLURM_LOCALID, SLURM_TASKS_PER_NODE, SLURM_NODEID"};
}

}  // namespace

std::string cpu_list(const std::vector<unsigned>& pus) {
  std::string out;
  for (std::size_t i = 0; i < pus.size();) {
    std::size_t j = i;
    while (j + 1 < pus.size() && pus[j + 1] == pus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", pus[i]) : fmt::format("{}-{}", pus[i], pus[j]);
    i = j + 1;
  }
  return out;
}

cpu_choice choose_cpus(const std::vector<unsigned>& start, const std::vector<std::vector<unsigned>>& cores,
                       const char* (*lookup)(const char*)) {
  std::vector<unsigned> machine;
  for (const auto& c : cores) machine.insert(machine.end(), c.begin(), c.end());
  std::sort(machine.begin(), machine.end());

  // 1. A narrower CPU set at start: its PUs only. (An empty one means the
  //    kernel would not say: the whole machine.)
  std::vector<unsigned> given;
  std::set_intersection(machine.begin(), machine.end(), start.begin(), start.end(), std::back_inserter(given));
  if (!start.empty() && given.size() < machine.size()) {
    if (given.empty())
      throw error(fmt::format("the process's CPU set ({}) holds none of this machine's PUs ({})", cpu_list(start),
                              cpu_list(machine)));
    return cpu_choice{given,
                      fmt::format("PUs {} of {}: the process's CPU set at start (taskset, cgroup or launcher binding)",
                                  cpu_list(given), cpu_list(machine)),
                      false};
  }

  // 2. Unbound, but several ranks on this node: an equal share of the cores each.
  if (const auto lr = local_rank_of(lookup); lr && lr->size > 1) {
    const std::size_t n = lr->size, c = cores.size();
    const std::size_t first = lr->rank * c / n;
    const std::size_t last = std::max(first + 1, (lr->rank + 1) * c / n);  // one past
    std::vector<unsigned> share;
    for (std::size_t k = first; k < last && k < c; ++k) share.insert(share.end(), cores[k].begin(), cores[k].end());
    std::sort(share.begin(), share.end());
    return cpu_choice{share,
                      fmt::format("PUs {} of {}: {} of {}, the share of local rank {} of {} ({}; the process was "
                                  "not bound to a CPU set)",
                                  cpu_list(share), cpu_list(machine),
                                  last - first == 1 ? fmt::format("core {}", first)
                                                    : fmt::format("cores {}-{}", first, last - 1),
                                  c, lr->rank, lr->size, lr->source),
                      false};
  }

  // 3. Everything.
  return cpu_choice{machine, fmt::format("PUs {}: the whole machine", cpu_list(machine)), true};
}

const cpu_choice& worker_cpus() {
  static std::mutex m;
  static std::optional<cpu_choice> choice;  // stays empty when choose_cpus throws: the next call says it again
  std::lock_guard lock(m);
  if (choice) return *choice;
  hwloc_topology_t t = machine_topology();
  std::map<hwloc_obj_t, std::size_t> slot;  // core -> position, in hwloc logical order of the PUs
  std::vector<std::vector<unsigned>> cores;
  for (hwloc_obj_t pu = nullptr; (pu = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PU, pu));) {
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
    if (!core) core = pu;  // a PU without a Core above it is a core of its own (as topology.cpp counts)
    auto [it, fresh] = slot.try_emplace(core, cores.size());
    if (fresh) cores.emplace_back();
    cores[it->second].push_back(pu->os_index);
  }
  choice = choose_cpus(start_affinity(), cores, [](const char* name) -> const char* { return std::getenv(name); });
  return *choice;
}

hwloc_topology* machine_topology() {
  // A throwing constructor leaves the static uninitialised, so the next call retries.
  static machine m;
  return m.topo;
}

void pin_current_thread(unsigned pu_os_index) {
  hwloc_topology_t topo = machine_topology();
  hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, pu_os_index);
  if (!pu)
    throw error(fmt::format("cannot pin to PU {}: this machine has no such PU (available: {})", pu_os_index,
                            bitmap_string(hwloc_topology_get_allowed_cpuset(topo))));
  if (hwloc_set_cpubind(topo, pu->cpuset, HWLOC_CPUBIND_THREAD) != 0)
    throw error(fmt::format("cannot pin thread to PU {}: {}", pu_os_index, std::strerror(errno)));
}

void thread_binding::bitmap_free::operator()(hwloc_bitmap_s* b) const noexcept { hwloc_bitmap_free(b); }

thread_binding thread_binding::save_current() {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (!set) throw error("cannot save the thread's CPU binding: out of memory");
  thread_binding saved(set);  // owns `set` from here on
  if (hwloc_get_cpubind(machine_topology(), set, HWLOC_CPUBIND_THREAD) != 0)
    throw error(fmt::format("cannot read the thread's CPU binding: {}", std::strerror(errno)));
  return saved;
}

void thread_binding::restore() const {
  if (!set_) throw error("cannot restore a thread binding that was moved from");
  if (hwloc_set_cpubind(machine_topology(), set_.get(), HWLOC_CPUBIND_THREAD) != 0)
    throw error(fmt::format("cannot restore the thread's CPU binding to PUs {}: {}", bitmap_string(set_.get()),
                            std::strerror(errno)));
}

}  // namespace cws::detail
