#pragma once
// out = the formatted text, reusing out's storage (no allocation once it is
// large enough), where fmt::format would build a new string: the policies
// rewrite their reports' strings every phase. Formatted into a stack buffer
// and copied once: appending through std::back_inserter goes a character at
// a time (fmt 9: 112-125 ns for "no balanced run yet: {} of {} tried",
// against 75-82 ns this way).

#include <fmt/format.h>

#include <string>
#include <utility>

namespace cws::schedulers::detail {

template <class... Args>
void format_into(std::string& out, fmt::format_string<Args...> f, Args&&... args) {
  fmt::memory_buffer text;  // 500 characters inline: longer notes spill to the heap
  fmt::format_to(fmt::appender(text), f, std::forward<Args>(args)...);
  out.assign(text.data(), text.size());
}

}  // namespace cws::schedulers::detail
