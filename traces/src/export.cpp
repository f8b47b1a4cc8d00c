// Exporters: run selection, Chrome trace-event JSON, Graphviz DOT.
#include "cws/traces/export.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace cws::traces {

namespace st = cws::steal_tree;
using nlohmann::json;

std::vector<std::size_t> select(const trace_file& f, const std::optional<std::string>& phase,
                                const std::optional<std::uint64_t>& iteration) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < f.phases.size(); ++i) {
    const st::phase_record& r = f.phases[i];
    if (phase && r.schedule != *phase) continue;
    if (iteration && r.iteration != *iteration) continue;
    out.push_back(i);
  }
  return out;
}

std::string run_label(const st::phase_record& r) {
  return fmt::format("{} #{} ({})", r.schedule, r.iteration, r.policy);
}

namespace {

std::vector<std::size_t> all_if_empty(const trace_file& f, const std::vector<std::size_t>& runs) {
  if (!runs.empty()) return runs;
  std::vector<std::size_t> all(f.phases.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

const st::phase_record& run_at(const trace_file& f, std::size_t i) {
  if (i >= f.phases.size())
    throw error(fmt::format("phase run {} out of range (the trace holds {})", i, f.phases.size()));
  return f.phases[i];
}

double us(std::uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

}  // namespace

// ---------------------------------------------------------------- Chrome trace

std::string chrome_trace(const trace_file& f, const std::vector<std::size_t>& selected) {
  const std::vector<std::size_t> runs = all_if_empty(f, selected);
  const int pid = 1;
  const std::uint32_t workers = f.header.options.workers;
  const std::uint32_t phase_track = workers;  // tid of the "phases" track
  json events = json::array();

  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", pid},
                    {"args", {{"name", fmt::format("cws: {}", f.header.host)}}}});
  for (std::uint32_t w = 0; w < workers; ++w) {
    const std::uint32_t node = w < f.header.placement.size() ? f.header.placement[w].numa_node : 0;
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"tid", w},
                      {"args", {{"name", fmt::format("worker {} (node {})", w, node)}}}});
    events.push_back(
        {{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", w}, {"args", {{"sort_index", w + 1}}}});
  }
  events.push_back(
      {{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", phase_track}, {"args", {{"name", "phases"}}}});
  events.push_back(
      {{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", phase_track}, {"args", {{"sort_index", 0}}}});

  std::uint64_t base = 0;  // ns: where the current run starts on the common time line
  std::uint64_t flow_id = 0;
  for (std::size_t idx : runs) {
    const st::phase_record& r = run_at(f, idx);
    const st::tree& t = r.steals;
    std::uint64_t span = static_cast<std::uint64_t>(std::max(0.0, r.wall_s) * 1e9);
    std::uint64_t tasks = 0;
    for (const st::segment& s : t.segments) {
      span = std::max(span, s.end_ns);
      tasks += s.tasks;
    }
    events.push_back({{"name", run_label(r)},
                      {"cat", "phase"},
                      {"ph", "X"},
                      {"pid", pid},
                      {"tid", phase_track},
                      {"ts", us(base)},
                      {"dur", us(span)},
                      {"args",
                       {{"schedule", r.schedule},
                        {"iteration", r.iteration},
                        {"policy", r.policy},
                        {"wall_ms", r.wall_s * 1e3},
                        {"tasks", tasks},
                        {"steals", t.segments.empty() ? 0 : t.segments.size() - 1},
                        {"run", idx}}}});
    for (std::size_t i = 0; i < t.segments.size(); ++i) {
      const st::segment& s = t.segments[i];
      json args = {{"segment", i}, {"tasks", s.tasks}, {"run", run_label(r)}};
      std::string name;
      if (s.parent == st::no_parent) {
        name = fmt::format("#{} root", i);
      } else {
        name = fmt::format("#{} ({},{})", i, s.level, s.step);
        args["parent"] = s.parent;
        args["level"] = s.level;
        args["step"] = s.step;
      }
      args["steals"] = s.steals.size();
      events.push_back({{"name", name},
                        {"cat", "segment"},
                        {"ph", "X"},
                        {"pid", pid},
                        {"tid", s.worker},
                        {"ts", us(base + s.start_ns)},
                        {"dur", us(s.end_ns - s.start_ns)},
                        {"args", args}});
    }
    for (std::size_t i = 0; i < t.segments.size(); ++i) {
      const st::segment& p = t.segments[i];
      for (const st::steal_point& sp : p.steals) {
        if (sp.child >= t.segments.size()) continue;
        const st::segment& c = t.segments[sp.child];
        const std::uint64_t from = std::clamp(c.start_ns, p.start_ns, p.end_ns);
        const std::string name = fmt::format("steal ({},{})", sp.level, sp.step);
        ++flow_id;
        events.push_back({{"name", name},
                          {"cat", "steal"},
                          {"ph", "s"},
                          {"id", flow_id},
                          {"pid", pid},
                          {"tid", p.worker},
                          {"ts", us(base + from)}});
        events.push_back({{"name", name},
                          {"cat", "steal"},
                          {"ph", "f"},
                          {"bp", "e"},
                          {"id", flow_id},
                          {"pid", pid},
                          {"tid", c.worker},
                          {"ts", us(base + c.start_ns)}});
      }
    }
    base += span + std::max<std::uint64_t>(1000, span / 20);
  }

  const json other = {{"producer", "cws-trace"},
                      {"cws_version", f.header.cws_version},
                      {"host", f.header.host},
                      {"topology", f.header.topology.summary},
                      {"workers", workers}};
  // One event per line: compact, yet diffable and greppable. Names from the
  // file (schedule, host) need not be UTF-8: invalid bytes become U+FFFD, so
  // the output is always valid JSON and never an exception.
  const auto dump = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  std::string out = "{\"displayTimeUnit\":\"ns\",\"otherData\":" + dump(other) + ",\n\"traceEvents\":[\n";
  for (std::size_t i = 0; i < events.size(); ++i) {
    out += dump(events[i]);
    out += i + 1 < events.size() ? ",\n" : "\n";
  }
  out += "]}\n";
  return out;
}

// ---------------------------------------------------------------- DOT

namespace {

std::string dot_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

// ColorBrewer Set3: light enough for black labels.
constexpr const char* palette[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                                   "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};

void dot_body(std::string& out, const st::tree& t, const std::string& prefix, const char* indent) {
  for (std::size_t i = 0; i < t.segments.size(); ++i) {
    const st::segment& s = t.segments[i];
    out += fmt::format("{}{}s{} [label=\"#{}\\nworker {}\\n{} task{}\", fillcolor=\"{}\"];\n", indent, prefix, i, i,
                       s.worker, s.tasks, s.tasks == 1 ? "" : "s", palette[s.worker % std::size(palette)]);
  }
  for (std::size_t i = 0; i < t.segments.size(); ++i)
    for (const st::steal_point& p : t.segments[i].steals)
      out +=
          fmt::format("{}{}s{} -> {}s{} [label=\"({}, {})\"];\n", indent, prefix, i, prefix, p.child, p.level, p.step);
}

constexpr const char* dot_style =
    "  graph [fontname=\"Helvetica\", rankdir=TB];\n"
    "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n"
    "  edge [fontname=\"Helvetica\", fontsize=9];\n";

}  // namespace

std::string dot(const st::tree& t, std::string_view title) {
  std::string out = fmt::format("digraph \"{}\" {{\n", dot_escape(title));
  out += dot_style;
  out += fmt::format("  label=\"{}\";\n  labelloc=t;\n", dot_escape(title));
  dot_body(out, t, "", "  ");
  out += "}\n";
  return out;
}

std::string dot(const trace_file& f, const std::vector<std::size_t>& selected) {
  const std::vector<std::size_t> runs = all_if_empty(f, selected);
  std::string out = "digraph \"steal trees\" {\n";
  out += dot_style;
  out += fmt::format("  label=\"{} ({} workers, {})\";\n  labelloc=t;\n", dot_escape(f.header.host),
                     f.header.options.workers, dot_escape(f.header.topology.summary));
  for (std::size_t idx : runs) {
    const st::phase_record& r = run_at(f, idx);
    out += fmt::format("  subgraph cluster_{} {{\n    label=\"{}\";\n", idx, dot_escape(run_label(r)));
    dot_body(out, r.steals, fmt::format("r{}", idx), "    ");
    out += "  }\n";
  }
  out += "}\n";
  return out;
}

}  // namespace cws::traces
