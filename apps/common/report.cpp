#include "common/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace cws_apps {

void put_timing(json& entry, const samples& s, const std::string& prefix) {
  entry[prefix + "median_s"] = s.median();
  entry[prefix + "min_s"] = s.min();
  entry["runs"] = s.size();
}

void put_phase_breakdown(json& entry, const cws_phase_clock& clock, const std::string& prefix) {
  entry[prefix + "phase_wall_s"] = clock.wall_s();
  entry[prefix + "outside_wall_s"] = clock.outside_wall_s();
  if (clock.timeline().calls() > 0) entry[prefix + "phase_timeline"] = clock.timeline().to_json();
}

report::report(std::string app, const bench_env& env, json params) : topology_line_(env.topology_line()) {
  doc_["app"] = std::move(app);
  doc_["params"] = std::move(params);
  doc_["topology"] = env.topology_json();
  doc_["results"] = json::array();
}

json& report::add(const std::string& variant) {
  json& results = doc_["results"];
  results.push_back({{"variant", variant}});
  return results.back();
}

void report::add_ratio(const std::string& name, const std::string& key, std::string_view baseline_variant) {
  json& results = doc_["results"];
  const json* base = nullptr;
  for (const json& e : results)
    if (e.value("variant", "") == baseline_variant && e.contains(key) && e[key].is_number()) base = &e;
  const double denominator = base ? (*base)[key].get<double>() : 0.0;
  for (json& e : results) {
    if (!e.contains(key) || !e[key].is_number()) continue;
    if (denominator == 0.0)
      e[name] = nullptr;
    else
      e[name] = e[key].get<double>() / denominator;
  }
}

namespace {

std::string cell(const json& entry, const column& c) {
  if (!entry.contains(c.key) || entry[c.key].is_null()) return "-";
  const json& v = entry[c.key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_integer() && c.scale == 1) return fmt::format("{}", v.get<long long>());
  return fmt::format("{:.{}f}", v.get<double>() * c.scale, c.precision);
}

// The rows of `results` under the column titles.
void print_table(const json& results, const std::vector<column>& columns) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::size_t> width;
  for (const column& c : columns) width.push_back(c.title.size());
  for (const json& e : results) {
    auto& row = rows.emplace_back();
    for (std::size_t i = 0; i < columns.size(); ++i) {
      row.push_back(cell(e, columns[i]));
      width[i] = std::max(width[i], row.back().size());
    }
  }
  // First column (the variant) left-aligned, figures right-aligned.
  auto print_row = [&](const std::vector<std::string>& r) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i)
      line += i == 0 ? fmt::format("{:<{}}", r[i], width[i]) : fmt::format("  {:>{}}", r[i], width[i]);
    fmt::print("{}\n", line);
  };
  std::vector<std::string> titles;
  for (const column& c : columns) titles.push_back(c.title);
  print_row(titles);
  for (const auto& r : rows) print_row(r);
}

}  // namespace

bool report::print_head(bool as_json, const std::string& caption) const {
  if (as_json) {
    fmt::print("{}\n", doc_.dump(2));
    std::fflush(stdout);
    return false;
  }
  fmt::print("{}\n{}\n\n", caption, topology_line_);
  return true;
}

void report::print(bool as_json, const std::string& caption, const std::vector<column>& columns,
                   const std::vector<std::string>& notes) const {
  if (!print_head(as_json, caption)) return;
  print_table(doc_["results"], columns);
  if (!notes.empty()) fmt::print("\n");
  for (const std::string& n : notes) fmt::print("{}\n", n);
  std::fflush(stdout);
}

void report::print(bool as_json, const std::string& caption, const std::vector<table>& tables,
                   const std::vector<std::string>& notes) const {
  if (!print_head(as_json, caption)) return;
  for (const table& t : tables) {
    if (!t.title.empty()) fmt::print("{}\n", t.title);
    print_table(t.rows, t.columns);
    fmt::print("\n");
  }
  for (const std::string& n : notes) fmt::print("{}\n", n);
  std::fflush(stdout);
}

}  // namespace cws_apps
