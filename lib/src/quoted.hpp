#pragma once
// A user's string as an error message shows it: on one line (quotes and
// backslashes escaped, bytes outside printable ASCII as \xNN) and cut after
// `max_shown` bytes ("..." says so), so that a hostile or mistyped value
// keeps the message a single readable line. Used for CWS_* values and names
// and for schedule names.

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace cws::detail {

// `"text"`, or `"text"...` when cut; `quotes = false` leaves the quotes out.
inline std::string quoted(std::string_view v, std::size_t max_shown, bool quotes = true) {
  std::string out = quotes ? "\"" : "";
  for (std::size_t i = 0; i < v.size() && i < max_shown; ++i) {
    const auto c = static_cast<unsigned char>(v[i]);
    if (c == '"' || c == '\\')
      out += {'\\', static_cast<char>(c)};
    else if (c < 0x20 || c >= 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  if (quotes) out += '"';
  if (v.size() > max_shown) out += "...";
  return out;
}

}  // namespace cws::detail
