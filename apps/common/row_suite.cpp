#include "common/row_suite.hpp"

#include <fmt/format.h>

#include <utility>

#include "common/bounded_option.hpp"
#include "common/grid_difference.hpp"
#include "common/rounds.hpp"
#include "common/variant_runner.hpp"

namespace pufferfish {

namespace {

// Sum of all cells in index order, in double.
double checksum(const float* a, std::size_t n) {
  double s = 0;
  for (std::size_t k = 0; k < n; ++k) s += a[k];
  return s;
}

}  // namespace

void add_count_option(CLI::App& app, const std::string& name, std::size_t& value, const std::string& help,
                      std::size_t min, std::size_t max) {
  cws_apps::add_bounded_option(app, name, value, help, min, max);
}

void add_row_options(CLI::App& app, row_options& o, const row_help& help) {
  add_count_option(app, "--tile", o.tile, help.tile, 1, std::size_t{1} << 20);
  cws_apps::add_checked_option(
      app, "--recursion", o.recursion,
      fmt::format("regular: {0}'s binary splitter; irregular: {0}-ir's 2-/4-way one", help.title),
      CLI::IsMember({"regular", "irregular"}));
  app.add_option("--variants", o.variants, "Comma-separated variants to run (default: all): " + variant_names())
      ->delimiter(',');
  o.common.iters = help.iters;
  cws_apps::add_common_options(app, o.common);
  cws_apps::add_phase_timeline_option(app, o.common);
  cws_apps::add_order_option(app, o.common, help.footprint);
  app.get_option("--iters")->description(help.iters_help);
  o.policy_flag = app.get_option("--policy");
  app.get_option("--policy")->description("Only the cws variants whose kernel policy this is (and the baselines)");
}

row_suite::row_suite(cws_apps::bench_env& env, const row_options& o, row_spec spec)
    : env_(env),
      opt_(o),
      spec_(std::move(spec)),
      shape_(o.recursion == "regular" ? cws_apps::recursion::regular : cws_apps::recursion::irregular),
      bench_(spec_.app + (shape_ == cws_apps::recursion::regular ? "" : "-ir")),
      locality_(env.rt()),
      counters_(env.rt()) {
  const bool policy_given = o.policy_flag != nullptr && o.policy_flag->count() > 0;
  // Every schedule is created before anything runs, so an unknown policy fails at once (exit 2).
  for (const variant_kind& k : choose_variants(o.variants, policy_given ? o.common.policy : "")) {
    row_variant v{.name = k.name, .kind = k};
    if (k.how == runner::cws) {
      for (std::size_t ph = 0; ph < spec_.phases.size(); ++ph)
        v.schedules.push_back(
            &env_.rt().schedule(spec_.app + "-" + spec_.phases[ph] + "/" + k.name, ph == 0 ? k.init_policy : k.policy));
      // The kernel phases split the same rows the same way, and a page holds
      // rows of several leaves: with one tree for all of them, evolve moves
      // each page to one place, not back and forth between phases.
      if (learns_trees(k))
        for (std::size_t ph = 2; ph < v.schedules.size(); ++ph) v.schedules[ph]->follow(v.schedules[1]->name());
    } else {
      v.schedules.assign(spec_.phases.size(), nullptr);
    }
    v.loops = std::make_unique<row_loops>(env_, k.how, shape_, o.tile, v.schedules);
    variants_.push_back(std::move(v));
  }
}

int row_suite::run(const row_hooks& hooks, const std::vector<float>& expected, const row_output& output) {
  const cws_apps::run_plan& plan = opt_.common.plan;
  const unsigned iters = opt_.common.iters;
  cws_apps::json params = {{"bench", bench_}};
  params.update(output.sizes);
  params[spec_.step.name + "s"] = iters;
  params["iters"] = iters;
  params["tile"] = opt_.tile;
  params["recursion"] = to_string(shape_);
  params.update(output.own);
  params.update(cws_apps::plan_params(plan));
  params["checksum"] =
      expected.empty() ? cws_apps::json(nullptr) : cws_apps::json(checksum(expected.data(), expected.size()));
  params["page_homes"] = env_.rt().page_homes().name();
  cws_apps::report out(spec_.app, env_, std::move(params));

  cws_apps::variant_runner runner(env_, opt_.common, out, "cws-" + spec_.app);
  runner.measure(
      variants_,
      {.prepare =
           [&](row_variant& v) {
             for (std::size_t a = 0; a < spec_.data.arrays; ++a)
               v.arrays.push_back(cws::numa::allocate<float>(spec_.data.cells, v.kind.placement));
             hooks.init(v);  // the first touch, untimed: no measured phase takes a page fault
             for (const cws::schedule* s : v.schedules)
               if (s != nullptr) v.start.push_back(s->iterations());
           },
       .one_run =
           [&](row_variant& v, cws_apps::phase_timer& t) {
             v.loops->begin_run(t);
             t.time_reported("init", 1, [&] { return hooks.init(v); });
             t.time_reported(spec_.step.name, iters, [&] { return hooks.step(v); });
           },
       .finish =
           [&](row_variant& v, const cws_apps::phase_timer& timer, cws_apps::json& e, std::vector<std::string>& wrong) {
             cws_apps::put_timing(e, timer[spec_.step.name]);  // median_s / min_s: one step
             cws_apps::put_timing(e, timer["init"], "init_");
             e["placement"] = cws::numa::to_string(v.kind.placement);
             e[spec_.step.rate_key] = spec_.step.items / timer[spec_.step.name].median() / 1e6;
             const std::size_t mismatches = wrong.size();
             const float* got = v.arrays.at(spec_.data.result).data();
             if (hooks.verify) hooks.verify(v, e, wrong);
             if (!expected.empty())
               if (auto w = cws_apps::grid_difference(v.name, spec_.data.what, got, expected.data(), spec_.data.cells,
                                                      spec_.data.cols);
                   !w.empty())
                 wrong.push_back(std::move(w));
             e["checksum"] = checksum(got, spec_.data.cells);
             e["verified"] = wrong.size() == mismatches;
             v.arrays.clear();
             if (v.runs_cws()) put_cws(v, e);
           }});
  runner.add_ratios(ratios());
  const std::string measured = "the measured " + spec_.words.phase_word + " phases";
  return runner.print_and_report(
      fmt::format("cws-{} ({}): {} ({:.0f} MiB{}), {} {}s per run ({}), leaves of {} rows, {}, {} runs (+{} warm-up)",
                  spec_.app, bench_, output.size, static_cast<double>(spec_.data.cells * sizeof(float)) / (1 << 20),
                  spec_.data.arrays > 1 ? " each" : "", iters, spec_.step.name, output.per_step, opt_.tile,
                  output.detail, plan.runs, plan.warmup),
      table_columns(spec_.step.time_title),
      {fmt::format("{0}: median over runs of the mean time of one {1}, the wall clock around {2} (rt.run, "
                   "tbb::parallel_for, the OpenMP region); init (untimed in {0}) re-initialises the {3} before "
                   "every run; 'vs' columns are time ratios (lower is better);",
                   spec_.step.time_title, spec_.step.name, spec_.words.timed, spec_.words.data),
       fmt::format("leaf / node / root: hinted spawns find_place sent to the spawner's leaf, another node, the "
                   "root, summed over {}; het %: the share of them HET ran inline;",
                   measured),
       fmt::format("local %: mean over {} of the share of declared bytes ({}) on a page homed on the toucher's "
                   "node (page homes: {}); last %: the last phase; moved: pages evolve relocalized",
                   measured, spec_.words.declared, env_.rt().page_homes().name()),
       spec_.words.ok_note});
}

// The figures of a cws variant: its kernel phases' counters and locality
// (phase 0, the init, apart), and each kernel phase's breakdown.
void row_suite::put_cws(const row_variant& v, cws_apps::json& e) const {
  const cws_apps::run_plan& plan = opt_.common.plan;
  e["policy"] = v.kind.policy;
  std::vector<measured_runs> kernel;
  for (std::size_t ph = 1; ph < v.schedules.size(); ++ph)
    kernel.push_back(measured(*v.schedules[ph], v.start[ph], opt_.common.iters, plan));
  put_cws_figures(e, locality_, counters_, kernel, measured(*v.schedules[0], v.start[0], 1, plan));
  for (std::size_t ph = 1; ph < v.schedules.size(); ++ph)
    cws_apps::put_phase_breakdown(e, v.loops->clock(ph), spec_.phases[ph] + "_");
}

}  // namespace pufferfish
