// cws-trace info / show / tree / timeline: read one trace file and describe
// its phase runs, as tables, indented steal trees, Graphviz DOT or a Chrome
// trace-event timeline.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "cws/run_report.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "cws/steal_tree/balance.hpp"
#include "cws/traces/export.hpp"
#include "locality_format.hpp"

namespace cws::trace_cli {

namespace {

namespace st = cws::steal_tree;

std::string on_off(bool b) { return b ? "on" : "off"; }

// The --json shapes of info and show. Scripts and tests read these keys, so
// they are part of the interface.

json totals_json(const st::totals& t) {
  return {{"tasks", t.tasks}, {"steals", t.steals}, {"segments", t.segments}, {"depth", t.depth}};
}

// The place tree of the header (format version 6); null when not recorded.
json places_json(const tr::places_info& p) {
  if (p.empty()) return nullptr;
  return {{"summary", p.summary},
          {"source", p.source},
          {"numa_of_node", p.numa_of_node},
          {"node_of_worker", p.node_of_worker},
          {"leaf_of_worker", p.leaf_of_worker}};
}

// A run's hinted-policy counters summed over its workers (format version 6),
// and its elided spawns (version 5).
struct hinted_totals {
  std::uint64_t leaf = 0, node = 0, root = 0, het_inlined = 0, place_steals = 0, reclaimed = 0, elided = 0;
  bool any_hinted() const noexcept { return leaf + node + root + het_inlined + place_steals + reclaimed > 0; }
};

hinted_totals hinted_of(const st::phase_record& r) {
  hinted_totals t;
  for (const cws::worker_stats& s : r.stats) {
    t.leaf += s.hinted_leaf;
    t.node += s.hinted_node;
    t.root += s.hinted_root;
    t.het_inlined += s.het_inlined;
    t.place_steals += s.place_steals;
    t.reclaimed += s.reclaimed;
    t.elided += s.elided;
  }
  return t;
}

json header_json(const tr::trace_file& f, const std::string& path) {
  const tr::trace_header& h = f.header;
  json placement = json::array();
  for (const cws::worker_placement& p : h.placement)
    placement.push_back({{"worker", p.worker}, {"core", p.core}, {"numa_node", p.numa_node}, {"pu", p.pin_pu}});
  return {{"file", path},
          {"bytes", file_bytes(path)},
          {"format_version", h.format_version},
          {"archive", tr::to_string(h.archive)},
          {"cws_version", h.cws_version},
          {"host", h.host},
          {"created", h.created},
          {"topology",
           {{"summary", h.topology.summary},
            {"source", h.topology.source},
            {"synthetic", h.topology.synthetic},
            {"packages", h.topology.packages},
            {"numa_nodes", h.topology.numa_nodes},
            {"l3_groups", h.topology.l3_groups},
            {"cores", h.topology.cores},
            {"pus", h.topology.pus}}},
          {"options",
           {{"workers", h.options.workers},
            {"pin", h.options.pin},
            {"idle", h.options.idle},
            {"max_nesting", h.options.max_nesting},
            {"seed", h.options.seed},
            {"record", h.options.record},
            {"audit", h.options.audit},
            {"topology_request", h.options.topology_request}}},
          {"placement", placement},
          {"places", places_json(h.places)}};
}

json run_json(const st::phase_record& r, std::size_t index) {
  const steal_kinds k = kinds_of_steals(r);
  const cws::load_balance balance = cws::balance_of(r.stats);
  const hinted_totals hinted = hinted_of(r);
  return {{"index", index},
          {"schedule", r.schedule},
          {"iteration", r.iteration},
          {"policy", r.policy},
          {"wall_s", r.wall_s},
          {"totals", totals_json(st::summarize(r.steals))},
          {"audit_records", r.steals.audit.size()},
          {"steal_kinds", {{"designated", k.designated}, {"extra", k.extra}, {"taken_back", k.taken_back}}},
          // As in the run's cws::run_report: the busiest worker's share of the tasks over 1/P.
          // max_share_ratio: the same from the tree (steal_tree::balance_of; 0 without tasks).
          {"balance",
           {{"max_over_fair", balance.max_over_fair},
            {"idle_workers", balance.idle_workers},
            {"max_share_ratio", st::balance_of(r.steals).max_share_ratio}}},
          // Format version 3; null / empty for older files and runs without touches.
          {"locality", r.locality ? locality_json(*r.locality) : json(nullptr)},
          {"relocalizations", relocalizations_json(r.relocalizations)},
          // Format version 6 (hinted policies; 0 for older files and other policies) and 5 (elided).
          {"hinted",
           {{"leaf", hinted.leaf},
            {"node", hinted.node},
            {"root", hinted.root},
            {"het_inlined", hinted.het_inlined},
            {"place_steals", hinted.place_steals},
            {"reclaimed", hinted.reclaimed}}},
          {"elided", hinted.elided}};
}

json tree_json(const st::tree& t) {
  json segments = json::array();
  for (std::size_t i = 0; i < t.segments.size(); ++i) {
    const st::segment& s = t.segments[i];
    json steals = json::array();
    for (const st::steal_point& p : s.steals)
      steals.push_back({{"level", p.level}, {"step", p.step}, {"thief", p.thief}, {"child", p.child}});
    segments.push_back({{"index", i},
                        {"worker", s.worker},
                        {"parent", s.parent == st::no_parent ? json(nullptr) : json(s.parent)},
                        {"level", s.level},
                        {"step", s.step},
                        {"start_ns", s.start_ns},
                        {"end_ns", s.end_ns},
                        {"tasks", s.tasks},
                        {"steals", steals}});
  }
  json audit = json::array();
  for (const st::audit_record& r : t.audit)
    audit.push_back({{"segment", r.segment},
                     {"spawn_segment", r.spawn_segment == st::no_parent ? json(nullptr) : json(r.spawn_segment)},
                     {"level", r.level},
                     {"step", r.step},
                     {"worker", r.worker}});
  return {{"workers", t.workers},
          {"segments", segments},
          {"worker_segments", t.worker_segments},
          {"tasks_per_worker", st::tasks_per_worker(t)},
          {"audit", audit}};
}

// Writes `text` to `path` ("-" = stdout); for tree -o and timeline --chrome.
void write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return;
  }
  // Never follows or replaces a symlink, FIFO or device at `path` (safe_file.hpp).
  try {
    tr::write_file(path, text);
  } catch (const cws::error& e) {
    fail(exit_output, e.what());
  }
}

}  // namespace

// ---------------------------------------------------------------- info

namespace {

// The runs `info` lists: all, or the first / last N.
std::vector<std::size_t> listed_runs(const tr::trace_file& f, const run_window& window) {
  std::vector<std::size_t> listed(f.phases.size());
  for (std::size_t i = 0; i < listed.size(); ++i) listed[i] = i;
  window.apply(listed);
  return listed;
}

json info_json(const tr::trace_file& f, const std::string& path, const run_window& window) {
  json doc = header_json(f, path);
  json runs = json::array();
  for (const std::size_t i : listed_runs(f, window)) runs.push_back(run_json(f.phases[i], i));
  doc["phases"] = runs;
  return doc;
}

std::string info_text(const tr::trace_file& f, const std::string& path, const run_window& window);

}  // namespace

// Several files (the per-rank traces of an MPI run, FILE.rank<N>): each one's
// info in turn, then what they hold together; one JSON document with a
// "files" array.
int cmd_info(const std::vector<std::string>& paths, const run_window& window) {
  std::vector<tr::trace_file> files;
  for (const std::string& p : paths) files.push_back(load(p));
  if (g_json_output) {
    if (files.size() == 1) {
      json doc = info_json(files[0], paths[0], window);
      doc["ok"] = true;
      emit(doc);
      return exit_ok;
    }
    json list = json::array();
    for (std::size_t k = 0; k < files.size(); ++k) list.push_back(info_json(files[k], paths[k], window));
    emit({{"ok", true}, {"files", list}});
    return exit_ok;
  }
  std::string out;
  std::size_t runs = 0;
  std::set<std::string> schedules;
  for (std::size_t k = 0; k < files.size(); ++k) {
    if (k > 0) out += "\n";
    out += info_text(files[k], paths[k], window);
    runs += files[k].phases.size();
    for (const auto& r : files[k].phases) schedules.insert(r.schedule);
  }
  if (files.size() > 1)
    out += fmt::format("\ntogether: {} files, {}, {} names\n", files.size(), plural(runs, "run", "runs"),
                       schedules.size());
  std::cout << out;
  return exit_ok;
}

namespace {

std::string info_text(const tr::trace_file& f, const std::string& path, const run_window& window) {
  const tr::trace_header& h = f.header;
  const std::vector<std::size_t> listed = listed_runs(f, window);
  std::string out;
  out += fmt::format("file:      {} ({} bytes, format version {}, {} archive)\n", path, file_bytes(path),
                     h.format_version, tr::to_string(h.archive));
  out += fmt::format("producer:  cws {}\n", h.cws_version);
  out += fmt::format("host:      {}\n", h.host);
  out += fmt::format("created:   {}\n", h.created);
  out += fmt::format("topology:  {} [{}]\n", h.topology.summary, h.topology.source);
  out += fmt::format("workers:   {} (pin={}, idle={}, nesting={}, seed={:#x}, record={}, audit={})\n",
                     h.options.workers, on_off(h.options.pin), h.options.idle, h.options.max_nesting, h.options.seed,
                     on_off(h.options.record), on_off(h.options.audit));
  // The place tree (format version 6): each worker's node and leaf in it.
  const tr::places_info& places = h.places;
  for (const cws::worker_placement& p : h.placement) {
    out +=
        fmt::format("  worker {:>3} -> core {:>3}, NUMA node {:>2}, PU {:>3}", p.worker, p.core, p.numa_node, p.pin_pu);
    if (!places.empty() && p.worker < places.node_of_worker.size())
      out += fmt::format(", place node {:>2}, leaf {:>3}", places.node_of_worker[p.worker],
                         places.leaf_of_worker[p.worker]);
    out += '\n';
  }
  if (!places.empty()) out += fmt::format("places:    {}\n", places.summary);
  std::map<std::string, std::uint64_t> schedules;
  for (const auto& r : f.phases) ++schedules[r.schedule];
  out += fmt::format("phases:    {} of {}{}\n", plural(f.phases.size(), "run", "runs"),
                     plural(schedules.size(), "schedule", "schedules"),
                     listed.size() < f.phases.size()
                         ? fmt::format(" (the {} {} listed)", window.first ? "first" : "last", listed.size())
                         : "");
  if (!listed.empty()) {
    std::size_t wname = 8, wpol = 6;
    for (const std::size_t i : listed)
      wname = std::max(wname, f.phases[i].schedule.size()), wpol = std::max(wpol, f.phases[i].policy.size());
    // steals: segments started by a steal (the tree); designated / extra:
    // of the workers' steals, those planned (taken from their own mailbox)
    // and the others; taken back: routed tasks their spawner ran itself;
    // locality: local share of the touched bytes and what relocalizing moved
    // (format version 3); balance: the busiest worker's share of the tasks
    // over 1/P and the idle workers, from the tree.
    out += fmt::format(
        "\n{:>4}  {:<{}}  {:>5}  {:<{}}  {:>10}  {:>10}  {:<19}  {:>7}  {:>10}  {:>6}  {:>10}  {:>8}  {:>5}  {:>6}  "
        "{}\n",
        "#", "schedule", wname, "iter", "policy", wpol, "wall ms", "tasks", "balance", "steals", "designated", "extra",
        "taken back", "segments", "depth", "audit", "locality");
    for (const std::size_t i : listed) {
      const auto& r = f.phases[i];
      const st::totals t = st::summarize(r.steals);
      const steal_kinds k = kinds_of_steals(r);
      out += fmt::format(
          "{:>4}  {:<{}}  {:>5}  {:<{}}  {:>10.3f}  {:>10}  {:<19}  {:>7}  {:>10}  {:>6}  {:>10}  {:>8}  {:>5}  {:>6}  "
          "{}\n",
          i, r.schedule, wname, r.iteration, r.policy, wpol, r.wall_s * 1e3, t.tasks,
          balance_cell(st::balance_of(r.steals)), t.steals, k.designated, k.extra, k.taken_back, t.segments, t.depth,
          r.steals.audit.empty() ? "-" : std::to_string(r.steals.audit.size()),
          locality_cell(r.locality ? &*r.locality : nullptr, r.relocalizations));
    }
    // The hinted policies' counters (format version 6), for the runs that have any:
    // where find_place sent the hinted spawns (own leaf, another node's place,
    // the root), those HET ran inline, tasks stolen from a node or the root
    // place, and tasks placed there that their spawner ran itself.
    std::string hinted_lines;
    for (const std::size_t i : listed) {
      const hinted_totals t = hinted_of(f.phases[i]);
      if (!t.any_hinted()) continue;
      hinted_lines +=
          fmt::format("{:>4}  {:<{}}  {:>5}  {:>10}  {:>10}  {:>10}  {:>11}  {:>12}  {:>9}\n", i, f.phases[i].schedule,
                      wname, f.phases[i].iteration, t.leaf, t.node, t.root, t.het_inlined, t.place_steals, t.reclaimed);
    }
    if (!hinted_lines.empty())
      out += fmt::format("\nhinted spawns:\n{:>4}  {:<{}}  {:>5}  {:>10}  {:>10}  {:>10}  {:>11}  {:>12}  {:>9}\n{}",
                         "#", "schedule", wname, "iter", "to leaf", "to node", "to root", "HET inlined", "place steals",
                         "reclaimed", hinted_lines);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------- show

int cmd_show(const std::string& path, const std::optional<std::string>& phase,
             const std::optional<std::uint64_t>& iteration, const run_window& window) {
  const tr::trace_file f = load(path);
  std::vector<std::size_t> runs = selected_runs(f, path, phase, iteration);
  window.apply(runs);
  if (g_json_output) {
    json list = json::array();
    for (std::size_t i : runs) {
      json r = run_json(f.phases[i], i);
      r["stats"] = json::array();
      for (const cws::worker_stats& s : f.phases[i].stats)
        r["stats"].push_back({{"tasks", s.tasks},
                              {"segments", s.segments},
                              {"steals", s.steals},
                              {"failed_steals", s.failed_steals},
                              {"nested_segments", s.nested_segments},
                              {"idle_s", s.idle_s},
                              {"designated", s.designated},
                              {"taken_back", s.taken_back},
                              {"elided", s.elided},
                              {"hinted_leaf", s.hinted_leaf},
                              {"hinted_node", s.hinted_node},
                              {"hinted_root", s.hinted_root},
                              {"het_inlined", s.het_inlined},
                              {"place_steals", s.place_steals},
                              {"reclaimed", s.reclaimed}});
      r["tree"] = tree_json(f.phases[i].steals);
      list.push_back(std::move(r));
    }
    emit({{"ok", true}, {"file", path}, {"runs", list}});
    return exit_ok;
  }
  std::string out;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const st::phase_record& r = f.phases[runs[k]];
    if (k > 0) out += "\n";
    out += fmt::format("== {} (run {} of {}), wall {:.3f} ms\n", tr::run_label(r), runs[k], f.phases.size(),
                       r.wall_s * 1e3);
    out += st::describe(r.steals);
  }
  if (runs.empty()) out = fmt::format("{}: no phase runs recorded\n", path);
  std::cout << out;
  return exit_ok;
}

// ---------------------------------------------------------------- tree

int cmd_tree(const std::string& path, const std::optional<std::string>& phase,
             const std::optional<std::uint64_t>& iteration, const std::string& output) {
  const tr::trace_file f = load(path);
  const std::vector<std::size_t> runs = selected_runs(f, path, phase, iteration);
  const std::string text = tr::dot(f, runs);
  if (g_json_output) {
    if (!output.empty() && output != "-") write_output(output, text);
    json doc = {{"ok", true}, {"file", path}, {"runs", json::array()}};
    for (std::size_t i : runs) doc["runs"].push_back(tr::run_label(f.phases[i]));
    if (!output.empty() && output != "-")
      doc["output"] = output;
    else
      doc["dot"] = text;
    emit(doc);
    return exit_ok;
  }
  if (output.empty() || output == "-") {
    std::cout << text;
  } else {
    write_output(output, text);
    std::cout << fmt::format("wrote {}: {}\n", output, plural(runs.size(), "steal tree", "steal trees"));
  }
  return exit_ok;
}

// ---------------------------------------------------------------- timeline

int cmd_timeline(const std::string& path, const std::optional<std::string>& phase,
                 const std::optional<std::uint64_t>& iteration, const std::string& output) {
  if (output == "-" && g_json_output) fail(exit_usage, "timeline: --chrome - (stdout) cannot be combined with --json");
  const tr::trace_file f = load(path);
  const std::vector<std::size_t> runs = selected_runs(f, path, phase, iteration);
  const std::string text = tr::chrome_trace(f, runs);
  write_output(output, text);
  std::uint64_t segments = 0, steals = 0;
  for (std::size_t i : runs) {
    const st::totals t = st::summarize(f.phases[i].steals);
    segments += t.segments;
    steals += t.steals;
  }
  if (g_json_output) {
    emit({{"ok", true},
          {"file", path},
          {"output", output},
          {"runs", runs.size()},
          {"segments", segments},
          {"steals", steals},
          {"bytes", text.size()}});
  } else if (output != "-") {
    std::cout << fmt::format("wrote {}: {}, {}, {} (open in https://ui.perfetto.dev)\n", output,
                             plural(runs.size(), "phase run", "phase runs"), plural(segments, "segment", "segments"),
                             plural(steals, "steal", "steals"));
  }
  return exit_ok;
}

}  // namespace cws::trace_cli
