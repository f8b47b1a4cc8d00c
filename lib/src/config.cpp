// runtime_config: the one place the CWS_* environment variables are parsed.
//
// Parsing is strict on purpose: a typo in a benchmark script ("CWS_WORKERS=8 "
// or "CWS_PIN=ture") must stop the run with a message naming the variable,
// not silently fall back to a default and produce misleading numbers.
// An empty variable counts as unset, so `CWS_WORKERS= ./app` restores the default.

#include "cws/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "cws/error.hpp"
#include "quoted.hpp"

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

// The value as it appears in an error message (quoted.hpp): one short line.
std::string quoted(std::string_view v) { return detail::quoted(v, 64); }

[[noreturn]] void reject(const char* name, std::string_view value, std::string_view expected) {
  throw error(fmt::format("{}={}: expected {}", name, quoted(value), expected));
}

// Whole-string unsigned parse in `base`. Refuses signs, spaces, trailing
// characters and overflow (std::from_chars alone accepts a partial match).
bool parse_unsigned(std::string_view s, int base, std::uint64_t& out) {
  if (s.empty() || s.front() == '+' || s.front() == '-') return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc{} && end == s.data() + s.size();
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

unsigned parse_ranged(const char* name, std::string_view v, std::uint64_t lo, std::uint64_t hi,
                      std::string_view expected) {
  std::uint64_t x = 0;
  if (!parse_unsigned(v, 10, x) || x < lo || x > hi) reject(name, v, expected);
  return static_cast<unsigned>(x);
}

bool parse_bool(const char* name, std::string_view v) {
  for (std::string_view yes : {"1", "true", "yes", "on"})
    if (iequals(v, yes)) return true;
  for (std::string_view no : {"0", "false", "no", "off"})
    if (iequals(v, no)) return false;
  reject(name, v, "1/0, true/false, yes/no or on/off");
}

idle_mode parse_idle(const char* name, std::string_view v) {
  for (idle_mode m : {idle_mode::adaptive, idle_mode::spin, idle_mode::sleep})
    if (iequals(v, to_string(m))) return m;
  reject(name, v, "adaptive, spin or sleep");
}

caller_pinning parse_pin_caller(const char* name, std::string_view v) {
  for (caller_pinning p : {caller_pinning::sticky, caller_pinning::phase, caller_pinning::off})
    if (iequals(v, to_string(p))) return p;
  reject(name, v, "sticky, phase or off");
}

page_backend parse_pages(const char* name, std::string_view v) {
  for (page_backend b : {page_backend::automatic, page_backend::kernel, page_backend::simulated})
    if (iequals(v, to_string(b))) return b;
  reject(name, v, "auto, kernel or simulated");
}

numa::page_mover parse_mover(const char* name, std::string_view v) {
  using numa::page_mover;
  for (page_mover m : {page_mover::automatic, page_mover::move_pages, page_mover::mbind})
    if (iequals(v, numa::to_string(m))) return m;
  reject(name, v, "auto, move_pages or mbind");
}

std::uint64_t parse_seed(const char* name, std::string_view v) {
  std::uint64_t x = 0;
  bool ok = (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) ? parse_unsigned(v.substr(2), 16, x)
                                                                          : parse_unsigned(v, 10, x);
  if (!ok) reject(name, v, "an unsigned 64-bit integer (decimal or 0x hex)");
  return x;
}

}  // namespace

namespace {

// One CWS_* variable: its name and how a set, non-empty value changes the config.
struct variable {
  const char* name;
  void (*apply)(runtime_config& cfg, const char* name, std::string_view value);
};

// Every CWS_* variable cws reads, in one table: parse_config applies it, and
// the misspelling check (unknown_variable_warnings) takes its names from it,
// so a knob added here is known everywhere at once. No other file reads a
// CWS_* variable.
constexpr variable variables[] = {
    {"CWS_WORKERS",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.workers = parse_ranged(n, v, 1, max_workers, fmt::format("a positive integer (1..{})", max_workers));
     }},
    // Validated when the topology is built (topology::synthetic).
    {"CWS_TOPOLOGY", [](runtime_config& c, const char*, std::string_view v) { c.topology = std::string(v); }},
    {"CWS_PIN", [](runtime_config& c, const char* n, std::string_view v) { c.pin = parse_bool(n, v); }},
    {"CWS_IDLE", [](runtime_config& c, const char* n, std::string_view v) { c.idle = parse_idle(n, v); }},
    {"CWS_NESTING",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.max_nesting = parse_ranged(n, v, 0, 1024, "an integer (0..1024)");
     }},
    {"CWS_SEED", [](runtime_config& c, const char* n, std::string_view v) { c.seed = parse_seed(n, v); }},
    {"CWS_RECORD", [](runtime_config& c, const char* n, std::string_view v) { c.record = parse_bool(n, v); }},
    {"CWS_AUDIT", [](runtime_config& c, const char* n, std::string_view v) { c.audit = parse_bool(n, v); }},
    {"CWS_EVOLVE_BOUND",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.replay.evolve_bound = parse_ranged(n, v, 1, 1000, "an integer (1..1000)");
     }},
    {"CWS_EVOLVE_SLOWDOWN",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.replay.evolve_slowdown_pct = parse_ranged(n, v, 0, 1000, "a percentage (1..1000), or 0 for never");
     }},
    {"CWS_STALL_MS",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.replay.stall_ms = parse_ranged(n, v, 1, 60000, "milliseconds (1..60000)");
     }},
    {"CWS_EVOLVE_RELOCALIZE",
     [](runtime_config& c, const char* n, std::string_view v) { c.replay.evolve_relocalize = parse_bool(n, v); }},
    {"CWS_EVOLVE_BALANCE",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.replay.evolve_balance_pct =
           parse_ranged(n, v, 0, 1000, "a percentage over 1/P (0..1000; 0 = balance not required)");
     }},
    {"CWS_ELIDE", [](runtime_config& c, const char* n, std::string_view v) { c.replay.elide = parse_bool(n, v); }},
    {"CWS_COARSEN_TRIES",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.replay.coarsen_tries = parse_ranged(n, v, 1, 64, "an integer (1..64)");
     }},
    {"CWS_TEMPLATE_TRIES",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.replay.template_tries = parse_ranged(n, v, 1, 1000, "an integer (1..1000; 1 = adopt the first run)");
     }},
    {"CWS_PAGES", [](runtime_config& c, const char* n, std::string_view v) { c.pages = parse_pages(n, v); }},
    {"CWS_PAGE_MOVER",
     [](runtime_config& c, const char* n, std::string_view v) { c.page_mover = parse_mover(n, v); }},
    {"CWS_BLOCKTIME",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.blocktime_us = parse_ranged(n, v, 0, 1000000, "microseconds (0..1000000; 0 = sleep at once)");
     }},
    {"CWS_PIN_CALLER",
     [](runtime_config& c, const char* n, std::string_view v) { c.pin_caller = parse_pin_caller(n, v); }},
    {"CWS_STACK_KIB",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.stack_kib = parse_ranged(n, v, 64, 4194304, "KiB (64..4194304)");
     }},
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
    {"CWS_HINTED_HET", [](runtime_config& c, const char* n, std::string_view v) { c.hinted.het = parse_bool(n, v); }},
    {"CWS_HINTED_HET_LIMIT",
     [](runtime_config& c, const char* n, std::string_view v) {
       c.hinted.het_limit = parse_ranged(n, v, 0, 1000000, "a task count (0..1000000)");
     }},
    {"CWS_HINTED_RELAXED",
     [](runtime_config& c, const char* n, std::string_view v) { c.hinted.relaxed = parse_bool(n, v); }},
};

// Optimal-string-alignment distance: insertions, deletions, substitutions and
// swaps of two neighbours cost 1 each, so CWS_IDEL is 1 away from CWS_IDLE.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::vector<std::string_view> known_variables() {
  std::vector<std::string_view> out;
  for (const variable& v : variables) out.emplace_back(v.name);
  return out;
}

std::vector<std::string> unknown_variable_warnings(const std::vector<std::string_view>& env_names) {
  std::vector<std::string> out;
  for (std::string_view name : env_names) {
    if (name.substr(0, 4) != "CWS_") continue;
    const variable* closest = nullptr;
    std::size_t best = 0;
    for (const variable& v : variables) {
      const std::size_t d = edit_distance(name, v.name);
      if (d == 0) {
        closest = nullptr;
        best = 0;
        break;
      }
      if (!closest || d < best) {
        closest = &v;
        best = d;
      }
    }
    if (best == 0) continue;  // a known name
    // A suggestion only when it is plausibly what was meant: at most a third
    // of the part after CWS_ differs (CWS_WORKER, CWS_IDEL, CWS_STACK_KB).
    const std::size_t tail = name.size() - 4;
    const std::string bare = detail::quoted(name, 64, false);  // one line, cut short, no quotes
    if (best <= std::max<std::size_t>(2, tail / 3))
      out.push_back(fmt::format("cws: warning: {} is not a cws variable (did you mean {}?)", bare, closest->name));
    else
      out.push_back(fmt::format("cws: warning: {} is not a cws variable (docs/tuning.md lists them)", bare));
  }
  return out;
}

runtime_config parse_config(runtime_config cfg, const char* (*lookup)(const char*)) {
  for (const variable& var : variables) {
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
