#pragma once
// The names of pcg's enumerations (coefficient kinds, preconditioners), both
// ways, from one table per enumeration: the flags' values, the JSON params
// and the schedule key spell them so.

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace pcg {

template <class E, std::size_t N>
using name_table = std::array<std::pair<E, const char*>, N>;

// The name of `value`; "?" for a value the table lacks.
template <class E, std::size_t N>
const char* name_in(const name_table<E, N>& names, E value) noexcept {
  for (const auto& [v, name] : names)
    if (v == value) return name;
  return "?";
}

// The value named `s`; throws std::invalid_argument "unknown <what> '<s>' (<every name>)".
template <class E, std::size_t N>
E value_in(const name_table<E, N>& names, const std::string& s, const char* what) {
  std::string known;
  for (const auto& [v, name] : names) {
    if (s == name) return v;
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  throw std::invalid_argument("unknown " + std::string(what) + " '" + s + "' (" + known + ")");
}

}  // namespace pcg
