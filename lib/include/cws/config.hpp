#pragma once
// Every tuning knob of the core, in one struct, and the settings of the
// components above it (extensions). `runtime_config::from_env()` is the only
// place environment variables are read; a bad value throws cws::error naming
// the variable, the value and what is accepted, and a CWS_* name that no
// registered table knows (cws/env_knobs.hpp) gets a warning naming the closest one.
//
//   CWS_WORKERS   number of workers, 1..4096 (default: one per core of the topology,
//                 i.e. of the PUs the process may use, see topology.hpp)
//   CWS_TOPOLOGY  hwloc synthetic topology, e.g. "pack:4 numa:1 core:2 pu:1" (at most 4096 PUs)
//   CWS_PIN       1 = pin each worker to its core (default), 0 = do not pin
//   CWS_IDLE      adaptive (spin, then yield, then sleep; default) | spin | sleep
//   CWS_NESTING   max nested segments a worker blocked in sync may start (default 16)
//   CWS_SEED      seed of the victim-selection generators (default 0x5eed)
//   CWS_RECORD    1 = record a steal tree of every phase (default), 0 = off
//   CWS_AUDIT     1 = also record (segment, level, step, worker) of every task
//                 (tests and small runs only; default 0)
// Phase fork/join and long runs:
//   CWS_BLOCKTIME  microseconds a helper keeps spinning (then yielding) on the
//                  phase epoch after a phase before it sleeps (default 50;
//                  0 = sleep at once; the longest accepted is 1000000)
//   CWS_PIN_CALLER how the thread calling rt.run() is pinned as worker 0:
//                  sticky (default: pinned at its first phase and kept until the
//                  runtime is destroyed; threads it creates meanwhile still
//                  start with its original CPU set) | phase (pinned on entry,
//                  restored on exit of every phase: two system calls per phase) |
//                  off (never pinned)
//   CWS_STACK_KIB  stack size of the helper threads in KiB (default 8192; the
//                  calling thread keeps its own, see runtime::describe())
//   CWS_HISTORY    runs kept per schedule by the recorder and the schedule store
//                  (default 4; older runs are dropped, or streamed with CWS_TRACE)
//   CWS_TRACE      stream every phase record to this trace file as phases complete
//                  (crash-safe: a killed program leaves every completed phase readable)
// Data placement (page_homes.hpp, locality.hpp):
//   CWS_PAGES       auto (default: kernel on a discovered machine, simulated on a
//                   synthetic topology) | kernel | simulated
//   CWS_PAGE_MOVER  how the kernel backend moves pages: auto (default) | move_pages | mbind
// Place tree (the `hinted` and `hinted-hpt` policies, place_tree.hpp):
//   CWS_HPT              an HClib-style HPT XML file describing the place tree
//                        (default: built from the topology)
//
// The knobs of the replay and hinted policies (CWS_EVOLVE_*, CWS_STALL_MS,
// CWS_ELIDE, CWS_COARSEN_TRIES, CWS_HINTED_*) belong to cws::schedulers:
// cws/schedulers/knobs.hpp lists them. from_env parses them too when the
// schedulers are linked (cws::cws), through the same table type and parsers
// (cws/env_knobs.hpp), and keeps them in runtime_config::extensions.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cws/env_knobs.hpp"  // known_variables, unknown_variable_warnings
#include "cws/extension_settings.hpp"
#include "cws/page_homes.hpp"
#include "cws/topology.hpp"  // max_workers

namespace cws {

// What an idle worker does while a phase runs. Between phases workers always sleep.
enum class idle_mode {
  adaptive,  // spin briefly, then yield, then sleep until woken (or a short timeout)
  spin,      // spin and yield, never sleep inside a phase (lowest latency, burns the core)
  sleep,     // sleep almost at once (friendliest to other processes)
};

std::string_view to_string(idle_mode m) noexcept;

// How the calling thread of rt.run() is pinned while it is worker 0.
enum class caller_pinning {
  sticky,  // pin at the first phase, restore when the runtime is destroyed (no system call per phase)
  phase,   // pin on entry and restore on exit of every phase
  off,     // never pin the calling thread
};
std::string_view to_string(caller_pinning p) noexcept;

// Which page-home backend the runtime uses (page_homes.hpp).
enum class page_backend {
  automatic,  // kernel on a discovered topology where it works, else simulated
  kernel,     // the kernel's homes; an error on a synthetic topology or without NUMA support
  simulated,  // a table of homes (always available)
};
std::string_view to_string(page_backend b) noexcept;

struct runtime_config {
  unsigned workers = 0;                 // 0 = one per core of the topology (at most max_workers)
  std::optional<std::string> topology;  // hwloc synthetic description; empty = this machine
  bool pin = true;
  idle_mode idle = idle_mode::adaptive;
  unsigned max_nesting = 16;
  std::uint64_t seed = 0x5eed;
  bool record = true;
  bool audit = false;
  std::optional<std::string> hpt_file;  // CWS_HPT: the place tree from this HPT XML file
  page_backend pages = page_backend::automatic;
  numa::page_mover page_mover = numa::page_mover::automatic;
  unsigned blocktime_us = 50;
  caller_pinning pin_caller = caller_pinning::sticky;
  std::size_t stack_kib = 8192;
  unsigned history = 4;  // runs kept per schedule (>= 1)
  // Bytes the recorded runs of all schedules may hold (CWS_HISTORY_MB): past
  // it the oldest runs go first, whatever `history` allows; each schedule's
  // latest run always stays. 0 = no byte bound.
  std::size_t history_bytes = std::size_t{256} << 20;
  std::optional<std::string> trace_path;  // stream phase records here (runtime::trace_to)
  // The settings of the components above the core, e.g. cws::schedulers'
  // knobs: cws::schedulers::knobs_of(cfg).replay.evolve_bound = 3.
  extension_settings extensions;

  // Defaults overridden by the CWS_* variables that are set.
  static runtime_config from_env();
  // Same, but `base` supplies the defaults instead of the built-in ones.
  static runtime_config from_env(runtime_config base);
};

// The parser behind from_env, exposed for tests: applies every registered
// table (the core's and, with cws::cws, the schedulers'); `lookup(name)`
// returns the variable's value or nullptr.
runtime_config parse_config(runtime_config base, const char* (*lookup)(const char*));

// The same, and also the misspelling check from_env makes: `env_names` are the
// names of the variables set (from_env passes every name in `environ`), and
// `warnings` gets one line per CWS_* name that is not a cws variable, with the
// closest known name when one is close:
//   cws: warning: CWS_WORKER is not a cws variable (did you mean CWS_WORKERS?)
// from_env prints these on stderr, once per process.
runtime_config parse_config(runtime_config base, const char* (*lookup)(const char*),
                            const std::vector<std::string_view>& env_names, std::vector<std::string>& warnings);

}  // namespace cws
