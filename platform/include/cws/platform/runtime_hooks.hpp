#pragma once
// What the platform layer asks of the runtime above it, without including it.
//
// Two calls of cws::numa need the runtime: an allocation made without a
// topology uses the running runtime's one (or the one a runtime started now
// would build, from its configuration), and numa::local places memory on the
// calling worker's node. The platform declares the questions here; the core
// answers them (lib/src/platform_hooks.cpp installs its answers before any
// program code runs: cws::core links that object in with `-u`). A program
// linking only cws::platform gets the fallbacks: the discovered topology, and
// the node of the CPU the thread runs on.

#include "cws/topology.hpp"

namespace cws::platform {

struct runtime_hooks {
  // The topology of the running runtime, or null when none runs.
  const topology* (*running_topology)() noexcept = nullptr;
  // The topology a runtime started now would use (its CWS_TOPOLOGY).
  topology (*configured_topology)() = nullptr;
  // The NUMA node the calling thread is placed on when it is a worker in a
  // phase (its runtime's placement, not its CPU); -1 for any other thread.
  int (*worker_node)() noexcept = nullptr;
};

// Installs the runtime's answers (the core, once, during static initialization).
void install(const runtime_hooks& hooks) noexcept;
const runtime_hooks& hooks() noexcept;

}  // namespace cws::platform
