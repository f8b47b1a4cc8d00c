#pragma once
// The kinds of column of an app's table (report.hpp's column), named by
// what they show rather than by a scale and a precision, and the columns
// tables share, so that an app writes only its own:
//
//   namespace col = cws_apps::columns;
//   {col::as_is("variant", "variant"), col::milliseconds("copy ms", "copy_median_s", 2), col::percent("local %",
//   "local_share")}

#include <string>
#include <utility>
#include <vector>

#include "common/report.hpp"

namespace cws_apps {

namespace columns {

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

}  // namespace columns

// The variant, then its headline time (median_s) titled `title` and its
// fastest run (min_s, "min ms"), both in ms with `precision` decimals.
inline std::vector<column> time_columns(const std::string& title, int precision) {
  return {columns::as_is("variant", "variant"), columns::milliseconds(title, "median_s", precision),
          columns::milliseconds("min ms", "min_s", precision)};
}

// The locality columns: the measured phases' mean local share ("local %"),
// the last one's ("last %"), and the pages relocalized after them ("moved").
inline std::vector<column> locality_columns() {
  return {columns::percent("local %", "local_share"), columns::percent("last %", "local_share_last"),
          columns::as_is("moved", "pages_moved")};
}

// A time ratio (report::add_ratio), two decimals.
inline column ratio_column(const std::string& title, const std::string& key) { return columns::fixed(title, key); }

}  // namespace cws_apps
