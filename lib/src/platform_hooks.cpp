// The core's answers to the platform layer's questions (cws/platform/runtime_hooks.hpp):
// which topology NUMA allocations use, and which node the calling worker is on.
// Installed during static initialization; cws::core's link options name
// cws_core_platform_hooks (`-u`), so this object is linked into every program
// that links the core, whether or not it names anything here.

#include "cws/config.hpp"
#include "cws/detail/entry.hpp"
#include "cws/platform/runtime_hooks.hpp"
#include "cws/runtime.hpp"
#include "cws/topology.hpp"

namespace {

const cws::topology* running_topology() noexcept {
  const cws::runtime* rt = cws::runtime::current();
  return rt ? &rt->topology() : nullptr;
}

cws::topology configured_topology() {
  const cws::runtime_config cfg = cws::runtime_config::from_env();
  return cfg.topology ? cws::topology::synthetic(*cfg.topology) : cws::topology::discover();
}

int worker_node() noexcept {
  const cws::detail::worker* w = cws::detail::tls_worker;
  return w ? static_cast<int>(cws::detail::worker_numa_node(*w)) : -1;
}

const bool installed = (cws::platform::install({&running_topology, &configured_topology, &worker_node}), true);

}  // namespace

// Named by cws::core's `-u` link option (lib/CMakeLists.txt).
extern "C" const bool* cws_core_platform_hooks() noexcept { return &installed; }
