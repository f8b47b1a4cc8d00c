#pragma once
// The steps every variant runner of the apps takes, whatever its variants
// are, for the apps whose variants do not fit loop_suite (cws-prefix's three
// passes over blocks with two recursions, cws-memcopy's page placements):
// the timing of every variant (common/rounds.hpp) with its JSON entry opened
// for the app's figures and verification, then the ratios, --trace-out, the
// table or the JSON document, and every mismatch as an error line and the
// exit code.
//
//   cws_apps::variant_runner runner(env, opt.common, out, app.get_name());
//   runner.measure(variants, prepare, one_run,
//                  [&](variant& v, const phase_timer& t, json& e, std::vector<std::string>& wrong) { ... });
//   return runner.conclude({{"ratio_vs_omp_static", "median_s", "omp-static"}}, caption, columns, notes);
//
// Header-only (the apps' common library lists its sources in apps/CMakeLists.txt).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/bench_env.hpp"
#include "common/block_loops.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"

namespace cws_apps {

// The loop flavour of a cws variant under `policy`: `user` places block i on
// worker floor(i P / blocks) (parallel_for_range_owned), the others bisect.
inline loop_flavour cws_flavour_of(std::string_view policy) {
  return policy == cws::policy::user ? loop_flavour::cws_owned : loop_flavour::cws;
}

// The mean local share of a locality summary, null when no run declared touches.
inline json share_or_null(const locality_summary& s) { return s.reported ? json(s.mean_share) : json(nullptr); }

// The run plan among an app's params: runs, warmup, order.
inline json plan_params(const run_plan& plan) {
  return {{"runs", plan.runs}, {"warmup", plan.warmup}, {"order", to_string(plan.order)}};
}

// report::add_ratio's arguments: entry[name] = entry[key] / <baseline>'s.
struct ratio_spec {
  std::string name, key, baseline;
};

class variant_runner {
 public:
  // `app_name` ("cws-prefix") starts the error line of every mismatch.
  variant_runner(bench_env& env, const common_options& o, report& out, std::string app_name)
      : env_(env), opt_(o), out_(out), app_name_(std::move(app_name)) {}

  // Measures `variants` as the run plan says (measure_variants: prepare(v),
  // one_run(v, timer)). After a variant's last run, finish(v, timer, entry,
  // wrong) fills its JSON entry (already added, its "variant" set) and
  // adds one message per mismatch to `wrong`.
  template <class Variant, class Prepare, class OneRun, class Finish>
  void measure(std::vector<Variant>& variants, const Prepare& prepare, const OneRun& one_run, const Finish& finish) {
    measure_variants(variants, opt_.plan, prepare, one_run,
                     [&](Variant& v, const phase_timer& t) { finish(v, t, out_.add(v.name), wrong_); });
  }

  // Footnotes a variant's figures add, printed after the app's own.
  std::vector<std::string>& notes() noexcept { return notes_; }

  // Adds the ratios, finishes --trace-out, prints the table (caption,
  // columns, `notes` then notes()) or the JSON document, and reports every
  // mismatch on stderr. Returns the exit code: 1 when a variant differs.
  int conclude(const std::vector<ratio_spec>& ratios, const std::string& caption, const std::vector<column>& columns,
               std::vector<std::string> notes) const {
    for (const ratio_spec& r : ratios) out_.add_ratio(r.name, r.key, r.baseline);
    env_.save_trace();
    notes.insert(notes.end(), notes_.begin(), notes_.end());
    out_.print(opt_.json, caption, columns, notes);
    for (const std::string& w : wrong_) report_error(app_name_, w.c_str(), 1);
    return wrong_.empty() ? 0 : 1;
  }

 private:
  bench_env& env_;
  const common_options& opt_;
  report& out_;
  std::string app_name_;
  std::vector<std::string> wrong_, notes_;
};

}  // namespace cws_apps
