#pragma once
// The variant runner of the apps: the steps every app takes, whatever its
// variants are, written once. The block-loop apps reach it through
// loop_suite, the PufferFish row benchmarks through row_suite; the others
// (cws-prefix, cws-memcopy, cws-lulesh, cws-cilksort, ...) call it directly:
//
//   * --variants, the comma-separated choice out of an app's variant names;
//   * the timing of every variant as the run plan says (common/rounds.hpp:
//     interleaved rounds or one variant after another), with its JSON entry
//     opened for the app's figures and verification;
//   * the ratios of the medians and --trace-out;
//   * the table or the JSON document, and every mismatch as an error line and
//     the exit code (conclude), or one line for them all (report_failures).
//
//   cws_apps::variant_runner runner(env, opt.common, out, app.get_name());
//   runner.measure(variants, {.prepare = ..., .one_run = ..., .finish = ...});
//   return runner.conclude({{"ratio_vs_omp_static", "median_s", "omp-static"}}, caption, columns, notes);

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/bench_env.hpp"
#include "common/block_loops.hpp"
#include "common/locality_tally.hpp"
#include "common/loop_flavour_names.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"

namespace cws_apps {

// --variants V1,V2,...: the variants to run. `chosen` holds every variant's
// name, which are the names it accepts and its default (shown in the help
// when `show_default`).
void add_variants_option(CLI::App& app, std::vector<std::string>& chosen, const std::string& help, bool show_default);
// Whether `name` is one of `chosen`.
bool is_chosen(const std::vector<std::string>& chosen, std::string_view name);

// The run plan among an app's params: runs, warmup, order.
json plan_params(const run_plan& plan);
// An app's params with the run plan's in their place: `before`, then runs,
// warmup and order, then `after`.
json with_plan_params(json before, const run_plan& plan, const json& after);

// report::add_ratio's arguments: entry[name] = entry[key] / <baseline>'s.
struct ratio_spec {
  std::string name, key = "median_s", baseline;
};

// An app's part of one variant's life.
template <class Variant>
struct variant_hooks {
  std::function<void(Variant&)> prepare;                // allocations, the untimed first touch
  std::function<void(Variant&, phase_timer&)> one_run;  // one run, warm-up or measured
  // After the variant's last run: its JSON entry (its "variant" set), a
  // message per failed check on `wrong`; release the variant's memory.
  std::function<void(Variant&, const phase_timer&, json& entry, std::vector<std::string>& wrong)> finish;
};

// entry["verified"]: whether `mismatch` is empty (the check passed); a
// mismatch also goes on `wrong`.
void put_check(json& entry, std::vector<std::string>& wrong, const std::string& mismatch);

// No failures: 0. Otherwise one line on stderr, "<app>: error: <first
// failure>" followed by " (and N more<more>)" when there are N others, and 1.
int report_failures(const std::string& app_name, const std::vector<std::string>& wrong, const std::string& more = "");

class variant_runner {
 public:
  // `app_name` ("cws-prefix") starts the error line of every mismatch.
  variant_runner(bench_env& env, const common_options& o, report& out, std::string app_name)
      : env_(env), opt_(o), out_(out), app_name_(std::move(app_name)) {}

  // Measures `variants` as the run plan says (measure_variants); each
  // variant's `name` names its entry in the report.
  template <class Variant>
  void measure(std::vector<Variant>& variants, const std::type_identity_t<variant_hooks<Variant>>& hooks) {
    measure_variants(variants, opt_.plan, hooks.prepare, hooks.one_run,
                     [&](Variant& v, const phase_timer& t) { hooks.finish(v, t, out_.add(v.name), wrong_); });
  }

  // The ratios, then --trace-out: the measurement's end, before any output.
  void add_ratios(const std::vector<ratio_spec>& ratios) const;
  // Footnotes a variant's figures add, printed after the app's own.
  std::vector<std::string>& notes() noexcept { return notes_; }
  // The failed checks' messages so far, in order.
  const std::vector<std::string>& failures() const noexcept { return wrong_; }

  // Prints the table (caption, columns, `notes` then notes()) or the JSON
  // document, and reports every mismatch on stderr, one line each. Returns
  // the exit code: 1 when a variant differs.
  int print_and_report(const std::string& caption, const std::vector<column>& columns,
                       std::vector<std::string> notes) const;
  // add_ratios, then print_and_report.
  int conclude(const std::vector<ratio_spec>& ratios, const std::string& caption, const std::vector<column>& columns,
               std::vector<std::string> notes) const {
    add_ratios(ratios);
    return print_and_report(caption, columns, std::move(notes));
  }

 private:
  bench_env& env_;
  const common_options& opt_;
  report& out_;
  std::string app_name_;
  std::vector<std::string> wrong_, notes_;
};

}  // namespace cws_apps
