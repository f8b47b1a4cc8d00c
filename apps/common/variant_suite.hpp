#pragma once
// The variant runner of the apps whose variants are their own kind of
// object (cws-lulesh: a loop runner and a mesh per variant; cws-cilksort:
// arrays and a sort and an init schedule per variant), where the block
// loops of common/loop_suite.hpp do not fit. Written once here:
//
//   * --variants, the comma-separated choice out of the app's variant names;
//   * the measurement: measure_variants (--order) over the app's hooks, each
//     variant's entry in the report, the ratios of the medians, --trace-out;
//   * the one error line of a run whose verification failed (exit code 1).
//
// The app keeps its variants, its kernels' wiring, its verification, its
// figures and its table.

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/bench_env.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"

namespace cws_apps {

// --variants V1,V2,...: the variants to run. `chosen` holds every variant's
// name, which are the names it accepts and its default (shown in the help
// when `show_default`).
void add_variants_option(CLI::App& app, std::vector<std::string>& chosen, const std::string& help, bool show_default);

// Whether `name` is one of `chosen`.
bool is_chosen(const std::vector<std::string>& chosen, std::string_view name);

// The measurement's params: runs, warmup, order.
void put_plan(json& params, const run_plan& plan);

// A ratio every entry gets: entry[name] = its median_s / the median_s of variant `baseline`.
struct median_ratio {
  std::string name;
  std::string baseline;
};

// An app's part of one variant's life.
template <class Variant>
struct variant_hooks {
  std::function<void(Variant&)> prepare;                // allocations, untimed first touch
  std::function<void(Variant&, phase_timer&)> one_run;  // one run, warm-up or measured
  // After the variant's last run: its entry in the report ("variant" only so
  // far), a message per failed check on `wrong`; release its memory.
  std::function<void(Variant&, const phase_timer&, json& entry, std::vector<std::string>& wrong)> finish;
};

// Measures every variant as plan.order says (the finishes in the order of
// `variants`, each variant's `name` its entry), adds the ratios and
// finishes --trace-out. Returns the failed checks' messages, in order.
template <class Variant>
std::vector<std::string> measure_all(bench_env& env, const run_plan& plan, report& out, std::vector<Variant>& variants,
                                     const variant_hooks<Variant>& hooks, const std::vector<median_ratio>& ratios) {
  std::vector<std::string> wrong;
  const auto finish = [&](Variant& v, const phase_timer& t) { hooks.finish(v, t, out.add(v.name), wrong); };
  measure_variants(variants, plan, hooks.prepare, hooks.one_run, finish);
  for (const median_ratio& r : ratios) out.add_ratio(r.name, "median_s", r.baseline);
  env.save_trace();
  return wrong;
}

// No failures: 0. Otherwise one line on stderr, "<app>: error: <first
// failure>" followed by " (and N more<more>)" when there are N others, and 1.
int report_failures(const std::string& app_name, const std::vector<std::string>& wrong, const std::string& more = "");

}  // namespace cws_apps
