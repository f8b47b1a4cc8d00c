// cws-trace: offline inspection of cws trace files (DESIGN §7).
//
//   cws-trace info FILE... [--first N | --last N]   header, phase runs, totals (several files: each, then together)
//   cws-trace show FILE [--phase P] [--iteration K] [--first N | --last N]
//   cws-trace tree FILE --dot [-o OUT] [--phase P] [--iteration K]
//   cws-trace timeline FILE --chrome OUT.json [--phase P] [--iteration K]
//   cws-trace diff A B                           A, B: FILE or FILE@PHASE[#ITERATION]
//   cws-trace validate FILE...
//   cws-trace convert FILE --to text|xml|binary OUT
//   cws-trace coarsen FILE (--max-level L | --min-tasks N) OUT [--phase P] [--iteration K]
//   cws-trace plan FILE OUT [--schedule NAME] [--run N] [--tolerance X]
//   cws-trace locality FILE [--phase P] [--iteration K] [--first N | --last N]
//
// Human-readable tables by default; --json prints one JSON document on stdout
// instead. Exit codes: see exit_help below. --first N / --last N keep the
// earliest / latest N of the listed runs, so a script needs no `| head` or
// `| tail` (whose early exit a `set -o pipefail` script would otherwise see).
//
// A reader that stops early (`cws-trace info F | head`) is not an error:
// SIGPIPE is ignored, output stops at the closed pipe, and the exit code is
// the subcommand's own, so a pipeline under `set -o pipefail` does not fail
// for it. Another write error on stdout (a full disk) is exit 4.
//
// This file only wires the command line to the subcommands and turns their
// failures into exit codes. The subcommands live in inspect.cpp (info, show,
// tree, timeline), compare.cpp (diff), files.cpp (validate, convert),
// coarsen.cpp (coarsen), plan.cpp (plan) and locality.cpp (locality); cli_common.hpp and
// locality_format.hpp hold what they share.

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "commands.hpp"
#include "cws/steal_tree/plan.hpp"

namespace {

// The footer of --help; documents the exit_code enum of cli_common.hpp.
constexpr const char* exit_help =
    "Exit codes:\n"
    "  0  success (validate: every file is valid; locality: also when the file has no locality report)\n"
    "  1  usage error (unknown subcommand or option, missing argument, bad --phase/--iteration selection)\n"
    "  2  an input file is missing, unreadable, damaged, foreign, too new or inconsistent\n"
    "     (plan: or it has no audit run to plan from)\n"
    "  3  diff: the two sides cannot be compared (different worker counts or phase runs)\n"
    "  4  an output file could not be written (tree -o, timeline --chrome, convert, coarsen, plan),\n"
    "     or standard output failed other than by its reader going away\n"
    "Errors are one line on stderr; with --json they are also reported as\n"
    "{\"ok\": false, \"error\": ..., \"exit_code\": N} on stdout.\n"
    "A reader that closes the pipe early (| head) is not an error: output stops\n"
    "and the exit code is the subcommand's (no SIGPIPE).";

// Whether stdout is a pipe or a socket: the only outputs whose writes fail
// because the reader went away (EPIPE), which is the reader's choice.
bool stdout_is_pipe() {
  struct stat st {};
  return ::fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

// Flushes stdout at the end of a subcommand that returned `code`. A pipe
// closed by its reader keeps `code`; any other failed write is exit 4.
int finish_output(int code) {
  std::cout.flush();
  if (std::cout && std::ferror(stdout) == 0) return code;
  if (stdout_is_pipe()) return code;
  std::cerr << "cws-trace: cannot write to standard output\n";
  return code == cws::trace_cli::exit_ok ? cws::trace_cli::exit_output : code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cws::trace_cli;
  // A closed pipe then fails the write (EPIPE) instead of killing the
  // process; finish_output decides what that means.
  std::signal(SIGPIPE, SIG_IGN);

  CLI::App app{
      "Offline inspection of cws trace files (*.cwst): header, steal trees, timelines, schedule distance, "
      "data locality",
      "cws-trace"};
  app.footer(exit_help);
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");

  std::string file, output, other, to;
  std::vector<std::string> files;
  std::optional<std::string> phase;
  std::optional<std::uint64_t> iteration;
  std::optional<std::uint32_t> max_level;
  std::optional<std::uint64_t> min_tasks;
  run_window window;
  bool dot_flag = false;
  std::optional<std::string> plan_schedule;
  std::optional<std::size_t> plan_run;
  double tolerance = cws::steal_tree::default_balance_tolerance;

  auto add_json = [](CLI::App* sub) { sub->add_flag("--json", g_json_output, "Print one JSON document on stdout"); };
  // The trace file most subcommands read, and the file some of them write.
  auto add_file = [&](CLI::App* sub) { sub->add_option("FILE", file, "Trace file")->required(); };
  auto add_out = [&](CLI::App* sub, const std::string& help) { sub->add_option("OUT", output, help)->required(); };
  auto add_select = [&](CLI::App* sub) {
    sub->add_option("--phase", phase, "Only runs of this schedule (phase name)");
    sub->add_option("--iteration", iteration, "Only this iteration (0-based)");
  };
  auto add_window = [&](CLI::App* sub) {
    CLI::Option* first = sub->add_option("--first", window.first,
                                         "Only the earliest N of the runs it would list (after --phase / --iteration)")
                             ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40))
                             ->option_text("N");
    sub->add_option("--last", window.last, "Only the latest N of the runs it would list (after --phase / --iteration)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40))
        ->option_text("N")
        ->excludes(first);
  };

  CLI::App* info = app.add_subcommand(
      "info",
      "Header (producer, host, topology, workers, options) and a table of phase runs (with their balance and local "
      "share)");
  info->add_option("FILE", files,
                   "Trace file(s): several are listed in turn, then totalled (an MPI run's FILE.rank<N>)")
      ->required();
  add_window(info);
  add_json(info);

  CLI::App* show = app.add_subcommand("show", "Steal trees as indented text (per worker totals, then the tree)");
  add_file(show);
  add_select(show);
  add_window(show);
  add_json(show);

  CLI::App* tree = app.add_subcommand("tree", "Steal trees as Graphviz DOT (one cluster per phase run)");
  add_file(tree);
  tree->add_flag("--dot", dot_flag, "Graphviz DOT output (the only format, the default)");
  tree->add_option("-o,--output", output, "Write the DOT text here instead of stdout");
  add_select(tree);
  add_json(tree);

  CLI::App* timeline = app.add_subcommand("timeline", "Chrome trace-event JSON (open in https://ui.perfetto.dev)");
  add_file(timeline);
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

  CLI::App* convert =
      app.add_subcommand("convert", "Rewrite a trace with another archive kind (read back and verified)");
  add_file(convert);
  add_out(convert, "Output file");
  convert->add_option("--to", to, "Archive kind: text (portable, default of cws), xml, binary (not portable)")
      ->required()
      ->check(CLI::IsMember({"text", "xml", "binary"}));
  add_json(convert);

  CLI::App* coarsen = app.add_subcommand(
      "coarsen",
      "Dynamic coarsening: prune the steal trees of the selected phase runs (default: all) and write them to OUT\n"
      "(same header and archive kind). Drops the steals deeper than --max-level and those whose stolen subtree\n"
      "ran fewer than --min-tasks tasks (give one or both); a dropped steal also drops the deeper steals of its\n"
      "segment, whose (level, step) names it would shift. Audit records of pruned runs are removed; per-worker\n"
      "statistics stay those of the recorded run.");
  add_file(coarsen);
  add_out(coarsen, "Output trace file");
  coarsen->add_option("--max-level", max_level, "Drop steals at a level deeper than L (0 drops every steal)");
  coarsen->add_option("--min-tasks", min_tasks, "Drop steals whose stolen subtree ran fewer than N tasks");
  add_select(coarsen);
  add_json(coarsen);

  CLI::App* plan = app.add_subcommand(
      "plan",
      "Balanced templates from audit runs (recorded with CWS_AUDIT=1): each chosen run's spawn tree is given steals\n"
      "that hand every worker about 1/P of the tasks -- a serial run (one segment) is cut into P consecutive\n"
      "chunks (one contiguous range per worker for loops, workers in NUMA-node order), a parallel one keeps its\n"
      "steals and gets subtrees of its busiest workers carved out for idle or light ones. Writes OUT with one run\n"
      "per planned schedule (same header and archive kind), which runtime::load_traces seeds as templates.\n"
      "Default: the latest audit run of every schedule.");
  add_file(plan);
  add_out(plan, "Output trace file");
  plan->add_option("--schedule", plan_schedule, "Only this schedule (its latest audit run)");
  plan->add_option("--run", plan_run, "Only run #N of the file (the '#' column of info)");
  plan->add_option("--tolerance", tolerance,
                   "Balanced: no idle worker and the busiest within X times 1/P (default 1.10; carving stops there)")
      ->check(CLI::Range(1.0, 1e9));
  add_json(plan);

  CLI::App* locality = app.add_subcommand(
      "locality",
      "Data locality of the phase runs whose tasks declared touches (format version 3): pages, touched MB,\n"
      "local and unknown-home shares of the touched bytes, local share per NUMA node, and each relocalization\n"
      "made from the run (pages examined / moved / failed, MB moved, seconds, GB/s, page backend).\n"
      "A file without locality reports prints one line saying so.");
  add_file(locality);
  add_select(locality);
  add_window(locality);
  add_json(locality);

  // CLI11 prints the help or the parse error itself; only its exit codes are
  // mapped onto ours (help = success, anything else = usage error).
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? exit_ok : exit_usage;
  }

  const auto run = [&]() -> int {
    try {
      if (info->parsed()) return cmd_info(files, window);
      if (show->parsed()) return cmd_show(file, phase, iteration, window);
      if (tree->parsed()) return cmd_tree(file, phase, iteration, output);
      if (timeline->parsed()) return cmd_timeline(file, phase, iteration, output);
      if (diff->parsed()) return cmd_diff(file, other);
      if (validate->parsed()) return cmd_validate(files);
      if (convert->parsed()) return cmd_convert(file, to, output);
      if (coarsen->parsed()) return cmd_coarsen(file, output, max_level, min_tasks, phase, iteration);
      if (plan->parsed()) return cmd_plan(file, output, plan_schedule, plan_run, tolerance);
      if (locality->parsed()) return cmd_locality(file, phase, iteration, window);
    } catch (const failure& f) {
      std::cerr << "cws-trace: " << f.message << "\n";
      if (g_json_output) emit({{"ok", false}, {"error", f.message}, {"exit_code", f.code}});
      return f.code;
    } catch (const std::exception& e) {
      // Not a failure a subcommand foresaw, but it arose from reading the input.
      std::cerr << "cws-trace: " << e.what() << "\n";
      if (g_json_output) emit({{"ok", false}, {"error", e.what()}, {"exit_code", exit_bad_input}});
      return exit_bad_input;
    }
    return exit_usage;  // not reached: require_subcommand(1) means one subcommand ran
  };
  return finish_output(run());
}
