#include "mg/bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "common/table_columns.hpp"

namespace mg_app {

using cws_apps::json;
using cws_apps::loop_flavour;

bench::bench(cws_apps::bench_env& env, const cws_apps::common_options& opt, const std::vector<std::string>& policies,
             const mg::class_params& cls, settings s)
    : variant_suite(env, opt), policies_(policies), cls_(cls), s_(std::move(s)), lt_(cls.log2_size) {
  for (const std::string& name : cws_apps::without_repeats(s_.strategy_names))
    strategies_.push_back(*strategy_named(name));
  if (s_.block == 0) s_.block = cws_apps::block_rows(0, cls.size(), env.workers());
  while (first_parallel_ < lt_ && mg::interior_of(first_parallel_) < s_.serial_below) ++first_parallel_;
  if (mg::interior_of(first_parallel_) < s_.serial_below) first_parallel_ = lt_ + 1;  // nothing is parallel

  // All schedules are created before anything runs, so an unknown policy fails at once (exit 2).
  variants_ = cws_apps::standard_variants<variant>(policies_, [&](std::vector<variant>& list, const std::string& p) {
    if (!cws_apps::replays(p)) {
      add_cws(list, p, std::nullopt, "cws-" + p, false);  // no template: the strategy changes nothing
      return;
    }
    for (strategy st : strategies_)
      add_cws(list, p, st, strategies_.size() == 1 ? "cws-" + p : fmt::format("cws-{}-{}", p, to_string(st)), false);
    if (p == cws::policy::stows) add_cws(list, p, strategy::per_kernel, "cws-stows-follow-init", true);
  });
  for (variant& v : variants_)
    v.runner = std::make_unique<variant_runner>(env, v.loop, lt_, first_parallel_, s_.block, v.table);
  charges_ = mg::find_charges(cls.size());

  level_table_ = json::array();
  for (unsigned k = lt_; k >= 1; --k) {
    const std::size_t planes = mg::interior_of(k);
    const bool par = k >= first_parallel_;
    level_table_.push_back(
        {{"level", k},
         {"planes", planes},
         {"parallel", par},
         {"leaves", par ? json((planes + s_.block - 1) / std::min(s_.block, planes)) : json(nullptr)}});
  }
}

void bench::add_cws(std::vector<variant>& list, const std::string& p, std::optional<strategy> s,
                    const std::string& name, bool follow_init) {
  const std::string suffix = name.substr(4);  // without "cws-"
  const strategy chosen = s.value_or(strategy::per_kernel);
  variant v{.name = name,
            .loop = cws_apps::cws_flavour_of(p),
            .policy = p,
            .schedules = s,
            .follows = follow_init ? "init" : ""};
  v.table.assign(lt_ + 1, std::vector<cws::schedule*>(mg::kernel_count, nullptr));
  const std::string init_policy = p == cws::policy::evolve ? s_.evolve_init : p;
  for (unsigned k = first_parallel_; k <= lt_; ++k)
    for (mg::kernel kern : mg::all_kernels) {
      cws::schedule& sch =
          env_.rt().schedule(schedule_name(chosen, kern, k, suffix), kern == mg::kernel::init ? init_policy : p);
      if (follow_init && kern != mg::kernel::init) sch.follow(schedule_name(chosen, mg::kernel::init, k, suffix));
      v.table[k][static_cast<std::size_t>(kern)] = &sch;
    }
  list.push_back(std::move(v));
}

json bench::params() const {
  std::vector<std::string> strategy_list;
  for (strategy st : strategies_) strategy_list.emplace_back(to_string(st));
  return cws_apps::with_plan_params({{"class", std::string(1, cls_.name)},
                                     {"size", cls_.size()},
                                     {"nit", cls_.iterations},
                                     {"levels", lt_},
                                     {"verify_value", cls_.verify_value},
                                     {"epsilon", mg::verify_epsilon},
                                     {"bytes_per_variant", mg::hierarchy::bytes_for(lt_)},
                                     {"block_planes", s_.block},
                                     {"serial_below", s_.serial_below},
                                     {"parallel_levels", level_table_},
                                     {"iters", opt_.iters}},
                                    opt_.plan,
                                    {{"policies", policies_},
                                     {"schedules", strategy_list},
                                     {"evolve_init", s_.evolve_init},
                                     {"page_homes", env_.rt().page_homes().name()}});
}

int bench::run(const std::string& program, const verify_fn& verify, std::function<std::string()> ok_note) {
  ok_note_ = std::move(ok_note);
  cws_apps::report out("mg", env_, params());
  return variant_suite::run(out, program, verify,
                            {{"ratio_vs_omp_static", "median_s", "omp-static"},
                             {"mops_vs_omp_static", "mops", "omp-static"},
                             {"ratio_vs_serial", "median_s", "serial"}});
}

// Set-up, untimed: the variant's grids, first touched by its own loops; v = the charges.
void bench::prepare(variant& v) {
  v.grids.emplace(lt_, cws::numa::first_touch);
  v.solver.emplace(cls_, *v.grids, *v.runner);
  v.runner->begin_run(false);
  v.solver->first_touch();
  v.solver->set_rhs(charges_);
}

void bench::one_run(variant& v, cws_apps::phase_timer& t) {
  double calls = 0;
  t.time_reported("benchmark", opt_.iters, [&] {
    v.solver->reset();
    v.runner->begin_run(t.recording());
    mg::norms result;
    const double s = cws_apps::seconds_of([&] { result = v.solver->benchmark(); });
    v.rnm2.push_back(result.rnm2);
    calls += v.runner->calls_s();
    return s;
  });
  if (t.recording()) v.calls_s.push_back(calls / opt_.iters);
}

void bench::put_times(const variant& v, const cws_apps::phase_timer& t, json& e) const {
  const cws_apps::samples& runs = t["benchmark"];
  const double nit = cls_.iterations;
  e["median_s"] = runs.median() / nit;  // one V-cycle (and its residual), NPB's time / nit
  e["min_s"] = runs.min() / nit;
  e["runs"] = runs.size();
  e["benchmark_median_s"] = runs.median();
  e["mops"] = mg::mops(cls_, runs.median());
  std::vector<double> calls = v.calls_s;
  std::nth_element(calls.begin(), calls.begin() + calls.size() / 2, calls.end());
  e["parallel_calls_share"] = runs.median() > 0 && !calls.empty() ? calls[calls.size() / 2] / runs.median() : 0.0;
}

void bench::put_cws_figures(const variant& v, json& e) {
  e["policy"] = v.policy;
  e["schedules"] = v.schedules ? json(to_string(*v.schedules)) : json(nullptr);
  e["follows"] = v.follows.empty() ? json(nullptr) : json(v.follows);
  v.runner->tally().put(e);
  const auto phases = static_cast<double>(v.runner->tally().phases);
  e["phases_per_benchmark"] = opt_.plan.runs ? phases / (opt_.plan.runs * opt_.iters) : 0.0;
}

void bench::release(variant& v) {
  v.solver.reset();
  v.grids.reset();
}

cws_apps::table_text bench::text() const {
  std::string leaves;
  for (const auto& l : level_table_)
    if (l["parallel"].get<bool>())
      leaves += fmt::format("{}{}", leaves.empty() ? "" : ", ", l["leaves"].get<std::size_t>());
  const std::string parallel_text =
      first_parallel_ > lt_
          ? std::string("every level on the caller (--serial-below)")
          : fmt::format(
                "levels {} down to {} in parallel with {} leaves ({} planes per leaf), coarser levels on the "
                "caller",
                lt_, first_parallel_, leaves, s_.block);
  std::vector<cws_apps::column> own_columns{{"par %", "parallel_calls_share", 100, 0},
                                            {"phases", "phases_per_benchmark", 1, 0},
                                            {"replayed %", "replayed_share", 100, 0},
                                            {"div", "diverged_phases"}};
  const std::vector<cws_apps::column> locality = cws_apps::locality_columns();
  own_columns.insert(own_columns.end(), locality.begin(), locality.end());
  own_columns.insert(own_columns.end(), {{"reloc ms", "relocalization_s", 1e3, 1}, {"ok", "verified"}});
  return {
      fmt::format("cws-mg: NAS MG class {} ({}^3, {} V-cycles, {} levels, {:.0f} MB per variant); {}; {} runs (+{} "
                  "warm-up)",
                  cls_.name, cls_.size(), cls_.iterations, lt_,
                  static_cast<double>(mg::hierarchy::bytes_for(lt_)) / 1e6, parallel_text, opt_.plan.runs,
                  opt_.plan.warmup),
      cws_apps::npb_columns(2, own_columns),
      {"ms/iter: median over runs of NPB's timed region (initial residual, nit x (V-cycle, residual), norm) over "
       "nit, the wall clock around the whole region for every variant; Mop/s: NPB's 58 x nit x n^3 over that time;",
       "vs omp: time ratio to omp-static (lower is better); par %: share of the region spent inside the parallel "
       "calls (rt.run, the TBB call, the OpenMP region), the rest runs on the caller (coarse levels, ghost planes);",
       "phases: cws phases per benchmark; replayed %: share of them that replayed a template; div: diverged phases "
       "(measured runs);",
       fmt::format("local %: mean over the measured kernel phases of the share of declared bytes on a page homed on "
                   "the toucher's node (page homes: {}); last %: the last measured run's phases;",
                   env_.rt().page_homes().name()),
       "moved / reloc ms: pages moved and time spent by the relocalizations after the measured phases (evolve's);",
       ok_note_()}};
}

}  // namespace mg_app
