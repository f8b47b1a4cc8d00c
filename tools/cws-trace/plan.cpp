// cws-trace plan: balanced templates made offline (cws::steal_tree::plan)
// from the audit runs of a trace, written as a trace file that
// runtime::load_traces seeds as templates (each schedule gets its latest run).

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
#include "cws/steal_tree/plan.hpp"

namespace cws::trace_cli {

namespace {

namespace st = cws::steal_tree;

bool audited(const st::phase_record& r) { return !r.steals.audit.empty(); }

// The runs to plan: --run N (that run), else the latest audit run of
// --schedule NAME, else the latest audit run of every schedule (in file order).
std::vector<std::size_t> runs_to_plan(const tr::trace_file& f, const std::string& path,
                                      const std::optional<std::string>& schedule,
                                      const std::optional<std::size_t>& run) {
  const auto& phases = f.phases;
  if (run) {
    if (*run >= phases.size())
      fail(exit_usage,
           fmt::format("{}: no phase run #{} (the file has {})", path, *run, plural(phases.size(), "run", "runs")));
    if (schedule && phases[*run].schedule != *schedule)
      fail(exit_usage,
           fmt::format("{}: run #{} is of schedule '{}', not '{}'", path, *run, phases[*run].schedule, *schedule));
    if (!audited(phases[*run]))
      fail(exit_bad_input, fmt::format("{}: run #{} ({}) has no audit records to plan from (record it with "
                                       "CWS_AUDIT=1)",
                                       path, *run, tr::run_label(phases[*run])));
    return {*run};
  }
  if (schedule && std::none_of(phases.begin(), phases.end(), [&](const auto& r) { return r.schedule == *schedule; }))
    fail(exit_usage, fmt::format("{}: no phase run of schedule '{}'", path, *schedule));
  std::vector<std::size_t> chosen;  // latest audit run per schedule
  for (std::size_t i = phases.size(); i-- > 0;) {
    const st::phase_record& r = phases[i];
    if (!audited(r) || (schedule && r.schedule != *schedule)) continue;
    if (std::none_of(chosen.begin(), chosen.end(), [&](std::size_t k) { return phases[k].schedule == r.schedule; }))
      chosen.push_back(i);
  }
  if (chosen.empty())
    fail(exit_bad_input, fmt::format("{}: no phase run{} has audit records to plan from (record it with CWS_AUDIT=1)",
                                     path, schedule ? fmt::format(" of schedule '{}'", *schedule) : ""));
  std::reverse(chosen.begin(), chosen.end());
  return chosen;
}

json balance_json(const st::balance& b) {
  return {{"tasks", b.tasks}, {"max_share_ratio", b.max_share_ratio}, {"idle_workers", b.idle_workers}};
}

}  // namespace

int cmd_plan(const std::string& path, const std::string& output, const std::optional<std::string>& schedule,
             const std::optional<std::size_t>& run, double tolerance) {
  const tr::trace_file in = load(path);
  const std::vector<std::size_t> runs = runs_to_plan(in, path, schedule, run);

  // Workers by NUMA node, as the runtime orders them (schedule_store::plan).
  std::vector<cws::worker_placement> by_node = in.header.placement;
  std::stable_sort(by_node.begin(), by_node.end(),
                   [](const auto& a, const auto& b) { return a.numa_node < b.numa_node; });
  st::plan_options options;
  options.tolerance = tolerance;
  for (const cws::worker_placement& p : by_node) options.worker_order.push_back(p.worker);

  // The output holds one run per planned schedule: its recorded run with the
  // plan as the tree (no audit, no locality: the plan has not run yet).
  tr::trace_file out;
  out.header = in.header;
  std::vector<st::plan_summary> summaries;
  for (const std::size_t i : runs) {
    st::phase_record r = in.phases[i];
    st::plan_summary s;
    try {
      r.steals = st::plan(r.steals, options, &s);
    } catch (const cws::error& e) {
      fail(exit_bad_input, fmt::format("{}: {}: {}", path, tr::run_label(r), e.what()));
    }
    r.locality.reset();
    r.relocalizations.clear();
    out.phases.push_back(std::move(r));
    summaries.push_back(s);
  }
  save_checked(output, out, in.header.archive);

  if (g_json_output) {
    json list = json::array();
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const st::phase_record& r = in.phases[runs[k]];
      const st::plan_summary& s = summaries[k];
      list.push_back({{"index", runs[k]},
                      {"schedule", r.schedule},
                      {"iteration", r.iteration},
                      {"policy", r.policy},
                      {"method", st::to_string(s.method)},
                      {"steals_before", s.steals_before},
                      {"steals_after", s.steals_after},
                      {"before", balance_json(s.before)},
                      {"after", balance_json(s.after)},
                      {"balanced", s.balanced}});
    }
    emit({{"ok", true},
          {"file", path},
          {"output", output},
          {"archive", tr::to_string(in.header.archive)},
          {"tolerance", tolerance},
          {"runs", list},
          {"bytes_out", file_bytes(output)}});
    return exit_ok;
  }
  std::size_t width = 8;
  for (const std::size_t i : runs) width = std::max(width, tr::run_label(in.phases[i]).size());
  std::string text =
      fmt::format("plan {} (tolerance {:.2f}): {}\n", path, tolerance, plural(runs.size(), "phase run", "phase runs"));
  text += fmt::format("{:>4}  {:<{}}  {:<12}  {:>10}  {:<20}  {:<20}  {}\n", "#", "run", width, "method", "steals",
                      "balance before", "balance after", "balanced");
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const st::plan_summary& s = summaries[k];
    text +=
        fmt::format("{:>4}  {:<{}}  {:<12}  {:>10}  {:<20}  {:<20}  {}\n", runs[k], tr::run_label(in.phases[runs[k]]),
                    width, st::to_string(s.method), fmt::format("{} -> {}", s.steals_before, s.steals_after),
                    balance_cell(s.before), balance_cell(s.after), s.balanced ? "yes" : "no");
  }
  text += fmt::format("wrote {} ({} archive, {} bytes): load it with runtime::load_traces to seed {}\n", output,
                      tr::to_string(in.header.archive), file_bytes(output),
                      runs.size() == 1 ? "its schedule" : "the schedules");
  std::cout << text;
  return exit_ok;
}

}  // namespace cws::trace_cli
