#pragma once
// The leaf size of the apps whose loops run over blocks of rows (or tiles,
// or planes): an option whose 0 asks for about 16 leaves per worker, and
// block_rows, which resolves it once the worker count is known. The rule
// lives here once, in the code and in the help text of every such option.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstddef>
#include <string>

#include "common/bounded_option.hpp"

namespace cws_apps {

// Rows (or tiles) per leaf block: `asked`, at most `rows`; when 0, rows /
// (16 x workers), at least 1.
inline std::size_t block_rows(std::size_t asked, std::size_t rows, unsigned workers) {
  return asked == 0 ? std::max<std::size_t>(1, rows / (16 * std::size_t{workers})) : std::min(asked, rows);
}

// Option `name`, a leaf size in [0, most] that block_rows resolves; its help
// reads "<what> (0: <rows> / (16 x workers))<more>", `rows` naming the count
// block_rows divides.
inline CLI::Option* add_block_rows_option(CLI::App& app, const std::string& name, std::size_t& value,
                                          const std::string& what, const std::string& rows, std::size_t most,
                                          const std::string& more = "") {
  return add_bounded_option(app, name, value, what + " (0: " + rows + " / (16 x workers))" + more, std::size_t{0},
                            most);
}

}  // namespace cws_apps
