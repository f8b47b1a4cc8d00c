#pragma once
// The output of an app: a human table, or (--json) exactly one JSON object on
// stdout: {"app", "params", "topology", "results": [{"variant", ...}, ...]}.
// The table is printed from the same JSON entries, so both always agree.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/bench_env.hpp"
#include "common/timing.hpp"

namespace cws_apps {

using json = nlohmann::ordered_json;  // ordered: keys print in the order they were set

// One table column: entry[key] * scale printed with `precision` decimals
// (strings as they are, missing values as "-").
struct column {
  std::string title;
  std::string key;
  double scale = 1;
  int precision = 3;
};

// A table of its own (report::print with tables): a title line (none when
// empty), then one row per JSON object of `rows`.
struct table {
  std::string title;
  json rows = json::array();
  std::vector<column> columns;
};

// Sets <prefix>median_s, <prefix>min_s and (without prefix) runs from s.
void put_timing(json& entry, const samples& s, const std::string& prefix = "");

// The breakdown of a cws variant's headline time (the wall clock around
// rt.run): <prefix>phase_wall_s, the phases' own mean wall_s, and
// <prefix>outside_wall_s, the mean rest of rt.run (fork, join, locality
// report, relocalization); with --phase-timeline, <prefix>phase_timeline,
// the medians of the timed phases' parts (timeline_figures::to_json).
void put_phase_breakdown(json& entry, const cws_phase_clock& clock, const std::string& prefix = "");

class report {
 public:
  report(std::string app, const bench_env& env, json params);

  // Appends the entry {"variant": variant} to "results" and returns it to be filled.
  // The reference stays valid until the next add().
  json& add(const std::string& variant);
  // Sets entry[name] = entry[key] / baseline[key] on every entry whose key is a
  // number; null when the baseline variant is absent or its value is zero.
  void add_ratio(const std::string& name, const std::string& key, std::string_view baseline_variant);

  // --json: the JSON object on stdout. Otherwise `caption`, the topology line,
  // the table and `notes` (one footnote per element) on stdout.
  void print(bool as_json, const std::string& caption, const std::vector<column>& columns,
             const std::vector<std::string>& notes) const;
  // The same with tables of the app's own making instead of the results
  // table (e.g. a figure per variant and size as a matrix), each followed by
  // an empty line; --json still prints the document.
  void print(bool as_json, const std::string& caption, const std::vector<table>& tables,
             const std::vector<std::string>& notes) const;

 private:
  // The JSON document (--json: returns false, nothing more to print), else
  // the caption and topology lines that start a table (returns true).
  bool print_head(bool as_json, const std::string& caption) const;
  json doc_;
  std::string topology_line_;
};

}  // namespace cws_apps
