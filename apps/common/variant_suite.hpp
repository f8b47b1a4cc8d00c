#pragma once
// The suite of the apps that wire their own loops per variant (cws-cg: a
// schedule per kernel; cws-mg: a schedule table per level and kernel), on the
// variant runner (variant_runner.hpp), where common/loop_suite.hpp's block
// loops over one index range do not fit. It holds what their mains would
// otherwise each write again:
//
//   * the variants in the order every app measures them: serial, the cws
//     variants the app makes for each policy of --policies, then the TBB and
//     OpenMP baselines (standard_baselines());
//   * the order of a variant's end (its times, its verification, the cws
//     figures, its release); the measurement, the ratios, --trace-out, the
//     table and the errors are the variant runner's (variant_runner.hpp).
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
#include "common/variant_runner.hpp"

namespace cws_apps {

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

// An app's variants and its part of their measurement; run() does the rest.
template <class Variant>
class variant_suite {
 public:
  // The app's check of one variant, after its timings: fields on its entry, a message per mismatch on `wrong`.
  using verify_fn = std::function<void(const Variant&, json& entry, std::vector<std::string>& wrong)>;

  variant_suite(bench_env& env, const common_options& opt) : env_(env), opt_(opt) {}
  variant_suite(const variant_suite&) = delete;
  variant_suite& operator=(const variant_suite&) = delete;
  virtual ~variant_suite() = default;

 protected:
  // Set-up, untimed (allocations, first touch).
  virtual void prepare(Variant& v) = 0;
  // One run, warm-up (timer not recording) or measured.
  virtual void one_run(Variant& v, phase_timer& t) = 0;
  // After the variant's last run, in this order: its timings, (verify), the
  // figures only cws variants have (cws variants only), its data released.
  virtual void put_times(const Variant& v, const phase_timer& t, json& entry) const = 0;
  virtual void put_cws_figures(const Variant& v, json& entry) = 0;
  virtual void release(Variant& v) = 0;
  // After --trace-out, before the table (text output only).
  virtual void print_before_table() const {}
  // What the text output says around the table; called after the measurement, so it may quote results.
  virtual table_text text() const = 0;

  // Measures every variant as opt.plan says, adds the ratios, finishes
  // --trace-out, prints the table or the JSON document, and reports every
  // mismatch as an error of `program`. Returns the exit code: 1 when a variant differs.
  int run(report& out, const std::string& program, const verify_fn& verify, const std::vector<ratio_spec>& ratios) {
    variant_runner runner(env_, opt_, out, program);
    runner.measure(variants_, {.prepare = [&](Variant& v) { prepare(v); },
                               .one_run = [&](Variant& v, phase_timer& t) { one_run(v, t); },
                               .finish =
                                   [&](Variant& v, const phase_timer& t, json& e, std::vector<std::string>& wrong) {
                                     put_times(v, t, e);
                                     verify(v, e, wrong);
                                     if (runs_cws_phases(v.loop)) put_cws_figures(v, e);
                                     release(v);
                                   }});
    runner.add_ratios(ratios);
    if (!opt_.json) print_before_table();
    const table_text t = text();
    return runner.print_and_report(t.caption, t.columns, t.notes);
  }

  bench_env& env_;
  const common_options& opt_;
  std::vector<Variant> variants_;
};

}  // namespace cws_apps
