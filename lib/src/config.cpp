// runtime_config: the one place the CWS_* environment variables are parsed.
//
// Parsing is strict on purpose: a typo in a benchmark script ("CWS_WORKERS=8 "
// or "CWS_PIN=ture") must stop the run with a message naming the variable,
// not silently fall back to a default and produce misleading numbers.
// An empty variable counts as unset, so `CWS_WORKERS= ./app` restores the default.

#include "cws/config.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <limits>
#include <string>
#include <system_error>

#include "cws/error.hpp"

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

// The value as it appears in an error message: quoted, on one line (control
// characters escaped) and cut short, so the message stays a single readable line.
std::string quoted(std::string_view v) {
  constexpr std::size_t max_shown = 64;
  std::string out = "\"";
  for (std::size_t i = 0; i < v.size() && i < max_shown; ++i) {
    unsigned char c = static_cast<unsigned char>(v[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  if (v.size() > max_shown) out += "...";
  out += '"';
  return out;
}

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

runtime_config parse_config(runtime_config cfg, const char* (*lookup)(const char*)) {
  // Set and non-empty, or nullopt-like empty view.
  auto get = [lookup](const char* name) -> std::string_view {
    const char* v = lookup ? lookup(name) : nullptr;
    return v ? std::string_view(v) : std::string_view();
  };

  if (auto v = get("CWS_WORKERS"); !v.empty())
    cfg.workers = parse_ranged("CWS_WORKERS", v, 1, 4096, "a positive integer (1..4096)");
  if (auto v = get("CWS_TOPOLOGY"); !v.empty())
    cfg.topology = std::string(v);  // validated by hwloc when the topology is built
  if (auto v = get("CWS_PIN"); !v.empty()) cfg.pin = parse_bool("CWS_PIN", v);
  if (auto v = get("CWS_IDLE"); !v.empty()) cfg.idle = parse_idle("CWS_IDLE", v);
  if (auto v = get("CWS_NESTING"); !v.empty())
    cfg.max_nesting = parse_ranged("CWS_NESTING", v, 0, 1024, "an integer (0..1024)");
  if (auto v = get("CWS_SEED"); !v.empty()) cfg.seed = parse_seed("CWS_SEED", v);
  if (auto v = get("CWS_RECORD"); !v.empty()) cfg.record = parse_bool("CWS_RECORD", v);
  if (auto v = get("CWS_AUDIT"); !v.empty()) cfg.audit = parse_bool("CWS_AUDIT", v);
  if (auto v = get("CWS_EVOLVE_BOUND"); !v.empty())
    cfg.replay.evolve_bound = parse_ranged("CWS_EVOLVE_BOUND", v, 1, 1000, "an integer (1..1000)");
  if (auto v = get("CWS_EVOLVE_SLOWDOWN"); !v.empty())
    cfg.replay.evolve_slowdown_pct =
        parse_ranged("CWS_EVOLVE_SLOWDOWN", v, 0, 1000, "a percentage (1..1000), or 0 for never");
  if (auto v = get("CWS_STALL_MS"); !v.empty())
    cfg.replay.stall_ms = parse_ranged("CWS_STALL_MS", v, 1, 60000, "milliseconds (1..60000)");
  if (auto v = get("CWS_EVOLVE_RELOCALIZE"); !v.empty())
    cfg.replay.evolve_relocalize = parse_bool("CWS_EVOLVE_RELOCALIZE", v);
  if (auto v = get("CWS_EVOLVE_BALANCE"); !v.empty())
    cfg.replay.evolve_balance_pct =
        parse_ranged("CWS_EVOLVE_BALANCE", v, 0, 1000, "a percentage over 1/P (0..1000; 0 = balance not required)");
  if (auto v = get("CWS_ELIDE"); !v.empty()) cfg.replay.elide = parse_bool("CWS_ELIDE", v);
  if (auto v = get("CWS_COARSEN_TRIES"); !v.empty())
    cfg.replay.coarsen_tries = parse_ranged("CWS_COARSEN_TRIES", v, 1, 64, "an integer (1..64)");
  if (auto v = get("CWS_PAGES"); !v.empty()) cfg.pages = parse_pages("CWS_PAGES", v);
  if (auto v = get("CWS_PAGE_MOVER"); !v.empty()) cfg.page_mover = parse_mover("CWS_PAGE_MOVER", v);
  if (auto v = get("CWS_BLOCKTIME"); !v.empty())
    cfg.blocktime_us = parse_ranged("CWS_BLOCKTIME", v, 0, 1000000, "microseconds (0..1000000; 0 = sleep at once)");
  if (auto v = get("CWS_PIN_CALLER"); !v.empty()) cfg.pin_caller = parse_pin_caller("CWS_PIN_CALLER", v);
  if (auto v = get("CWS_STACK_KIB"); !v.empty())
    cfg.stack_kib = parse_ranged("CWS_STACK_KIB", v, 64, 4194304, "KiB (64..4194304)");
  if (auto v = get("CWS_HISTORY"); !v.empty())
    cfg.history = parse_ranged("CWS_HISTORY", v, 1, 1000000, "runs per schedule (1..1000000)");
  if (auto v = get("CWS_HISTORY_MB"); !v.empty())
    cfg.history_bytes = std::size_t{parse_ranged("CWS_HISTORY_MB", v, 0, 1048576, "MiB (0..1048576; 0 = no bound)")}
                        << 20;
  if (auto v = get("CWS_TRACE"); !v.empty()) cfg.trace_path = std::string(v);
  if (auto v = get("CWS_HPT"); !v.empty()) cfg.hpt_file = std::string(v);  // read when the runtime starts
  if (auto v = get("CWS_HINTED_HET"); !v.empty()) cfg.hinted.het = parse_bool("CWS_HINTED_HET", v);
  if (auto v = get("CWS_HINTED_HET_LIMIT"); !v.empty())
    cfg.hinted.het_limit = parse_ranged("CWS_HINTED_HET_LIMIT", v, 0, 1000000, "a task count (0..1000000)");
  if (auto v = get("CWS_HINTED_RELAXED"); !v.empty()) cfg.hinted.relaxed = parse_bool("CWS_HINTED_RELAXED", v);
  return cfg;
}

runtime_config runtime_config::from_env() { return from_env(runtime_config{}); }

runtime_config runtime_config::from_env(runtime_config base) {
  return parse_config(std::move(base), [](const char* name) -> const char* { return std::getenv(name); });
}

}  // namespace cws
