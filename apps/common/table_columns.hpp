#pragma once
// Columns that results tables (report.hpp) share, so that an app writes only
// its own: the variant and its time, and the time ratios.

#include <string>
#include <vector>

#include "common/report.hpp"

namespace cws_apps {

// The variant, then its headline time (median_s) titled `title` and its
// fastest run (min_s, "min ms"), both in ms with `precision` decimals.
inline std::vector<column> time_columns(const std::string& title, int precision) {
  return {{"variant", "variant"}, {title, "median_s", 1e3, precision}, {"min ms", "min_s", 1e3, precision}};
}

// A time ratio (report::add_ratio), two decimals.
inline column ratio_column(const std::string& title, const std::string& key) { return {title, key, 1, 2}; }

}  // namespace cws_apps
