#pragma once
// What every app shares: the common flags, the environment they set up (one
// cws runtime, and TBB and OpenMP limited to the same number of threads so the
// variants of one run compete on equal terms), and the error conventions.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <cws/cws.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <utility>
#include <vector>

#include "common/timing.hpp"

namespace cws_apps {

// Whether `policy` replays a template (schedule::follow is meaningful to it),
// as its component registered it. Throws cws::error for an unknown policy.
inline bool replays(std::string_view policy) { return cws::policy_registry::traits(policy).replays; }

// `names` without repeats, in the order of their first occurrence (--policies random,stows,random).
inline std::vector<std::string> without_repeats(const std::vector<std::string>& names) {
  std::vector<std::string> unique;
  for (const std::string& name : names)
    if (std::find(unique.begin(), unique.end(), name) == unique.end()) unique.push_back(name);
  return unique;
}

struct common_options {
  unsigned workers = 0;           // 0: the runtime's default (CWS_WORKERS, else one per core)
  std::string policy = "random";  // cws policy of the cws variants
  unsigned iters = 1;             // kernel repetitions per measured run
  run_plan plan;
  bool json = false;
  std::string trace_out;            // --trace-out: stream the recorded steal trees here
  std::string trace_in;             // --trace-in: seed the schedules' templates from this trace file
  bool trace_in_converged = false;  // --trace-in-converged: its settled schedules start converged
  bool phase_timeline = false;      // --phase-timeline: the runtime times every phase's parts
};

// --workers, --policy, --iters, --runs, --warmup, --json, --trace-out, --trace-in, --trace-in-converged.
void add_common_options(CLI::App& app, common_options& o);

// --phase-timeline (o.phase_timeline), for the apps that report the parts of
// their cws phases (phase_timeline objects in the JSON).
void add_phase_timeline_option(CLI::App& app, common_options& o);

// --order sequential|interleaved (o.plan.order), for the apps that measure
// their variants with measure_variants (common/rounds.hpp). `footprint`
// completes the help: the memory each order needs.
void add_order_option(CLI::App& app, common_options& o, const std::string& footprint);

// --policies P1,P2,... (one set of cws variants per policy), with the common
// --policy as its single-policy form; the two exclude each other. Create it
// after add_common_options, and keep it in place: CLI11 writes into it.
class policies_option {
 public:
  policies_option(CLI::App& app, const common_options& o, std::vector<std::string> defaults, const std::string& help);
  policies_option(const policies_option&) = delete;
  policies_option& operator=(const policies_option&) = delete;
  // After parsing: {P} for --policy P, else the --policies list without
  // repeats. Throws cws::error for an unknown name (policy_registry).
  std::vector<std::string> chosen() const;

 private:
  const common_options& opt_;
  std::vector<std::string> list_;
  CLI::Option* policy_;
};

// The flags of an app that runs one set of cws variants per policy, after
// its own: the common ones, --policies (the six cws policies by default;
// `policies_help`), set up in `policies`, and --order (`footprint`: the
// memory each order needs).
void add_variant_options(CLI::App& app, common_options& o, std::optional<policies_option>& policies,
                         const std::string& policies_help, const std::string& footprint);

// --evolve-init POLICY (default: `policy` as it stands, "random" in every
// app): the policy of the first-touch (init) schedule of the evolve variants;
// `help` says what that schedule is in the app (by default: the words of the
// apps whose cws-evolve variant runs its init schedule under relws).
void add_evolve_init_option(CLI::App& app, std::string& policy,
                            const std::string& help =
                                "Policy of the init schedule of the cws-evolve variant (random: "
                                "it does not move pages; evolve: it relocalizes them to init's "
                                "own tree after each of its relws runs)");

class bench_env {
 public:
  // Throws cws::error for a bad CWS_* variable or an impossible worker count,
  // and for a --trace-in file that cannot be loaded (unreadable, damaged,
  // recorded with another worker count).
  // `adjust` may change the runtime's configuration after the CWS_* variables
  // and the flags were applied (e.g. an app that attaches recorders itself).
  explicit bench_env(const common_options& o, const std::function<void(cws::runtime_config&)>& adjust = {});

  cws::runtime& rt() noexcept { return *rt_; }
  const cws::runtime& rt() const noexcept { return *rt_; }
  unsigned workers() const noexcept { return rt_->workers(); }

  // Runs f inside the TBB arena of workers() threads and returns its result.
  // (The cws runtime pins this thread only during its phases, so TBB and
  // OpenMP threads created from here get the whole machine.)
  template <class F>
  decltype(auto) in_tbb(F&& f) {
    return arena_->execute(std::forward<F>(f));
  }

  // Finishes --trace-out, if given (a note on stderr): the constructor started
  // streaming every phase there, this closes the stream; with recording off
  // it saves the recorded phases instead. Throws cws::error when the file
  // cannot be written.
  void save_trace() const;
  // Writes `file` to --trace-out instead, if given (an app whose runtime
  // records no phases itself, e.g. cws-recording with its own recorders).
  void save_trace(const cws::traces::trace_file& file) const;

  // {"summary", "source", "synthetic", "numa_nodes", "cores", "pus", "workers"}.
  nlohmann::ordered_json topology_json() const;
  // One line for the table caption.
  std::string topology_line() const;

 private:
  likwid::session likwid_;  // marker API initialized for the whole run, results written at the end
  std::string trace_out_;
  std::unique_ptr<cws::runtime> rt_;
  std::unique_ptr<tbb::global_control> tbb_limit_;
  std::unique_ptr<tbb::task_arena> arena_;
};

// Prints "<app name>: error: <message>" on stderr and returns `code`.
int report_error(const std::string& app_name, const char* message, int code);

// Runs body(); cws::error -> exit code 2, other exceptions -> 1, each as one error line.
template <class Body>
int guarded(const std::string& app_name, Body&& body) {
  try {
    return body();
  } catch (const cws::error& e) {
    return report_error(app_name, e.what(), 2);
  } catch (const std::exception& e) {
    return report_error(app_name, e.what(), 1);
  }
}

// Parses the command line and runs body() with the conventions of every app:
// a bad flag gives CLI11's message and exit code; cws::error gives one line
// "<app name>: error: <message>" on stderr and exit code 2; any other
// exception the same line and exit code 1. Returns the exit code.
template <class Body>
int run_main(CLI::App& app, int argc, char** argv, Body&& body) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return guarded(app.get_name(), std::forward<Body>(body));
}

}  // namespace cws_apps
