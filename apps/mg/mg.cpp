// cws-mg: NAS MG (NPB 3.3), the SC14 benchmark whose iterations hold several
// phase structures. A V-cycle calls five kernels (resid, psinv, rprj3,
// interp, and the final norm) on every level of a grid hierarchy; each call
// on a level at or above the parallel cut-off is one fork/join phase over the
// interior i3 planes of the level it writes, so the task count halves from
// one level to the next. The coarser levels run on the caller in every
// variant. The timed region is NPB's: the initial residual, nit x (V-cycle,
// residual), the norm; the result, rnm2, is checked against the official
// value of the class (relative error <= 1e-8) and must be the same bits in
// every variant.
//
// Variants: cws under each policy of --policies and, for the replaying
// policies, each schedule strategy of --schedules (variants.hpp: one schedule
// for everything, one per kernel and level, one per level); with stows also
// cws-stows-follow-init (every kernel replays its level's first-touch
// template: schedule follows data); tbb-auto, tbb-affinity (one
// affinity_partitioner per loop, kept across iterations and runs),
// tbb-static, omp-static, serial. Every variant first touches its own grids
// with its own loops (untimed), so the pages sit where its kernels run them;
// the cws leaves declare their touches, so on a synthetic topology the table
// shows the local share of the kernel phases.

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/block_loops.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"
#include "mg/classes.hpp"
#include "mg/hierarchy.hpp"
#include "mg/solver.hpp"
#include "mg/variants.hpp"
#include "mg/zran3.hpp"

namespace {

using cws_apps::loop_flavour;

struct variant {
  std::string name;
  loop_flavour loop;
  std::string policy{};  // cws variants only
  std::optional<mg_app::strategy> schedules{};
  std::string follows{};                             // "init" for the follow-init variant
  std::vector<std::vector<cws::schedule*>> table{};  // [level][kernel], cws variants only
  std::unique_ptr<mg_app::variant_runner> runner{};  // persists from set-up to report
  std::optional<mg::hierarchy> grids{};
  std::optional<mg::solver> solver{};
  std::vector<double> rnm2{};     // every benchmark's result, warm-up included
  std::vector<double> calls_s{};  // measured runs: seconds inside the parallel calls
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"NAS MG (NPB 3.3) V-cycles: cws under each policy and schedule strategy vs TBB vs OpenMP static",
               "cws-mg"};
  cws_apps::common_options opt;
  std::string class_name = "W";
  std::size_t block = 0;
  std::size_t serial_below = 32;
  std::vector<std::string> strategy_names{"per-kernel", "one"};
  std::string evolve_init = "random";
  app.add_option("--class", class_name,
                 "NPB class: S (32^3), W (128^3), A (256^3), B (256^3, 20 V-cycles), C (512^3, 20), D (1024^3, 50)")
      ->check(CLI::IsMember({"S", "W", "A", "B", "C", "D"}, CLI::ignore_case))
      ->capture_default_str();
  app.add_option("--block", block,
                 "i3 planes per leaf of every parallel loop, on every level (0: finest level's planes / (16 x "
                 "workers)); a level of p planes has p / block leaves")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 12))
      ->capture_default_str();
  app.add_option("--serial-below", serial_below,
                 "Levels with fewer interior planes than this run on the calling thread in every variant (their "
                 "phases would cost more than their work)")
      ->check(CLI::Range(std::size_t{2}, std::size_t{1} << 12))
      ->capture_default_str();
  app.add_option("--schedules", strategy_names,
                 "Schedule strategies of the replaying policies (stows, stuws, relws, evolve), one variant each: one "
                 "(a single schedule for every kernel call), per-kernel (one per kernel and level), per-level (one per "
                 "level, shared by its kernels)")
      ->delimiter(',')
      ->check(CLI::IsMember({"one", "per-kernel", "per-level"}))
      ->capture_default_str();
  app.add_option("--evolve-init", evolve_init,
                 "Policy of the first-touch schedules of the evolve variants (random: they move no page)")
      ->capture_default_str();
  cws_apps::add_common_options(app, opt);
  app.get_option("--iters")->description("Benchmarks (NPB's timed region) per measured run; a sample is their mean");
  const cws_apps::policies_option policies_opt(app, opt, {"random", "stows", "stuws", "relws", "evolve", "user"},
                                               "Comma-separated cws policies, one cws variant each (and per schedule "
                                               "strategy for the replaying ones)");
  cws_apps::add_order_option(app, opt,
                             "interleaved: the grids of every variant at once (class W: 58 MB per variant, about 1 GB "
                             "with the defaults; class A: 453 MB per variant, use sequential); sequential: one "
                             "variant's grids at a time");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const mg::class_params& cls = mg::class_named(static_cast<char>(std::toupper(class_name[0])));
    const std::vector<std::string> policies = policies_opt.chosen();
    std::vector<mg_app::strategy> strategies;
    for (const std::string& s : cws_apps::without_repeats(strategy_names))
      strategies.push_back(*mg_app::strategy_named(s));
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();
    const unsigned workers = env.workers();
    const unsigned lt = cls.log2_size;
    if (block == 0) block = std::max<std::size_t>(1, cls.size() / (16 * std::size_t{workers}));
    unsigned first_parallel = 1;
    while (first_parallel < lt && mg::interior_of(first_parallel) < serial_below) ++first_parallel;
    if (mg::interior_of(first_parallel) < serial_below) first_parallel = lt + 1;  // nothing is parallel

    // All schedules are created before anything runs, so an unknown policy fails at once (exit 2).
    std::vector<variant> variants;
    variants.push_back({.name = "serial", .loop = loop_flavour::serial});
    const auto add_cws = [&](const std::string& p, std::optional<mg_app::strategy> s, const std::string& name,
                             bool follow_init) {
      const std::string suffix = name.substr(4);  // without "cws-"
      const mg_app::strategy chosen = s.value_or(mg_app::strategy::per_kernel);
      variant v{.name = name,
                .loop = p == cws::policy::user ? loop_flavour::cws_owned : loop_flavour::cws,
                .policy = p,
                .schedules = s,
                .follows = follow_init ? "init" : ""};
      v.table.assign(lt + 1, std::vector<cws::schedule*>(mg::kernel_count, nullptr));
      const std::string init_policy = p == cws::policy::evolve ? evolve_init : p;
      for (unsigned k = first_parallel; k <= lt; ++k)
        for (mg::kernel kern : mg::all_kernels) {
          const std::string sname = mg_app::schedule_name(chosen, kern, k, suffix);
          cws::schedule& sch = rt.schedule(sname, kern == mg::kernel::init ? init_policy : p);
          if (follow_init && kern != mg::kernel::init)
            sch.follow(mg_app::schedule_name(chosen, mg::kernel::init, k, suffix));
          v.table[k][static_cast<std::size_t>(kern)] = &sch;
        }
      variants.push_back(std::move(v));
    };
    for (const std::string& p : policies) {
      if (!cws_apps::replays(p)) {
        add_cws(p, std::nullopt, "cws-" + p, false);  // no template: the strategy changes nothing
        continue;
      }
      for (mg_app::strategy s : strategies)
        add_cws(p, s, strategies.size() == 1 ? "cws-" + p : fmt::format("cws-{}-{}", p, mg_app::to_string(s)), false);
      if (p == cws::policy::stows) add_cws(p, mg_app::strategy::per_kernel, "cws-stows-follow-init", true);
    }
    for (auto [name, flavour] : {std::pair{"tbb-auto", loop_flavour::tbb_auto},
                                 {"tbb-affinity", loop_flavour::tbb_affinity},
                                 {"tbb-static", loop_flavour::tbb_static},
                                 {"omp-static", loop_flavour::omp_static}})
      variants.push_back({.name = name, .loop = flavour});
    for (variant& v : variants)
      v.runner = std::make_unique<mg_app::variant_runner>(env, v.loop, lt, first_parallel, block, v.table);

    const mg::charges charges = mg::find_charges(cls.size());  // shared set-up: the 20 charge positions

    cws_apps::json level_table = cws_apps::json::array();
    for (unsigned k = lt; k >= 1; --k) {
      const std::size_t planes = mg::interior_of(k);
      const bool par = k >= first_parallel;
      level_table.push_back(
          {{"level", k},
           {"planes", planes},
           {"parallel", par},
           {"leaves", par ? cws_apps::json((planes + block - 1) / std::min(block, planes)) : cws_apps::json(nullptr)}});
    }
    std::vector<std::string> strategy_list;
    for (mg_app::strategy s : strategies) strategy_list.emplace_back(mg_app::to_string(s));
    cws_apps::report out("mg", env,
                         {{"class", std::string(1, cls.name)},
                          {"size", cls.size()},
                          {"nit", cls.iterations},
                          {"levels", lt},
                          {"verify_value", cls.verify_value},
                          {"epsilon", mg::verify_epsilon},
                          {"bytes_per_variant", mg::hierarchy::bytes_for(lt)},
                          {"block_planes", block},
                          {"serial_below", serial_below},
                          {"parallel_levels", level_table},
                          {"iters", opt.iters},
                          {"runs", opt.plan.runs},
                          {"warmup", opt.plan.warmup},
                          {"order", cws_apps::to_string(opt.plan.order)},
                          {"policies", policies},
                          {"schedules", strategy_list},
                          {"evolve_init", evolve_init},
                          {"page_homes", rt.page_homes().name()}});

    // Set-up, untimed: the variant's grids, first touched by its own loops; v = the charges.
    const auto prepare = [&](variant& v) {
      v.grids.emplace(lt, cws::numa::first_touch);
      v.solver.emplace(cls, *v.grids, *v.runner);
      v.runner->begin_run(false);
      v.solver->first_touch();
      v.solver->set_rhs(charges);
    };
    const auto one_run = [&](variant& v, cws_apps::phase_timer& t) {
      double calls = 0;
      t.time_reported("benchmark", opt.iters, [&] {
        v.solver->reset();
        v.runner->begin_run(t.recording());
        mg::norms result;
        const double s = cws_apps::seconds_of([&] { result = v.solver->benchmark(); });
        v.rnm2.push_back(result.rnm2);
        calls += v.runner->calls_s();
        return s;
      });
      if (t.recording()) v.calls_s.push_back(calls / opt.iters);
    };
    double reference = 0;  // the serial variant's rnm2 (the first variant: its finish comes first)
    std::vector<std::string> wrong;
    const auto finish = [&](variant& v, const cws_apps::phase_timer& t) {
      cws_apps::json& e = out.add(v.name);
      const cws_apps::samples& runs = t["benchmark"];
      const double nit = cls.iterations;
      e["median_s"] = runs.median() / nit;  // one V-cycle (and its residual), NPB's time / nit
      e["min_s"] = runs.min() / nit;
      e["runs"] = runs.size();
      e["benchmark_median_s"] = runs.median();
      e["mops"] = mg::mops(cls, runs.median());
      std::vector<double> calls = v.calls_s;
      std::nth_element(calls.begin(), calls.begin() + calls.size() / 2, calls.end());
      e["parallel_calls_share"] = runs.median() > 0 && !calls.empty() ? calls[calls.size() / 2] / runs.median() : 0.0;
      const double rnm2 = v.rnm2.back();
      if (v.loop == loop_flavour::serial) reference = rnm2;
      const bool official = mg::verified(rnm2, cls);
      const bool same_bits = std::all_of(v.rnm2.begin(), v.rnm2.end(), [&](double x) { return x == reference; });
      e["rnm2"] = rnm2;
      e["rel_err"] = mg::relative_error(rnm2, cls);
      e["equals_serial"] = same_bits;
      e["verified"] = official && same_bits;
      if (!official)
        wrong.push_back(fmt::format("{}: rnm2 = {:.13e}, official {:.13e}, relative error {:.2e} > {:.0e}", v.name,
                                    rnm2, cls.verify_value, mg::relative_error(rnm2, cls), mg::verify_epsilon));
      else if (!same_bits)
        wrong.push_back(fmt::format("{}: rnm2 differs from the serial variant's in some run ({:.17e} vs {:.17e})",
                                    v.name, rnm2, reference));
      if (cws_apps::runs_cws_phases(v.loop)) {
        e["policy"] = v.policy;
        e["schedules"] = v.schedules ? cws_apps::json(mg_app::to_string(*v.schedules)) : cws_apps::json(nullptr);
        e["follows"] = v.follows.empty() ? cws_apps::json(nullptr) : cws_apps::json(v.follows);
        v.runner->tally().put(e);
        const auto phases = static_cast<double>(v.runner->tally().phases);
        e["phases_per_benchmark"] = opt.plan.runs ? phases / (opt.plan.runs * opt.iters) : 0.0;
      }
      v.solver.reset();
      v.grids.reset();
    };
    cws_apps::measure_variants(variants, opt.plan, prepare, one_run, finish);
    out.add_ratio("ratio_vs_omp_static", "median_s", "omp-static");
    out.add_ratio("mops_vs_omp_static", "mops", "omp-static");
    out.add_ratio("ratio_vs_serial", "median_s", "serial");

    env.save_trace();
    std::string leaves;
    for (const auto& l : level_table)
      if (l["parallel"].get<bool>())
        leaves += fmt::format("{}{}", leaves.empty() ? "" : ", ", l["leaves"].get<std::size_t>());
    const std::string parallel_text =
        first_parallel > lt
            ? std::string("every level on the caller (--serial-below)")
            : fmt::format(
                  "levels {} down to {} in parallel with {} leaves ({} planes per leaf), coarser levels on the "
                  "caller",
                  lt, first_parallel, leaves, block);
    out.print(
        opt.json,
        fmt::format("cws-mg: NAS MG class {} ({}^3, {} V-cycles, {} levels, {:.0f} MB per variant); {}; {} runs (+{} "
                    "warm-up)",
                    cls.name, cls.size(), cls.iterations, lt, static_cast<double>(mg::hierarchy::bytes_for(lt)) / 1e6,
                    parallel_text, opt.plan.runs, opt.plan.warmup),
        {{"variant", "variant"},
         {"ms/iter", "median_s", 1e3, 2},
         {"min ms", "min_s", 1e3, 2},
         {"Mop/s", "mops", 1, 0},
         {"vs omp", "ratio_vs_omp_static", 1, 2},
         {"par %", "parallel_calls_share", 100, 0},
         {"phases", "phases_per_benchmark", 1, 0},
         {"replayed %", "replayed_share", 100, 0},
         {"div", "diverged_phases"},
         {"local %", "local_share", 100, 1},
         {"last %", "local_share_last", 100, 1},
         {"moved", "pages_moved"},
         {"reloc ms", "relocalization_s", 1e3, 1},
         {"ok", "verified"}},
        {"ms/iter: median over runs of NPB's timed region (initial residual, nit x (V-cycle, residual), norm) over "
         "nit, "
         "the wall clock around the whole region for every variant; Mop/s: NPB's 58 x nit x n^3 over that time;",
         "vs omp: time ratio to omp-static (lower is better); par %: share of the region spent inside the parallel "
         "calls (rt.run, the TBB call, the OpenMP region), the rest runs on the caller (coarse levels, ghost planes);",
         "phases: cws phases per benchmark; replayed %: share of them that replayed a template; div: diverged phases "
         "(measured runs);",
         fmt::format("local %: mean over the measured kernel phases of the share of declared bytes on a page homed on "
                     "the toucher's node (page homes: {}); last %: the last measured run's phases;",
                     rt.page_homes().name()),
         "moved / reloc ms: pages moved and time spent by the relocalizations after the measured phases (evolve's);",
         fmt::format("ok: the final residual norm rnm2 is within {:.0e} of the official {:.13e} (serial: {:.13e}, "
                     "relative error {:.1e}) and has the same bits as serial's in every run",
                     mg::verify_epsilon, cls.verify_value, reference, mg::relative_error(reference, cls))});
    if (!wrong.empty()) {
      for (const std::string& w : wrong) cws_apps::report_error(app.get_name(), w.c_str(), 1);
      return 1;
    }
    return 0;
  });
}
