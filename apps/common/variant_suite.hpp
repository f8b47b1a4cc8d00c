#pragma once
// The variant runner of the apps that wire their own loops per variant
// (cws-cg: a schedule per kernel; cws-mg: a schedule table per level and
// kernel), where common/loop_suite.hpp's block loops over one index range do
// not fit. It holds what their mains would otherwise each write again:
//
//   * the variants in the order every app measures them: serial, the cws
//     variants the app makes for each policy of --policies, then the TBB and
//     OpenMP baselines (standard_baselines());
//   * the measurement (measure_variants) with one JSON entry per variant and
//     the mismatches its verification finds, the ratio columns, --trace-out,
//     the table or the JSON document, the errors and the exit code.
//
// An app's variant type is its own (its loop runner, its data, its results);
// it needs the members `name` (std::string) and `loop` (loop_flavour) and a
// default constructor. Header-only: the apps' common library lists its
// sources in apps/CMakeLists.txt.

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/bench_env.hpp"
#include "common/block_loops.hpp"
#include "common/loop_suite.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"

namespace cws_apps {

// The flavour of a cws variant under `policy`: `user` runs parallel_for_range_owned.
inline loop_flavour cws_flavour(std::string_view policy) noexcept {
  return policy == cws::policy::user ? loop_flavour::cws_owned : loop_flavour::cws;
}

// serial; what add_cws(variants, policy) appends for each of `policies`; the
// standard baselines. The variants that are not cws get only name and loop.
template <class Variant, class AddCws>
std::vector<Variant> standard_variants(const std::vector<std::string>& policies, const AddCws& add_cws) {
  std::vector<Variant> variants;
  const auto add_plain = [&](std::string name, loop_flavour flavour) {
    Variant v{};
    v.name = std::move(name);
    v.loop = flavour;
    variants.push_back(std::move(v));
  };
  add_plain("serial", loop_flavour::serial);
  for (const std::string& p : policies) add_cws(variants, p);
  for (auto& [name, flavour] : standard_baselines()) add_plain(std::move(name), flavour);
  return variants;
}

// One variant's part of the measurement, as the app does it.
template <class Variant>
struct variant_hooks {
  std::function<void(Variant&)> prepare;                // set-up, untimed (allocations, first touch)
  std::function<void(Variant&, phase_timer&)> one_run;  // one run, warm-up (timer not recording) or measured
  // After the variant's last run: its figures and verification on `entry`,
  // a message per mismatch on `wrong`; release its data.
  std::function<void(Variant&, const phase_timer&, json& entry, std::vector<std::string>& wrong)> finish;
  std::function<void()> before_table{};  // optional, text output only: printed after --trace-out, before the table
};

// entry[name] = entry[key] / the entry of variant `baseline`[key] (report::add_ratio).
struct ratio_column {
  std::string name, key, baseline;
};

// What the text output says around the table.
struct table_text {
  std::string caption;
  std::vector<column> columns;
  std::vector<std::string> notes;
};

// The columns of an NPB app's table: the variant, the time of one outer
// iteration (median_s, min_s, in ms with `ms_decimals`), NPB's Mop/s (mops)
// and the time ratio to omp-static; then the app's `own`.
inline std::vector<column> npb_columns(int ms_decimals, const std::vector<column>& own) {
  std::vector<column> c{{"variant", "variant"},
                        {"ms/iter", "median_s", 1e3, ms_decimals},
                        {"min ms", "min_s", 1e3, ms_decimals},
                        {"Mop/s", "mops", 1, 0},
                        {"vs omp", "ratio_vs_omp_static", 1, 2}};
  c.insert(c.end(), own.begin(), own.end());
  return c;
}

// Measures every variant as opt.plan says, adds the ratios, finishes
// --trace-out, prints the table (text(), called after the measurement so it
// may quote results) or the JSON document, and reports every mismatch as an
// error of `program`. Returns the exit code: 1 when a variant differs.
template <class Variant>
int run_variants(bench_env& env, report& out, const common_options& opt, const std::string& program,
                 std::vector<Variant>& variants, const variant_hooks<Variant>& hooks,
                 const std::vector<ratio_column>& ratios, const std::function<table_text()>& text) {
  std::vector<std::string> wrong;
  measure_variants(variants, opt.plan, hooks.prepare, hooks.one_run,
                   [&](Variant& v, const phase_timer& t) { hooks.finish(v, t, out.add(v.name), wrong); });
  for (const ratio_column& r : ratios) out.add_ratio(r.name, r.key, r.baseline);
  env.save_trace();
  if (!opt.json && hooks.before_table) hooks.before_table();
  const table_text t = text();
  out.print(opt.json, t.caption, t.columns, t.notes);
  for (const std::string& w : wrong) report_error(program, w.c_str(), 1);
  return wrong.empty() ? 0 : 1;
}

}  // namespace cws_apps
