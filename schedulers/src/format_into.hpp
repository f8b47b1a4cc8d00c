#pragma once
// out = the formatted text, reusing out's storage (no allocation once it is
// large enough), where fmt::format would build a new string: the policies
// rewrite their reports' strings every phase.

#include <fmt/format.h>

#include <iterator>
#include <string>
#include <utility>

namespace cws::schedulers::detail {

template <class... Args>
void format_into(std::string& out, fmt::format_string<Args...> f, Args&&... args) {
  out.clear();
  fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
}

}  // namespace cws::schedulers::detail
