// Private to cws-trace: what every subcommand shares — exit codes, the
// failure that carries one, the --json switch, loading a trace and printing.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "cws/error.hpp"
#include "cws/steal_tree/balance.hpp"
#include "cws/traces/export.hpp"
#include "cws/traces/safe_file.hpp"
#include "cws/traces/trace_file.hpp"

namespace cws::trace_cli {

namespace tr = cws::traces;
using nlohmann::json;

// The process exit codes. Users read them in `exit_help` (main.cpp): keep the
// two in step, scripts depend on the numbers.
enum exit_code : int {
  exit_ok = 0,
  exit_usage = 1,
  exit_bad_input = 2,
  exit_not_comparable = 3,
  exit_output = 4,
};

// A failure with its exit code. Thrown rather than returned so that helpers
// deep inside a subcommand can stop it; main() turns it into the one-line
// error message (and the JSON error document under --json).
struct failure {
  int code;
  std::string message;
};

[[noreturn]] inline void fail(int code, std::string message) { throw failure{code, std::move(message)}; }

// Set by the --json flag of whichever subcommand runs. Global because both the
// subcommand and main()'s error handler must honour it.
inline bool g_json_output = false;

// Reads a trace file; any read error is an input error (exit 2). A record
// stream (format version 4) that is torn, unfinished or has damaged records
// gives its intact records, with one warning line on stderr (validate is the
// subcommand that fails on it).
inline tr::trace_file load(const std::string& path) {
  tr::read_report rep;
  try {
    rep = tr::read_with_report(path);
  } catch (const cws::error& e) {
    fail(exit_bad_input, e.what());
  }
  if (!rep.complete())
    std::cerr << fmt::format("cws-trace: warning: {}: {}; using the {} intact {}\n", path, rep.summary(),
                             rep.file.phases.size(), rep.file.phases.size() == 1 ? "phase run" : "phase runs");
  return std::move(rep.file);
}

// Writes `f` to `output` as `kind` and reads it back: an output that does not
// round-trip is not written (exit 4 either way).
inline void save_checked(const std::string& output, const tr::trace_file& f, tr::archive_kind kind) {
  try {
    tr::write(output, f, kind);
  } catch (const cws::error& e) {
    fail(exit_output, e.what());
  }
  tr::trace_file back;
  try {
    back = tr::read(output);
  } catch (const cws::error& e) {
    fail(exit_output, fmt::format("{}: written file does not read back ({})", output, e.what()));
  }
  if (!tr::identical(f, back))
    fail(exit_output, fmt::format("{}: written file does not read back identically", output));
}

// Runs picked by --phase / --iteration (all runs without them). A selection
// that matches nothing is a usage error; a file without runs is not.
inline std::vector<std::size_t> selected_runs(const tr::trace_file& f, const std::string& path,
                                              const std::optional<std::string>& phase,
                                              const std::optional<std::uint64_t>& iteration) {
  std::vector<std::size_t> runs = tr::select(f, phase, iteration);
  if (runs.empty() && (phase || iteration))
    fail(exit_usage, fmt::format("{}: no phase run matches{}{}", path, phase ? fmt::format(" phase '{}'", *phase) : "",
                                 iteration ? fmt::format(" iteration {}", *iteration) : ""));
  return runs;
}

// The steals of one phase run by kind, from the per-worker statistics
// (format version 2; a version-1 file reads as 0 designated, 0 taken back):
// designated = taken from the thief's own mailbox (planned by a template or a
// designation), extra = the other steals, taken_back = tasks routed away
// that their spawner then ran itself.
struct steal_kinds {
  std::uint64_t designated = 0;
  std::uint64_t extra = 0;
  std::uint64_t taken_back = 0;
};
inline steal_kinds kinds_of_steals(const cws::steal_tree::phase_record& r) {
  steal_kinds k;
  for (const cws::worker_stats& w : r.stats) {
    k.designated += w.designated;
    k.extra += w.steals > w.designated ? w.steals - w.designated : 0;  // designated <= steals in a valid file
    k.taken_back += w.taken_back;
  }
  return k;
}

// Size of a file for reports; 0 when it cannot be determined (reports are
// informative, not worth failing over).
inline std::uint64_t file_bytes(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<std::uint64_t>(n);
}

// Prints the single JSON document of a --json run. Strings from a file
// (schedule names, host) need not be UTF-8: invalid bytes become U+FFFD
// instead of an exception.
inline void emit(const json& doc) { std::cout << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n"; }

// A tree's balance for tables: "share x1.23" (the busiest worker's share of
// the tasks over 1/P), ", 2 idle" when workers ran nothing; "-" without tasks.
inline std::string balance_cell(const cws::steal_tree::balance& b) {
  if (b.total == 0) return "-";
  std::string cell = fmt::format("share x{:.2f}", b.max_share_ratio);
  if (b.idle_workers > 0) cell += fmt::format(", {} idle", b.idle_workers);
  return cell;
}

// "1 run", "2 runs".
inline std::string plural(std::uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace cws::trace_cli
