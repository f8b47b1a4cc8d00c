// cws-trace diff: schedule distance between two traces, i.e. the share of the
// work that ran on another worker / NUMA node. Each side is a trace file or
// FILE@PHASE[#ITERATION], which selects one run or all runs of a phase.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "cws/traces/export.hpp"

namespace cws::trace_cli {

namespace {

namespace st = cws::steal_tree;

// One side of a diff: the argument as given, the file it names and the runs
// it selects.
struct diff_side {
  std::string arg;  // as given
  std::string path;
  std::optional<std::string> phase;
  std::optional<std::uint64_t> iteration;
  tr::trace_file file;
  std::vector<std::size_t> runs;
};

// Parses FILE or FILE@PHASE[#ITERATION] and loads the file. An existing path
// is taken whole even if it contains '@', so such files stay usable; the last
// '@' and '#' split the rest. Selecting no run cannot be compared (exit 3).
diff_side parse_side(const std::string& arg) {
  diff_side s;
  s.arg = arg;
  s.path = arg;
  std::error_code ec;
  const auto at = arg.rfind('@');
  if (!std::filesystem::exists(arg, ec) && at != std::string::npos) {
    s.path = arg.substr(0, at);
    std::string spec = arg.substr(at + 1);
    const auto hash = spec.rfind('#');
    if (hash != std::string::npos) {
      const std::string k = spec.substr(hash + 1);
      // At most 19 digits always fits std::uint64_t, so stoull cannot throw.
      if (k.empty() || k.size() > 19 || k.find_first_not_of("0123456789") != std::string::npos)
        fail(exit_usage, fmt::format("'{}': iteration '{}' is not a number (expected FILE@PHASE#ITERATION)", arg, k));
      s.iteration = std::stoull(k);
      spec.resize(hash);
    }
    if (!spec.empty()) s.phase = spec;
  }
  s.file = load(s.path);
  s.runs = tr::select(s.file, s.phase, s.iteration);
  if (s.runs.empty())
    fail(exit_not_comparable,
         fmt::format("'{}': no phase run matches{}", arg, s.file.phases.empty() ? " (the file holds none)" : ""));
  return s;
}

// "schedule#iteration": how runs are named in the report and paired across sides.
std::string run_key(const st::phase_record& r) { return fmt::format("{}#{}", r.schedule, r.iteration); }

}  // namespace

int cmd_diff(const std::string& a_arg, const std::string& b_arg) {
  const diff_side a = parse_side(a_arg);
  const diff_side b = parse_side(b_arg);
  const std::uint32_t wa = a.file.header.options.workers, wb = b.file.header.options.workers;
  if (wa != wb)
    fail(exit_not_comparable,
         fmt::format("cannot compare: {} was recorded with {} workers, {} with {}", a.path, wa, b.path, wb));

  // Pairs: a single run on each side is compared whatever its name; otherwise
  // runs are paired by (schedule, iteration) and both sides must hold the same set.
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  if (a.runs.size() == 1 && b.runs.size() == 1) {
    pairs.emplace_back(a.runs[0], b.runs[0]);
  } else {
    std::map<std::string, std::size_t> in_b;
    for (std::size_t i : b.runs) in_b.emplace(run_key(b.file.phases[i]), i);
    for (std::size_t i : a.runs) {
      const std::string key = run_key(a.file.phases[i]);
      auto it = in_b.find(key);
      if (it == in_b.end())
        fail(exit_not_comparable, fmt::format("cannot compare: {} has phase run {}, {} does not", a.arg, key, b.arg));
      pairs.emplace_back(i, it->second);
      in_b.erase(it);
    }
    if (!in_b.empty())
      fail(exit_not_comparable,
           fmt::format("cannot compare: {} has phase run {}, {} does not", b.arg, in_b.begin()->first, a.arg));
  }

  const std::vector<std::uint32_t> nodes = a.file.header.node_of_worker();
  const bool same_nodes = nodes == b.file.header.node_of_worker();
  struct row {
    std::string a, b;
    st::distance d;
  };
  std::vector<row> rows;
  double moved_worker = 0, moved_node = 0;
  std::uint64_t work = 0;
  for (const auto& [i, j] : pairs) {
    const st::phase_record& ra = a.file.phases[i];
    const st::phase_record& rb = b.file.phases[j];
    st::distance d;
    try {
      d = st::schedule_distance(ra.steals, rb.steals, nodes);
    } catch (const cws::error& e) {
      fail(exit_not_comparable, fmt::format("cannot compare {} with {}: {}", run_key(ra), run_key(rb), e.what()));
    }
    rows.push_back({run_key(ra), run_key(rb), d});
    moved_worker += d.moved_worker * static_cast<double>(d.work);
    moved_node += d.moved_node * static_cast<double>(d.work);
    work += d.work;
  }
  if (work > 0) {
    moved_worker /= static_cast<double>(work);
    moved_node /= static_cast<double>(work);
  } else if (!rows.empty()) {
    for (const row& r : rows) moved_worker += r.d.moved_worker, moved_node += r.d.moved_node;
    moved_worker /= static_cast<double>(rows.size());
    moved_node /= static_cast<double>(rows.size());
  }

  if (g_json_output) {
    json list = json::array();
    for (const row& r : rows)
      list.push_back({{"a", r.a},
                      {"b", r.b},
                      {"moved_worker", r.d.moved_worker},
                      {"moved_node", r.d.moved_node},
                      {"work", r.d.work},
                      {"exact", r.d.exact}});
    emit({{"ok", true},
          {"a", a.arg},
          {"b", b.arg},
          {"workers", wa},
          {"same_node_map", same_nodes},
          {"pairs", list},
          {"total", {{"moved_worker", moved_worker}, {"moved_node", moved_node}, {"work", work}}}});
    return exit_ok;
  }
  std::string out = fmt::format(
      "A: {}\nB: {}\n{} workers; schedule distance = share of the work that ran on another "
      "worker / NUMA node\n",
      a.arg, b.arg, wa);
  if (!same_nodes) out += "note: the two traces place workers on different NUMA nodes; A's map is used\n";
  std::size_t wa_col = 6, wb_col = 6;
  for (const row& r : rows) wa_col = std::max(wa_col, r.a.size()), wb_col = std::max(wb_col, r.b.size());
  out += fmt::format("\n{:<{}}  {:<{}}  {:>10}  {:>12}  {:>10}  {}\n", "run A", wa_col, "run B", wb_col, "work",
                     "moved worker", "moved node", "mode");
  for (const row& r : rows)
    out += fmt::format("{:<{}}  {:<{}}  {:>10}  {:>11.1f}%  {:>9.1f}%  {}\n", r.a, wa_col, r.b, wb_col, r.d.work,
                       100 * r.d.moved_worker, 100 * r.d.moved_node, r.d.exact ? "exact (audit)" : "segments");
  if (rows.size() > 1)
    out += fmt::format("{:<{}}  {:>10}  {:>11.1f}%  {:>9.1f}%\n", "total (weighted by work)", wa_col + wb_col + 2, work,
                       100 * moved_worker, 100 * moved_node);
  std::cout << out;
  return exit_ok;
}

}  // namespace cws::trace_cli
