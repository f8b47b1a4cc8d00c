// cws-trace: offline inspection of cws trace files (DESIGN §7).
//
//   cws-trace info FILE                          header, phase runs, totals
//   cws-trace show FILE [--phase P] [--iteration K]
//   cws-trace tree FILE --dot [-o OUT] [--phase P] [--iteration K]
//   cws-trace timeline FILE --chrome OUT.json [--phase P] [--iteration K]
//   cws-trace diff A B                           A, B: FILE or FILE@PHASE[#ITERATION]
//   cws-trace validate FILE...
//   cws-trace convert FILE --to text|xml|binary OUT
//
// Human-readable tables by default; --json prints one JSON document on stdout
// instead. Exit codes: see exit_help below.

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cws/error.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "cws/traces/export.hpp"
#include "cws/traces/trace_file.hpp"

namespace {

namespace tr = cws::traces;
namespace st = cws::steal_tree;
using nlohmann::json;

enum exit_code : int {
  exit_ok = 0,
  exit_usage = 1,
  exit_bad_input = 2,
  exit_not_comparable = 3,
  exit_output = 4,
};

constexpr const char* exit_help =
    "Exit codes:\n"
    "  0  success (validate: every file is valid)\n"
    "  1  usage error (unknown subcommand or option, missing argument, bad --phase/--iteration selection)\n"
    "  2  an input file is missing, unreadable, damaged, foreign, too new or inconsistent\n"
    "  3  diff: the two sides cannot be compared (different worker counts or phase runs)\n"
    "  4  an output file could not be written\n"
    "Errors are one line on stderr; with --json they are also reported as\n"
    "{\"ok\": false, \"error\": ..., \"exit_code\": N} on stdout.";

// A failure with its exit code.
struct failure {
  int code;
  std::string message;
};

bool g_json = false;

[[noreturn]] void fail(int code, std::string message) { throw failure{code, std::move(message)}; }

tr::trace_file load(const std::string& path) {
  try {
    return tr::read(path);
  } catch (const cws::error& e) {
    fail(exit_bad_input, e.what());
  }
}

std::uint64_t file_bytes(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<std::uint64_t>(n);
}

void emit(const json& doc) { std::cout << doc.dump(2) << "\n"; }

std::string on_off(bool b) { return b ? "on" : "off"; }

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// Runs picked by --phase / --iteration; usage error when nothing matches.
std::vector<std::size_t> pick(const tr::trace_file& f, const std::string& path, const std::optional<std::string>& phase,
                              const std::optional<std::uint64_t>& iteration) {
  std::vector<std::size_t> runs = tr::select(f, phase, iteration);
  if (runs.empty() && (phase || iteration))
    fail(exit_usage, fmt::format("{}: no phase run matches{}{}", path, phase ? fmt::format(" phase '{}'", *phase) : "",
                                 iteration ? fmt::format(" iteration {}", *iteration) : ""));
  return runs;
}

json totals_json(const st::totals& t) {
  return {{"tasks", t.tasks}, {"steals", t.steals}, {"segments", t.segments}, {"depth", t.depth}};
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
          {"placement", placement}};
}

json run_json(const st::phase_record& r, std::size_t index) {
  return {{"index", index},          {"schedule", r.schedule},
          {"iteration", r.iteration}, {"policy", r.policy},
          {"wall_s", r.wall_s},       {"totals", totals_json(st::summarize(r.steals))},
          {"audit_records", r.steals.audit.size()}};
}

// ---------------------------------------------------------------- info

int cmd_info(const std::string& path) {
  const tr::trace_file f = load(path);
  const tr::trace_header& h = f.header;
  if (g_json) {
    json doc = header_json(f, path);
    json runs = json::array();
    for (std::size_t i = 0; i < f.phases.size(); ++i) runs.push_back(run_json(f.phases[i], i));
    doc["phases"] = runs;
    doc["ok"] = true;
    emit(doc);
    return exit_ok;
  }
  std::string out;
  out += fmt::format("file:      {} ({} bytes, format version {}, {} archive)\n", path, file_bytes(path),
                     h.format_version, tr::to_string(h.archive));
  out += fmt::format("producer:  cws {}\n", h.cws_version);
  out += fmt::format("host:      {}\n", h.host);
  out += fmt::format("created:   {}\n", h.created);
  out += fmt::format("topology:  {} [{}]\n", h.topology.summary, h.topology.source);
  out += fmt::format("workers:   {} (pin={}, idle={}, nesting={}, seed={:#x}, record={}, audit={})\n", h.options.workers,
                     on_off(h.options.pin), h.options.idle, h.options.max_nesting, h.options.seed,
                     on_off(h.options.record), on_off(h.options.audit));
  for (const cws::worker_placement& p : h.placement)
    out += fmt::format("  worker {:>3} -> core {:>3}, NUMA node {:>2}, PU {:>3}\n", p.worker, p.core, p.numa_node,
                       p.pin_pu);
  std::map<std::string, std::uint64_t> schedules;
  for (const auto& r : f.phases) ++schedules[r.schedule];
  out += fmt::format("phases:    {} of {}\n", plural(f.phases.size(), "run", "runs"),
                     plural(schedules.size(), "schedule", "schedules"));
  if (!f.phases.empty()) {
    std::size_t wname = 8, wpol = 6;
    for (const auto& r : f.phases) wname = std::max(wname, r.schedule.size()), wpol = std::max(wpol, r.policy.size());
    out += fmt::format("\n{:>4}  {:<{}}  {:>5}  {:<{}}  {:>10}  {:>10}  {:>7}  {:>8}  {:>5}  {:>6}\n", "#", "schedule",
                       wname, "iter", "policy", wpol, "wall ms", "tasks", "steals", "segments", "depth", "audit");
    for (std::size_t i = 0; i < f.phases.size(); ++i) {
      const auto& r = f.phases[i];
      const st::totals t = st::summarize(r.steals);
      out += fmt::format("{:>4}  {:<{}}  {:>5}  {:<{}}  {:>10.3f}  {:>10}  {:>7}  {:>8}  {:>5}  {:>6}\n", i, r.schedule,
                         wname, r.iteration, r.policy, wpol, r.wall_s * 1e3, t.tasks, t.steals, t.segments, t.depth,
                         r.steals.audit.empty() ? "-" : std::to_string(r.steals.audit.size()));
    }
  }
  std::cout << out;
  return exit_ok;
}

// ---------------------------------------------------------------- show

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

int cmd_show(const std::string& path, const std::optional<std::string>& phase,
             const std::optional<std::uint64_t>& iteration) {
  const tr::trace_file f = load(path);
  const std::vector<std::size_t> runs = pick(f, path, phase, iteration);
  if (g_json) {
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
                              {"idle_s", s.idle_s}});
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

// ---------------------------------------------------------------- output files

// Writes `text` to `path` ("-" = stdout).
void write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (out) out.close();
  if (!out) fail(exit_output, fmt::format("{}: cannot write", path));
}

// ---------------------------------------------------------------- tree

int cmd_tree(const std::string& path, const std::optional<std::string>& phase,
             const std::optional<std::uint64_t>& iteration, const std::string& output) {
  const tr::trace_file f = load(path);
  const std::vector<std::size_t> runs = pick(f, path, phase, iteration);
  const std::string text = tr::dot(f, runs);
  if (g_json) {
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
  if (output == "-" && g_json) fail(exit_usage, "timeline: --chrome - (stdout) cannot be combined with --json");
  const tr::trace_file f = load(path);
  const std::vector<std::size_t> runs = pick(f, path, phase, iteration);
  const std::string text = tr::chrome_trace(f, runs);
  write_output(output, text);
  std::uint64_t segments = 0, steals = 0;
  for (std::size_t i : runs) {
    const st::totals t = st::summarize(f.phases[i].steals);
    segments += t.segments;
    steals += t.steals;
  }
  if (g_json) {
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

// ---------------------------------------------------------------- diff

struct side {
  std::string arg;   // as given
  std::string path;
  std::optional<std::string> phase;
  std::optional<std::uint64_t> iteration;
  tr::trace_file file;
  std::vector<std::size_t> runs;
};

side parse_side(const std::string& arg) {
  side s;
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
    fail(exit_not_comparable, fmt::format("'{}': no phase run matches{}", arg,
                                          s.file.phases.empty() ? " (the file holds none)" : ""));
  return s;
}

std::string run_key(const st::phase_record& r) { return fmt::format("{}#{}", r.schedule, r.iteration); }

int cmd_diff(const std::string& a_arg, const std::string& b_arg) {
  const side a = parse_side(a_arg);
  const side b = parse_side(b_arg);
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

  if (g_json) {
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
  std::string out = fmt::format("A: {}\nB: {}\n{} workers; schedule distance = share of the work that ran on another "
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

// ---------------------------------------------------------------- validate

int cmd_validate(const std::vector<std::string>& paths) {
  json list = json::array();
  std::string out;
  bool all_ok = true;
  for (const std::string& path : paths) {
    try {
      const tr::trace_file f = tr::read(path);
      std::uint64_t segments = 0;
      for (const auto& r : f.phases) segments += r.steals.segments.size();
      list.push_back({{"file", path},
                      {"valid", true},
                      {"format_version", f.header.format_version},
                      {"archive", tr::to_string(f.header.archive)},
                      {"phases", f.phases.size()},
                      {"segments", segments}});
      out += fmt::format("{}: ok (format version {}, {} archive, {}, {})\n", path, f.header.format_version,
                         tr::to_string(f.header.archive), plural(f.phases.size(), "phase run", "phase runs"),
                         plural(segments, "segment", "segments"));
    } catch (const cws::error& e) {
      all_ok = false;
      list.push_back({{"file", path}, {"valid", false}, {"error", e.what()}});
      std::cerr << "cws-trace: " << e.what() << "\n";
    }
  }
  if (g_json)
    emit({{"ok", all_ok}, {"files", list}});
  else
    std::cout << out;
  return all_ok ? exit_ok : exit_bad_input;
}

// ---------------------------------------------------------------- convert

int cmd_convert(const std::string& path, const std::string& to, const std::string& output) {
  tr::archive_kind kind{};
  try {
    kind = tr::parse_archive_kind(to);
  } catch (const cws::error& e) {
    fail(exit_usage, e.what());
  }
  const tr::trace_file f = load(path);
  try {
    tr::write(output, f, kind);
  } catch (const cws::error& e) {
    fail(exit_output, e.what());
  }
  // Read it back: a conversion that does not round-trip is not a conversion.
  tr::trace_file back;
  try {
    back = tr::read(output);
  } catch (const cws::error& e) {
    fail(exit_output, fmt::format("{}: written file does not read back ({})", output, e.what()));
  }
  if (!tr::identical(f, back)) fail(exit_output, fmt::format("{}: written file does not read back identically", output));
  if (g_json) {
    emit({{"ok", true},
          {"file", path},
          {"output", output},
          {"from", tr::to_string(f.header.archive)},
          {"to", tr::to_string(kind)},
          {"bytes_in", file_bytes(path)},
          {"bytes_out", file_bytes(output)}});
  } else {
    std::cout << fmt::format("wrote {} ({} archive, {} bytes; {} was {} archive, {} bytes)\n", output,
                             tr::to_string(kind), file_bytes(output), path, tr::to_string(f.header.archive),
                             file_bytes(path));
  }
  return exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Offline inspection of cws trace files (*.cwst): header, steal trees, timelines, schedule distance",
               "cws-trace"};
  app.footer(exit_help);
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");

  std::string file, output, other, to;
  std::vector<std::string> files;
  std::optional<std::string> phase;
  std::optional<std::uint64_t> iteration;
  bool dot_flag = false;

  auto add_json = [](CLI::App* sub) { sub->add_flag("--json", g_json, "Print one JSON document on stdout"); };
  auto add_select = [&](CLI::App* sub) {
    sub->add_option("--phase", phase, "Only runs of this schedule (phase name)");
    sub->add_option("--iteration", iteration, "Only this iteration (0-based)");
  };

  CLI::App* info = app.add_subcommand("info", "Header (producer, host, topology, workers, options) and a table of phase runs");
  info->add_option("FILE", file, "Trace file")->required();
  add_json(info);

  CLI::App* show = app.add_subcommand("show", "Steal trees as indented text (per worker totals, then the tree)");
  show->add_option("FILE", file, "Trace file")->required();
  add_select(show);
  add_json(show);

  CLI::App* tree = app.add_subcommand("tree", "Steal trees as Graphviz DOT (one cluster per phase run)");
  tree->add_option("FILE", file, "Trace file")->required();
  tree->add_flag("--dot", dot_flag, "Graphviz DOT output (the only format, the default)");
  tree->add_option("-o,--output", output, "Write the DOT text here instead of stdout");
  add_select(tree);
  add_json(tree);

  CLI::App* timeline = app.add_subcommand("timeline", "Chrome trace-event JSON (open in https://ui.perfetto.dev)");
  timeline->add_option("FILE", file, "Trace file")->required();
  timeline->add_option("--chrome", output, "Output file ('-' = stdout)")->required();
  add_select(timeline);
  add_json(timeline);

  CLI::App* diff = app.add_subcommand(
      "diff",
      "Schedule distance between two traces: share of the work that ran on another worker / NUMA node.\n"
      "A and B are trace files or FILE@PHASE#ITERATION (one run, e.g. h.cwst@stencil#3) or FILE@PHASE\n"
      "(all runs of a phase). Two single runs are compared whatever their names; otherwise runs are\n"
      "paired by phase and iteration and both sides must hold the same ones.");
  diff->add_option("A", file, "First trace (FILE or FILE@PHASE[#ITERATION])")->required();
  diff->add_option("B", other, "Second trace (FILE or FILE@PHASE[#ITERATION])")->required();
  add_json(diff);

  CLI::App* validate = app.add_subcommand("validate", "Check trace files completely (envelope, checksum, contents)");
  validate->add_option("FILE", files, "Trace files")->required();
  add_json(validate);

  CLI::App* convert = app.add_subcommand("convert", "Rewrite a trace with another archive kind (read back and verified)");
  convert->add_option("FILE", file, "Trace file")->required();
  convert->add_option("OUT", output, "Output file")->required();
  convert->add_option("--to", to, "Archive kind: text (portable, default of cws), xml, binary (not portable)")
      ->required()
      ->check(CLI::IsMember({"text", "xml", "binary"}));
  add_json(convert);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? exit_ok : exit_usage;
  }

  try {
    if (info->parsed()) return cmd_info(file);
    if (show->parsed()) return cmd_show(file, phase, iteration);
    if (tree->parsed()) return cmd_tree(file, phase, iteration, output);
    if (timeline->parsed()) return cmd_timeline(file, phase, iteration, output);
    if (diff->parsed()) return cmd_diff(file, other);
    if (validate->parsed()) return cmd_validate(files);
    if (convert->parsed()) return cmd_convert(file, to, output);
  } catch (const failure& f) {
    std::cerr << "cws-trace: " << f.message << "\n";
    if (g_json) emit({{"ok", false}, {"error", f.message}, {"exit_code", f.code}});
    return f.code;
  } catch (const std::exception& e) {
    std::cerr << "cws-trace: " << e.what() << "\n";
    if (g_json) emit({{"ok", false}, {"error", e.what()}, {"exit_code", exit_bad_input}});
    return exit_bad_input;
  }
  return exit_usage;
}
