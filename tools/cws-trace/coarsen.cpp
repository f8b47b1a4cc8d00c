// cws-trace coarsen: dynamic coarsening of recorded steal trees
// (cws::steal_tree::coarsen, DESIGN §4). Prunes the selected phase runs of a
// trace and writes the result as a trace file, ready to seed a replay.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "cws/steal_tree/coarsen.hpp"

namespace cws::trace_cli {

namespace st = cws::steal_tree;

int cmd_coarsen(const std::string& path, const std::string& output, const std::optional<std::uint32_t>& max_level,
                const std::optional<std::uint64_t>& min_tasks, const std::optional<std::string>& phase,
                const std::optional<std::uint64_t>& iteration) {
  if (!max_level && !min_tasks) fail(exit_usage, "coarsen: give --max-level, --min-tasks or both");
  tr::trace_file f = load(path);
  const std::vector<std::size_t> runs = selected_runs(f, path, phase, iteration);

  st::coarsen_options options;
  options.max_level = max_level;
  options.min_tasks = min_tasks.value_or(0);
  struct done {
    std::size_t index;
    st::coarsen_summary summary;
  };
  std::vector<done> report;
  report.reserve(runs.size());
  for (const std::size_t i : runs) {
    st::coarsen_summary s;
    try {
      f.phases[i].steals = st::coarsen(f.phases[i].steals, options, &s);
    } catch (const cws::error& e) {  // not expected after read() validated the file
      fail(exit_bad_input, fmt::format("{}: {}: {}", path, tr::run_label(f.phases[i]), e.what()));
    }
    report.push_back({i, s});
  }

  save_checked(output, f, f.header.archive);

  if (g_json_output) {
    json list = json::array();
    for (const done& d : report) {
      const st::phase_record& r = f.phases[d.index];
      const st::coarsen_summary& s = d.summary;
      list.push_back({{"index", d.index},
                      {"schedule", r.schedule},
                      {"iteration", r.iteration},
                      {"policy", r.policy},
                      {"segments_before", s.segments_before},
                      {"segments_after", s.segments_after},
                      {"steals_before", s.steals_before},
                      {"steals_after", s.steals_after},
                      {"dropped",
                       {{"level", s.dropped_level},
                        {"small", s.dropped_small},
                        {"deeper", s.dropped_deeper},
                        {"inside", s.dropped_inside}}}});
    }
    emit({{"ok", true},
          {"file", path},
          {"output", output},
          {"archive", tr::to_string(f.header.archive)},
          {"max_level", max_level ? json(*max_level) : json(nullptr)},
          {"min_tasks", min_tasks ? json(*min_tasks) : json(nullptr)},
          {"runs", list},
          {"bytes_out", file_bytes(output)}});
    return exit_ok;
  }
  std::string out;
  std::size_t width = 8;
  for (const done& d : report) width = std::max(width, tr::run_label(f.phases[d.index]).size());
  std::string criteria;
  if (max_level) criteria += fmt::format("max level {}", *max_level);
  if (min_tasks) criteria += fmt::format("{}min tasks {}", criteria.empty() ? "" : ", ", *min_tasks);
  out += fmt::format("coarsen {} ({}): {}\n", path, criteria, plural(report.size(), "phase run", "phase runs"));
  if (!report.empty())
    out += fmt::format("{:<{}}  {:>14}  {:>14}  {}\n", "run", width, "segments", "steals",
                       "dropped: level / small / deeper / inside");
  for (const done& d : report) {
    const st::coarsen_summary& s = d.summary;
    out += fmt::format("{:<{}}  {:>14}  {:>14}  {} / {} / {} / {}\n", tr::run_label(f.phases[d.index]), width,
                       fmt::format("{} -> {}", s.segments_before, s.segments_after),
                       fmt::format("{} -> {}", s.steals_before, s.steals_after), s.dropped_level, s.dropped_small,
                       s.dropped_deeper, s.dropped_inside);
  }
  out += fmt::format("wrote {} ({} archive, {} bytes)\n", output, tr::to_string(f.header.archive), file_bytes(output));
  std::cout << out;
  return exit_ok;
}

}  // namespace cws::trace_cli
