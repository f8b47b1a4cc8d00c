#include "pinning.hpp"

#include <fmt/format.h>
#include <hwloc.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

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

}  // namespace

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
