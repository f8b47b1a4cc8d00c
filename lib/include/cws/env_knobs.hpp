#pragma once
// CWS_* environment variables: the one table type every layer describes its
// variables with, the parsers their values go through, and the registry of
// every layer's table.
//
// A layer (the core in config.cpp, cws::schedulers in schedulers/src/knobs.cpp)
// writes a table of {name, apply} rows and adds it to the registry once
// (add_table). runtime_config::from_env() and parse_config() then apply every
// registered table, and the misspelling check knows every registered name, so
// a knob is parsed with the same strictness and reported with the same
// one-line error (NAME="value": expected <what is accepted>) whichever layer
// owns it. The tables of the components linked through cws::cws are
// registered before the registry is first read (cws_register_components()).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cws {

struct runtime_config;

namespace env_knobs {

// One CWS_* variable: its name, and how a set, non-empty value changes the
// config. `apply` throws cws::error (through reject) for a bad value.
struct knob {
  const char* name;
  void (*apply)(runtime_config& cfg, const char* name, std::string_view value);
};

// Adds `table` (of static storage) to the registry; a table added before is
// not added again. Safe from any thread.
void add_table(std::span<const knob> table);

// Every registered knob: the core's first, then each layer's table in the
// order they were added.
std::vector<knob> registered();

// ------------------------------------------------------------------ parsers
// Each either returns the value or throws cws::error naming the variable, the
// value (quoted, on one line) and what is accepted.

[[noreturn]] void reject(const char* name, std::string_view value, std::string_view expected);

// Whole-string unsigned parse in `base`: no sign, space, trailing character or overflow.
bool parse_unsigned(std::string_view s, int base, std::uint64_t& out);

// ASCII case-insensitive equality.
bool iequals(std::string_view a, std::string_view b);

// A decimal integer in lo..hi; `expected` says what is accepted.
unsigned parse_ranged(const char* name, std::string_view value, std::uint64_t lo, std::uint64_t hi,
                      std::string_view expected);

// 1/0, true/false, yes/no or on/off, in any case.
bool parse_bool(const char* name, std::string_view value);

// "a, b or c": how an error message lists the accepted words.
std::string one_of(const std::vector<std::string_view>& words);

// One of `choices`, named by its to_string (found by argument-dependent
// lookup) in any case; the error lists every choice's name.
template <class Enum, std::size_t N>
Enum parse_enum(const char* name, std::string_view value, const Enum (&choices)[N]) {
  std::vector<std::string_view> words;
  for (Enum e : choices) {
    if (iequals(value, to_string(e))) return e;
    words.push_back(to_string(e));
  }
  reject(name, value, one_of(words));
}

}  // namespace env_knobs

// Every CWS_* variable cws reads: the names of every registered table.
std::vector<std::string_view> known_variables();

// One warning line per CWS_* name in `env_names` that is not a known
// variable, with the closest known name when one is close:
//   cws: warning: CWS_WORKER is not a cws variable (did you mean CWS_WORKERS?)
std::vector<std::string> unknown_variable_warnings(const std::vector<std::string_view>& env_names);

}  // namespace cws
