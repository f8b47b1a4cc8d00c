// cws-trace validate / convert: whole-file operations. validate reads every
// file completely and reports each (for a record stream: which records are
// complete, torn or damaged); convert rewrites a trace with another archive
// kind and proves the result reads back identically (from a torn stream: its
// intact records, as a complete file).

#include <fmt/format.h>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"

namespace cws::trace_cli {

namespace {

// A record stream's problems for --json: what is readable and what is not.
json stream_json(const tr::read_report& rep) {
  json damaged = json::array();
  for (const tr::record_problem& p : rep.damaged)
    damaged.push_back({{"record", p.record}, {"offset", p.offset}, {"problem", p.problem}});
  return {{"complete_records", rep.records},
          {"intact_records", rep.intact},
          {"phases", rep.file.phases.size()},
          {"closed", rep.closed},
          {"torn_record", rep.torn_record ? json(*rep.torn_record) : json(nullptr)},
          {"damaged_records", damaged},
          {"unreadable_from", rep.unreadable ? json{{"record", rep.unreadable->record},
                                                    {"offset", rep.unreadable->offset},
                                                    {"problem", rep.unreadable->problem}}
                                             : json(nullptr)},
          {"trailing_bytes", rep.trailing_bytes}};
}

}  // namespace

// Reads every file even after a bad one, so one run reports them all; each
// error goes to stderr as it is found, the exit code says whether any failed.
// A record stream (format version 4) that is torn, unfinished or has damaged
// records fails, with one line saying which records are complete.
int cmd_validate(const std::vector<std::string>& paths) {
  json list = json::array();
  std::string out;
  bool all_ok = true;
  for (const std::string& path : paths) {
    try {
      const tr::read_report rep = tr::read_with_report(path);
      const tr::trace_file& f = rep.file;
      if (!rep.complete()) {
        all_ok = false;
        const std::string message = fmt::format("{}: {}", path, rep.summary());
        json entry = {{"file", path}, {"valid", false}, {"error", message}};
        entry.update(stream_json(rep));
        list.push_back(entry);
        std::cerr << "cws-trace: " << message << "\n";
        continue;
      }
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
  if (g_json_output)
    emit({{"ok", all_ok}, {"files", list}});
  else
    std::cout << out;
  return all_ok ? exit_ok : exit_bad_input;
}

// --to is checked by CLI11 already; parse_archive_kind failing here would be a
// usage error all the same.
int cmd_convert(const std::string& path, const std::string& to, const std::string& output) {
  tr::archive_kind kind{};
  try {
    kind = tr::parse_archive_kind(to);
  } catch (const cws::error& e) {
    fail(exit_usage, e.what());
  }
  const tr::trace_file f = load(path);
  save_checked(output, f, kind);
  if (g_json_output) {
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

}  // namespace cws::trace_cli
