// The CWS_* knob registry, the parsers of knob values, and the misspelling
// check over every registered name (cws/env_knobs.hpp).

#include "cws/env_knobs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <mutex>
#include <system_error>

#include "components_hook.hpp"
#include "core_knobs.hpp"
#include "cws/error.hpp"
#include "quoted.hpp"

namespace cws {

namespace {

struct table_registry {
  std::mutex mutex;
  std::vector<std::span<const env_knobs::knob>> tables{detail::core_knobs()};
};

table_registry& tables() {
  static table_registry r;
  return r;
}

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
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

void env_knobs::add_table(std::span<const knob> table) {
  table_registry& r = tables();
  std::lock_guard lock(r.mutex);
  for (const auto& t : r.tables)
    if (t.data() == table.data()) return;
  r.tables.push_back(table);
}

std::vector<env_knobs::knob> env_knobs::registered() {
  detail::register_components();  // before the lock: registering adds tables
  table_registry& r = tables();
  std::lock_guard lock(r.mutex);
  std::vector<knob> out;
  for (const auto& t : r.tables) out.insert(out.end(), t.begin(), t.end());
  return out;
}

void env_knobs::reject(const char* name, std::string_view value, std::string_view expected) {
  throw error(fmt::format("{}={}: expected {}", name, detail::quoted(value, 64), expected));
}

bool env_knobs::parse_unsigned(std::string_view s, int base, std::uint64_t& out) {
  if (s.empty() || s.front() == '+' || s.front() == '-') return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc{} && end == s.data() + s.size();  // std::from_chars alone accepts a partial match
}

bool env_knobs::iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

unsigned env_knobs::parse_ranged(const char* name, std::string_view value, std::uint64_t lo, std::uint64_t hi,
                                 std::string_view expected) {
  std::uint64_t x = 0;
  if (!parse_unsigned(value, 10, x) || x < lo || x > hi) reject(name, value, expected);
  return static_cast<unsigned>(x);
}

bool env_knobs::parse_bool(const char* name, std::string_view value) {
  for (std::string_view yes : {"1", "true", "yes", "on"})
    if (iequals(value, yes)) return true;
  for (std::string_view no : {"0", "false", "no", "off"})
    if (iequals(value, no)) return false;
  reject(name, value, "1/0, true/false, yes/no or on/off");
}

std::string env_knobs::one_of(const std::vector<std::string_view>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? " or " : ", ";
    out += words[i];
  }
  return out;
}

std::vector<std::string_view> known_variables() {
  std::vector<std::string_view> out;
  for (const env_knobs::knob& k : env_knobs::registered()) out.emplace_back(k.name);
  return out;
}

std::vector<std::string> unknown_variable_warnings(const std::vector<std::string_view>& env_names) {
  const std::vector<std::string_view> known = known_variables();
  std::vector<std::string> out;
  for (std::string_view name : env_names) {
    if (name.substr(0, 4) != "CWS_") continue;
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string_view closest;
    std::size_t best = 0;
    for (std::string_view k : known) {
      const std::size_t d = edit_distance(name, k);
      if (closest.empty() || d < best) {
        closest = k;
        best = d;
      }
    }
    // A suggestion only when it is plausibly what was meant: at most a third
    // of the part after CWS_ differs (CWS_WORKER, CWS_IDEL, CWS_STACK_KB).
    const std::size_t tail = name.size() - 4;
    const std::string bare = detail::quoted(name, 64, false);  // one line, cut short, no quotes
    if (!closest.empty() && best <= std::max<std::size_t>(2, tail / 3))
      out.push_back(fmt::format("cws: warning: {} is not a cws variable (did you mean {}?)", bare, closest));
    else
      out.push_back(fmt::format("cws: warning: {} is not a cws variable (docs/tuning.md lists them)", bare));
  }
  return out;
}

}  // namespace cws
