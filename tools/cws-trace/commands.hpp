// Private to cws-trace: the subcommands, one function each. They print their
// report (a table, or one JSON document under --json) and return the exit
// code; errors are thrown as `failure` (cli_common.hpp) and reported by main().
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cws::trace_cli {

// --first N / --last N (at most one of them): which of the runs a
// subcommand would list it lists.
struct run_window {
  std::optional<std::size_t> first, last;

  // `runs` cut down to its first or last N entries (all of them without either).
  void apply(std::vector<std::size_t>& runs) const {
    if (first && runs.size() > *first) runs.resize(*first);
    if (last && runs.size() > *last) runs.erase(runs.begin(), runs.end() - static_cast<std::ptrdiff_t>(*last));
  }
};

// inspect.cpp: read one trace and describe it; `window` cuts the table of
// phase runs (info) or the selection (show).
int cmd_info(const std::vector<std::string>& paths, const run_window& window);
int cmd_show(const std::string& path, const std::optional<std::string>& phase,
             const std::optional<std::uint64_t>& iteration, const run_window& window);
int cmd_tree(const std::string& path, const std::optional<std::string>& phase,
             const std::optional<std::uint64_t>& iteration, const std::string& output);
int cmd_timeline(const std::string& path, const std::optional<std::string>& phase,
                 const std::optional<std::uint64_t>& iteration, const std::string& output);

// locality.cpp: locality reports and relocalizations of the selected runs
// (format version 3), those with a report cut by `window`; a file without
// any prints one line and succeeds.
int cmd_locality(const std::string& path, const std::optional<std::string>& phase,
                 const std::optional<std::uint64_t>& iteration, const run_window& window);

// compare.cpp: schedule distance between two traces (FILE or FILE@PHASE[#ITERATION]).
int cmd_diff(const std::string& a_arg, const std::string& b_arg);

// files.cpp: whole-file checks and rewrites.
int cmd_validate(const std::vector<std::string>& paths);
int cmd_convert(const std::string& path, const std::string& to, const std::string& output);

// coarsen.cpp: prune the steal trees of the selected runs (at least one of
// max_level / min_tasks given, else a usage error) and write them to `output`.
int cmd_coarsen(const std::string& path, const std::string& output, const std::optional<std::uint32_t>& max_level,
                const std::optional<std::uint64_t>& min_tasks, const std::optional<std::string>& phase,
                const std::optional<std::uint64_t>& iteration);

// plan.cpp: balanced templates (steal_tree::plan) from the audit runs of the
// file -- run #`run`, else the latest audit run of `schedule`, else the
// latest audit run of every schedule -- written to `output`, one run per
// schedule, for runtime::load_traces.
int cmd_plan(const std::string& path, const std::string& output, const std::optional<std::string>& schedule,
             const std::optional<std::size_t>& run, double tolerance);

}  // namespace cws::trace_cli
