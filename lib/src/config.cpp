// runtime_config: the core's CWS_* variables, and the parse of every
// registered table (cws/env_knobs.hpp) from the environment.
//
// Parsing is strict on purpose: a typo in a benchmark script ("CWS_WORKERS=8 "
// or "CWS_PIN=ture") must stop the run with a message naming the variable,
// not silently fall back to a default and produce misleading numbers.
// An empty variable counts as unset, so `CWS_WORKERS= ./app` restores the default.

#include "cws/config.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include "core_knobs.hpp"
#include "cws/env_knobs.hpp"

extern char** environ;  // POSIX: the process environment (from_env scans it for misspelt names)

namespace cws {

std::string_view to_string(idle_mode m) noexcept {
  switch (m) {
    case idle_mode::adaptive:
      return "adaptive";
    case idle_mode::spin:
      return "spin";
    case idle_mode::sleep:
      return "sleep";
  }
  return "unknown";
}

std::string_view to_string(caller_pinning p) noexcept {
  switch (p) {
    case caller_pinning::sticky:
      return "sticky";
    case caller_pinning::phase:
      return "phase";
    case caller_pinning::off:
      return "off";
  }
  return "unknown";
}

std::string_view to_string(page_backend b) noexcept {
  switch (b) {
    case page_backend::automatic:
      return "auto";
    case page_backend::kernel:
      return "kernel";
    case page_backend::simulated:
      return "simulated";
  }
  return "unknown";
}

std::string_view numa::to_string(numa::page_mover m) noexcept {
  switch (m) {
    case numa::page_mover::automatic:
      return "auto";
    case numa::page_mover::move_pages:
      return "move_pages";
    case numa::page_mover::mbind:
      return "mbind";
  }
  return "unknown";
}

namespace {

using env_knobs::parse_bool;
using env_knobs::parse_enum;
using env_knobs::parse_ranged;

std::uint64_t parse_seed(const char* name, std::string_view v) {
  std::uint64_t x = 0;
  const bool ok = (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
                      ? env_knobs::parse_unsigned(v.substr(2), 16, x)
                      : env_knobs::parse_unsigned(v, 10, x);
  if (!ok) env_knobs::reject(name, v, "an unsigned 64-bit integer (decimal or 0x hex)");
  return x;
}

constexpr idle_mode idle_modes[] = {idle_mode::adaptive, idle_mode::spin, idle_mode::sleep};
constexpr caller_pinning caller_pinnings[] = {caller_pinning::sticky, caller_pinning::phase, caller_pinning::off};
constexpr page_backend page_backends[] = {page_backend::automatic, page_backend::kernel, page_backend::simulated};
constexpr numa::page_mover page_movers[] = {numa::page_mover::automatic, numa::page_mover::move_pages,
                                            numa::page_mover::mbind};

// The core's CWS_* variables, first in the knob registry (env_knobs.cpp):
// parse_config applies every registered table, and the misspelling check
// takes its names from them, so a knob added here is known everywhere at
// once. The schedulers' knobs are in their own table
// (schedulers/src/knobs.cpp). No other file of the core reads a CWS_* variable.
constexpr env_knobs::knob variables[] = {
    {"CWS_WORKERS",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.workers = parse_ranged(n, v, 1, max_workers, fmt::format("a positive integer (1..{})", max_workers));
     }},
    // Validated when the topology is built (topology::synthetic).
    {"CWS_TOPOLOGY", [](runtime_config& c, const char*, std::string_view v) { c.topology = std::string(v); }},
    {"CWS_PIN", [](runtime_config& c, const char* n, std::string_view v) { c.pin = parse_bool(n, v); }},
    {"CWS_IDLE", [](runtime_config& c, const char* n, std::string_view v) { c.idle = parse_enum(n, v, idle_modes); }},
    {"CWS_NESTING", [](runtime_config& c, const char* n,
                       std::string_view v) { c.max_nesting = parse_ranged(n, v, 0, 1024, "an integer (0..1024)"); }},
    {"CWS_SEED", [](runtime_config& c, const char* n, std::string_view v) { c.seed = parse_seed(n, v); }},
    {"CWS_RECORD", [](runtime_config& c, const char* n, std::string_view v) { c.record = parse_bool(n, v); }},
    {"CWS_AUDIT", [](runtime_config& c, const char* n, std::string_view v) { c.audit = parse_bool(n, v); }},
    {"CWS_PAGES",
     [](runtime_config& c, const char* n, std::string_view v) { c.pages = parse_enum(n, v, page_backends); }},
    {"CWS_PAGE_MOVER",
     [](runtime_config& c, const char* n, std::string_view v) { c.page_mover = parse_enum(n, v, page_movers); }},
    {"CWS_BLOCKTIME",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.blocktime_us = parse_ranged(n, v, 0, 1000000, "microseconds (0..1000000; 0 = sleep at once)");
     }},
    {"CWS_PIN_CALLER",
     [](runtime_config& c, const char* n, std::string_view v) { c.pin_caller = parse_enum(n, v, caller_pinnings); }},
    {"CWS_STACK_KIB", [](runtime_config& c, const char* n,
                         std::string_view v) { c.stack_kib = parse_ranged(n, v, 64, 4194304, "KiB (64..4194304)"); }},
    {"CWS_HISTORY",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.history = parse_ranged(n, v, 1, 1000000, "runs per schedule (1..1000000)");
     }},
    {"CWS_HISTORY_MB",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.history_bytes = std::size_t{parse_ranged(n, v, 0, 1048576, "MiB (0..1048576; 0 = no bound)")} << 20;
     }},
    {"CWS_TRACE", [](runtime_config& c, const char*, std::string_view v) { c.trace_path = std::string(v); }},
    // Read when the runtime starts.
    {"CWS_HPT", [](runtime_config& c, const char*, std::string_view v) { c.hpt_file = std::string(v); }},
};

}  // namespace

std::span<const env_knobs::knob> detail::core_knobs() noexcept { return variables; }

runtime_config parse_config(runtime_config cfg, const char* (*lookup)(const char*)) {
  for (const env_knobs::knob& var : env_knobs::registered()) {
    const char* v = lookup ? lookup(var.name) : nullptr;
    if (v && *v) var.apply(cfg, var.name, v);  // an empty variable counts as unset
  }
  return cfg;
}

runtime_config parse_config(runtime_config base, const char* (*lookup)(const char*),
                            const std::vector<std::string_view>& env_names, std::vector<std::string>& warnings) {
  runtime_config cfg = parse_config(std::move(base), lookup);
  std::vector<std::string> found = unknown_variable_warnings(env_names);
  warnings.insert(warnings.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
  return cfg;
}

runtime_config runtime_config::from_env() { return from_env(runtime_config{}); }

runtime_config runtime_config::from_env(runtime_config base) {
  runtime_config cfg = parse_config(std::move(base), [](const char* name) -> const char* { return std::getenv(name); });
  // Misspelt names, once per process (every runtime reads the environment).
  static std::once_flag warned;
  std::call_once(warned, [] {
    std::vector<std::string_view> names;
    for (char** e = environ; e && *e; ++e) {
      std::string_view entry(*e);
      names.push_back(entry.substr(0, entry.find('=')));
    }
    for (const std::string& w : unknown_variable_warnings(names)) std::fprintf(stderr, "%s\n", w.c_str());
  });
  return cfg;
}

}  // namespace cws
