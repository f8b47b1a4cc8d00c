#pragma once
// The variant runner of the apps whose phases are block loops over one
// index range (cws-heat, cws-floyd, cws-fdtd, cws-jacobi): an init phase that
// first-touches the data, then step phases that recur --iters times per run.
// Written once here, so that an app keeps only its kernels, what their
// leaves touch, its verification and its own options:
//
//   * the variants: serial; cws under each policy of --policies (schedules
//     "<app>-<phase>/<suffix>"; `user` runs parallel_for_range_owned), plus
//     cws-random-interleave (data interleaved over the nodes) and
//     cws-stows-follow-init (the step phases replay init's template: schedule
//     follows data); then the app's TBB and OpenMP baselines;
//   * the flags that go with them (--follow-init, --evolve-init,
//     --verbose-iterations, -q, --policies, --order, the common ones);
//   * the timing (measure_variants: prepare / one run / finish hooks), the
//     ratios, the figures only cws variants have (schedules, locality, pages
//     moved and relocalization, the phase breakdown, the iteration
//     summaries, evolve's convergence), the iteration lines, the table and
//     the JSON document.
//
// With one step phase ("step") the cws figures are step_follows, iterations
// and the unprefixed breakdown; with several (fdtd's "e" and "h") each step
// phase gets its own <phase>_follows, <phase>_iterations,
// <phase>_local_share and <phase>_ breakdown, and the summaries run over all
// of them together.

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/bench_env.hpp"
#include "common/block_loops.hpp"
#include "common/block_rows.hpp"
#include "common/iteration_lines.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"
#include "common/variant_runner.hpp"

namespace cws_apps {

// The flags of a block-loop app beyond its own.
struct suite_options {
  common_options common;
  bool follow_init = false;
  std::string evolve_init = "random";
  bool all_iterations = false;
  bool quiet = false;
  std::optional<policies_option> policies;  // set by add_suite_options
};

// What a block-loop app says in its suite flags, and --iters' default.
struct suite_help {
  unsigned iters = 20;     // --iters' default: step phases per run
  std::string iters_help;  // --iters' description
  std::string footprint;   // completes --order's: the memory each order needs
  std::string follow =     // --follow-init's (heat's and floyd's words)
      "Under replaying policies, the step phases replay the init phase's template (schedule follows data) instead "
      "of their own";
};

// Adds --follow-init, --evolve-init, --verbose-iterations, -q, the common
// options (--iters as `help` says), --policies (the six cws policies by
// default) and --order.
void add_suite_options(CLI::App& app, suite_options& o, const suite_help& help);

using baseline_list = std::vector<std::pair<std::string, loop_flavour>>;
// tbb-auto, tbb-affinity (one affinity_partitioner per loop, kept across
// steps and runs), tbb-static and omp-static: the baselines of the SC14 loops.
baseline_list standard_baselines();

// What an app tells the runner about itself.
struct suite_spec {
  std::string app;                  // "heat": program cws-heat, schedules "heat-<phase>/<suffix>"
  std::vector<std::string> phases;  // block_loops phases: [0] the init (once per run), then the step phases
  baseline_list baselines;          // after the cws variants, in this order
  std::size_t n = 0, grain = 1;     // every loop: [0, n) in leaves of `grain`
  // Under a replaying policy without --follow-init: {phase, phase whose
  // template it replays} (fdtd: h replays e's).
  std::vector<std::pair<std::size_t, std::size_t>> follows{};
};

// One variant. The app keeps its own state (buffers) per variant, indexed by `index`.
struct loop_variant {
  std::size_t index = 0;
  std::string name;
  loop_flavour loop = loop_flavour::serial;
  std::string policy{};                     // cws variants only
  std::vector<cws::schedule*> schedules{};  // one per phase; nullptr outside the cws variants
  cws::numa::placement placement = cws::numa::first_touch;
  std::unique_ptr<block_loops> loops{};
  std::vector<run_map> maps{};  // cws variants: per phase, the schedule's iterations of the timed runs

  bool runs_cws() const noexcept { return loops->runs_cws_phases(); }
};

// The hooks of an app: its part of one variant's life. prepare: allocations,
// the untimed first-touch init run; one_run: one run, timing "init" and
// "step"; finish, after the variant's last run: the app's figures and its
// verification on the entry (the runner has set median_s / min_s of "step"
// and init_median_s / init_min_s), a message per mismatch on `wrong`; release
// the buffers.
using suite_hooks = variant_hooks<loop_variant>;

// The table's footnote on the locality columns: local %, last % (the last
// `last_phase`), moved / reloc ms (inside `time_title`), with the page-home backend.
std::string locality_note(const std::string& page_homes, const std::string& last_phase, const std::string& time_title);

// The words of the standard results table.
struct table_words {
  std::string time_title = "ms/step";  // the headline column (median_s)
  std::string per = "it";              // "desig/<per>", ...
  std::vector<column> split{};         // after "min ms" (fdtd: "e ms", "h ms")
  bool taken_back = true;              // "back/<per>"
  bool waiting = false;                // "wait ms/<per>"
};
std::vector<column> standard_columns(const table_words& w);

class loop_suite {
 public:
  // Creates every variant, its schedules and its loops; an unknown policy
  // throws here, before anything runs.
  loop_suite(bench_env& env, const suite_options& o, suite_spec spec);
  loop_suite(const loop_suite&) = delete;
  loop_suite& operator=(const loop_suite&) = delete;

  std::vector<loop_variant>& variants() noexcept { return variants_; }
  const std::vector<std::string>& policies() const noexcept { return policies_; }
  // The run's params every app prints: iters, runs, warmup, order, policies,
  // follow_init, evolve_init (merged into `own`, which keeps its keys first).
  json params(json own) const;

  // Measures every variant (hooks), adds the ratios vs omp-static, cws-random
  // and serial, finishes --trace-out, prints the iteration lines (unless
  // --json or -q) and the table or the JSON document, and reports every
  // mismatch. Returns the exit code (1 when a variant differs).
  int run(report& out, const suite_hooks& hooks, const std::string& caption, const std::vector<column>& columns,
          const std::vector<std::string>& notes);

 private:
  // The iteration lines of one step schedule of a cws variant, for the text output.
  struct iteration_block {
    std::string title;
    std::vector<iteration_line> lines;
  };
  void add_cws(const std::string& policy, const std::string& suffix, cws::numa::placement where, bool follow_init);
  void report_cws(const loop_variant& v, json& entry);
  void print_iteration_blocks() const;

  bench_env& env_;
  const suite_options& opt_;
  suite_spec spec_;
  std::vector<std::string> policies_;
  locality_tally tally_;
  std::vector<loop_variant> variants_;
  std::vector<iteration_block> blocks_;
};

}  // namespace cws_apps
