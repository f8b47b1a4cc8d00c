// cws-trace locality: the data-locality side of a trace (format version 3):
// per phase run with a locality report, where its touched bytes lived, and
// what the relocalizations that followed the run moved.

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
#include "locality_format.hpp"

namespace cws::trace_cli {

namespace st = cws::steal_tree;

int cmd_locality(const std::string& path, const std::optional<std::string>& phase,
                 const std::optional<std::uint64_t>& iteration, const run_window& window) {
  const tr::trace_file f = load(path);
  // A selection matching no run is a usage error (as everywhere); runs
  // without a report are simply not listed.
  std::vector<std::size_t> runs;
  for (const std::size_t i : selected_runs(f, path, phase, iteration))
    if (f.phases[i].locality) runs.push_back(i);
  const std::size_t with_report = runs.size();
  window.apply(runs);  // the first / last of the runs with a report

  if (g_json_output) {
    json list = json::array();
    for (const std::size_t i : runs) {
      const st::phase_record& r = f.phases[i];
      list.push_back({{"index", i},
                      {"schedule", r.schedule},
                      {"iteration", r.iteration},
                      {"policy", r.policy},
                      {"locality", locality_json(*r.locality)},
                      {"relocalizations", relocalizations_json(r.relocalizations)}});
    }
    emit({{"ok", true}, {"file", path}, {"format_version", f.header.format_version}, {"runs", list}});
    return exit_ok;
  }

  if (runs.empty()) {
    // Not an error: most programs declare no touches. Say why there is nothing.
    std::string why = "no task declared what it touches";
    if (f.header.format_version < 3)
      why = fmt::format("format version {} predates locality reports", f.header.format_version);
    std::cout << fmt::format("{}: no locality reports ({}{})\n", path, why,
                             phase || iteration ? ", in the selected runs" : "");
    return exit_ok;
  }

  std::size_t wname = 8, wpol = 6;
  for (const std::size_t i : runs)
    wname = std::max(wname, f.phases[i].schedule.size()), wpol = std::max(wpol, f.phases[i].policy.size());
  std::string out = fmt::format(
      "{}: {} with a locality report{}\n\n", path, plural(with_report, "phase run", "phase runs"),
      runs.size() < with_report ? fmt::format(", the {} {} listed", window.first ? "first" : "last", runs.size()) : "");
  // local / unknown: shares of the touched bytes (unknown = on a page whose
  // home the backend could not tell; never counted as local). Each
  // relocalization made from a run's touches follows it on its own line.
  out += fmt::format("{:>4}  {:<{}}  {:>5}  {:<{}}  {:>8}  {:>10}  {:>6}  {:>7}  {}\n", "#", "schedule", wname, "iter",
                     "policy", wpol, "pages", "touched MB", "local", "unknown", "per node (local)");
  for (const std::size_t i : runs) {
    const st::phase_record& r = f.phases[i];
    const cws::locality_report& l = *r.locality;
    out += fmt::format("{:>4}  {:<{}}  {:>5}  {:<{}}  {:>8}  {:>10.3f}  {:>6}  {:>7}  {}\n", i, r.schedule, wname,
                       r.iteration, r.policy, wpol, l.pages, megabytes(l.touched_bytes), percent(l.share()),
                       percent(share_of(l.unknown_bytes, l.touched_bytes)), per_node_shares(l));
    for (const cws::relocalization_report& x : r.relocalizations)
      out += fmt::format("{:>4}  relocalized: {}\n", "", describe_relocalization(x));
  }
  std::cout << out;
  return exit_ok;
}

}  // namespace cws::trace_cli
