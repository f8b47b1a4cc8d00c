#pragma once
// The kinds of column of an app's table (report.hpp's column), named by
// what they show rather than by a scale and a precision:
//
//   namespace col = cws_apps::columns;
//   {col::as_is("variant", "variant"), col::milliseconds("copy ms", "copy_median_s", 2), col::percent("local %",
//   "local_share")}

#include <string>
#include <utility>

#include "common/report.hpp"

namespace cws_apps::columns {

// Strings as they are, counts and booleans.
inline column as_is(std::string title, std::string key) { return {std::move(title), std::move(key)}; }
// Seconds shown in milliseconds.
inline column milliseconds(std::string title, std::string key, int precision = 3) {
  return {std::move(title), std::move(key), 1e3, precision};
}
// A share in [0, 1] shown in percent.
inline column percent(std::string title, std::string key, int precision = 1) {
  return {std::move(title), std::move(key), 100, precision};
}
// A number with `precision` decimals (GB/s, ratios).
inline column fixed(std::string title, std::string key, int precision = 2) {
  return {std::move(title), std::move(key), 1, precision};
}

}  // namespace cws_apps::columns
