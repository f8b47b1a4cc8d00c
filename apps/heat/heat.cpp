// cws-heat: 2D Jacobi heat diffusion, the SC14 iterative benchmark. An N x N
// grid in two buffers; an init phase writes both (their first touch), then
// every iteration is one phase: a recursive bisection over blocks of rows
// (cws::parallel_for_range, grain = block rows), 5-point stencil from one
// buffer into the other. The same phase recurs every iteration, which is what
// the replaying policies exploit: the steal tree of one iteration is the
// template of the next, so blocks keep running on the same workers (and, on
// a NUMA machine, next to the pages they first touched).
//
// Variants: cws under each policy of --policies (each with its own schedules
// "heat-init/<policy>" and "heat-step/<policy>"; under `user` both loops use
// parallel_for_range_owned, block i on worker floor(i P / blocks), the
// OpenMP-static ownership), plus cws-random-interleave (grids interleaved)
// and cws-stows-follow-init (the steps replay init's template: schedule
// follows data), tbb-auto, tbb-affinity (one affinity_partitioner per loop,
// kept across iterations and runs), omp-static, and serial. Every variant's
// final grid must equal the serial one exactly.
//
// The cws leaves declare what they touch (cws::touch), so every cws phase
// has a locality report and evolve relocalizes the pages after each run that
// becomes its template; the table shows the local share of the step phases,
// the pages moved and the relocalization time (common/locality_tally.hpp).
//
// The variants run in interleaved rounds by default (common/rounds.hpp):
// every variant's grids are set up first and live until its report, and the
// comparison with the serial grid comes after all rounds.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/bench_env.hpp"
#include "common/block_loops.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"
#include "heat/grid.hpp"
#include "heat/iterations.hpp"

namespace {

enum phase_id { init_phase = 0, step_phase = 1 };

// The two buffers of one variant. First touch is left to the variant's own
// init loop (an untimed init phase before the runs), so the pages land where
// that variant's init mapping put them, and no timed phase takes page faults.
struct grids {
  cws::numa::array<double> a, b;
  grids(std::size_t n, cws::numa::placement where)
      : a(cws::numa::allocate<double>(n * n, where)), b(cws::numa::allocate<double>(n * n, where)) {}
};

struct variant {
  std::string name;
  cws_apps::loop_flavour loop;
  std::string policy{};                                     // cws variants only
  cws::schedule* schedules[2] = {};                         // cws variants only: init, step
  cws::numa::placement placement = cws::numa::first_touch;  // of both grids
  // What persists across the runs, from the variant's set-up to its report:
  std::unique_ptr<cws_apps::block_loops> loops{};
  std::optional<grids> g{};
  double* cur = nullptr;  // the state after the steps so far (a step reads it, writes next, swaps)
  double* next = nullptr;
  heat::run_map init_map{}, step_map{};  // cws variants: the schedules' iterations of the timed runs
};

// What a leaf of rows [lo, hi) touches, declared by the cws variants
// (touch.hpp): init writes rows [lo, hi) of both grids; a step reads rows
// lo-1 .. hi of `cur` and writes rows [lo, hi) of `next`, clamped at the grid
// edges as step_rows clamps them (rows 0 and n-1 are never written by a step).
void touch_init(const double* a, const double* b, std::size_t n, std::size_t lo, std::size_t hi) {
  cws::touch(a + lo * n, (hi - lo) * n * sizeof(double));
  cws::touch(b + lo * n, (hi - lo) * n * sizeof(double));
}
void touch_step(const double* cur, const double* next, std::size_t n, std::size_t lo, std::size_t hi) {
  lo = std::max<std::size_t>(lo, 1);
  hi = std::min(hi, n - 1);
  if (lo >= hi) return;
  cws::touch(cur + (lo - 1) * n, (hi - lo + 2) * n * sizeof(double));
  cws::touch(next + lo * n, (hi - lo) * n * sizeof(double));
}

// One run of a variant's init loop (the initial state into both grids) or of
// one step (cur -> next, then swapped); returns the seconds that count
// (block_loops::run).
double run_init(variant& v, std::size_t n) {
  double* const a = v.g->a.data();
  double* const b = v.g->b.data();
  const bool declare = v.loops->runs_cws_phases();
  return v.loops->run(init_phase, [=](std::size_t lo, std::size_t hi) {
    if (declare) touch_init(a, b, n, lo, hi);
    heat::init_rows(a, b, n, lo, hi);
  });
}
double run_step(variant& v, std::size_t n) {
  const double* const cur = v.cur;
  double* const next = v.next;
  const bool declare = v.loops->runs_cws_phases();
  const double s = v.loops->run(step_phase, [=](std::size_t lo, std::size_t hi) {
    if (declare) touch_step(cur, next, n, lo, hi);
    heat::step_rows(cur, next, n, lo, hi);
  });
  std::swap(v.cur, v.next);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"2D Jacobi heat diffusion (SC14): cws under each policy vs TBB vs OpenMP static", "cws-heat"};
  cws_apps::common_options opt;
  opt.iters = 20;
  std::size_t n = 2048;
  std::size_t block = 0;
  bool follow_init = false, quiet = false, all_iterations = false;
  std::string evolve_init = "random";
  app.add_option("--size", n, "Grid side N (an N x N grid of doubles, two buffers)")
      ->check(CLI::Range(std::size_t{3}, std::size_t{1} << 16))
      ->capture_default_str();
  app.add_option("--block", block, "Rows per leaf block of the cws, TBB and OpenMP loops (0: N / (16 x workers))")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 16))
      ->capture_default_str();
  app.add_flag("--follow-init", follow_init,
               "Under replaying policies, the step phases replay the init phase's template (schedule follows "
               "data) instead of their own");
  app.add_option("--evolve-init", evolve_init,
                 "Policy of the init schedule of the cws-evolve variant (random: it does not move pages; evolve: "
                 "it relocalizes them to init's own tree after each of its relws runs)")
      ->capture_default_str();
  app.add_flag("--verbose-iterations", all_iterations, "Print the iteration lines of every run, not only the first");
  app.add_flag("-q,--quiet", quiet, "No iteration lines, only the table");
  cws_apps::add_common_options(app, opt);
  const cws_apps::policies_option policies_opt(app, opt, {"random", "stows", "stuws", "relws", "evolve", "user"},
                                               "Comma-separated cws policies, one cws variant each");
  cws_apps::add_order_option(app, opt,
                             "interleaved: 2 grids of N x N doubles per variant (12 variants with the default "
                             "policies: 768 MiB at N = 2048); sequential: 4 grids (serial's, kept as the reference, "
                             "and one other variant's)");
  app.get_option("--iters")->description("Jacobi iterations (step phases) per run; a sample is their mean");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const std::vector<std::string> policies = policies_opt.chosen();
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();
    cws_apps::locality_tally tally(rt);
    const unsigned workers = env.workers();
    if (block == 0) block = std::max<std::size_t>(1, n / (16 * std::size_t{workers}));
    block = std::min(block, n);
    const std::size_t blocks = (n + block - 1) / block;

    // All schedules are created before anything runs, so an unknown policy fails at once (exit 2).
    std::vector<variant> variants;
    variants.push_back({.name = "serial", .loop = cws_apps::loop_flavour::serial});
    // cws-<suffix> with the schedules heat-init/<suffix> and heat-step/<suffix>.
    auto add_cws = [&](const std::string& p, const std::string& suffix, cws::numa::placement where, bool follow,
                       const std::string& init_policy) {
      using cws_apps::loop_flavour;
      variant v{.name = "cws-" + suffix,
                .loop = p == cws::policy::user ? loop_flavour::cws_owned : loop_flavour::cws,
                .policy = p,
                .placement = where};
      v.schedules[init_phase] = &rt.schedule("heat-init/" + suffix, init_policy);
      v.schedules[step_phase] = &rt.schedule("heat-step/" + suffix, p);
      if (follow) v.schedules[step_phase]->follow(v.schedules[init_phase]->name());
      variants.push_back(std::move(v));
    };
    for (const std::string& p : policies) {
      // evolve relocalizes after every run of a schedule that becomes its
      // template; an init under evolve would move the pages to init's tree
      // after each of its runs and the steps' converged stows template would
      // then find them elsewhere. So the evolve variant's init runs under
      // --evolve-init (default random: it never moves pages).
      const bool follow = follow_init && cws_apps::replays(p);
      add_cws(p, p, cws::numa::first_touch, follow, p == cws::policy::evolve && !follow ? evolve_init : p);
      // The same loops with the grids interleaved over the nodes: placement
      // that ignores the schedule.
      if (p == cws::policy::random) add_cws(p, p + "-interleave", cws::numa::interleaved, false, p);
      // Schedule follows data: the steps replay init's template, so every
      // block runs where init first-touched it.
      if (p == cws::policy::stows && !follow_init) add_cws(p, p + "-follow-init", cws::numa::first_touch, true, p);
    }
    for (auto [name, flavour] : {std::pair{"tbb-auto", cws_apps::loop_flavour::tbb_auto},
                                 {"tbb-affinity", cws_apps::loop_flavour::tbb_affinity},
                                 {"omp-static", cws_apps::loop_flavour::omp_static}})
      variants.push_back({.name = name, .loop = flavour});
    for (variant& v : variants)
      v.loops =
          std::make_unique<cws_apps::block_loops>(env, v.loop, n, block, std::vector{v.schedules[0], v.schedules[1]});

    const double grid_bytes = static_cast<double>(n * n * sizeof(double));
    cws_apps::report out("heat", env,
                         {{"size", n},
                          {"block_rows", block},
                          {"blocks", blocks},
                          {"iters", opt.iters},
                          {"runs", opt.plan.runs},
                          {"warmup", opt.plan.warmup},
                          {"order", cws_apps::to_string(opt.plan.order)},
                          {"policies", policies},
                          {"follow_init", follow_init},
                          {"evolve_init", evolve_init},
                          {"bytes_per_step", 2 * grid_bytes},
                          {"page_homes", rt.page_homes().name()}});

    const double* expected = nullptr;  // the serial variant's final grid; its grids are kept to the end
    std::vector<std::string> wrong;
    struct iteration_block {
      std::string title;
      std::vector<heat::iteration_line> lines;
      unsigned runs;
    };
    std::vector<iteration_block> iteration_blocks;

    // The variant's grids, first touched by its own init loop, untimed; the
    // schedules' iteration counts after that mark the first warm-up run.
    const auto prepare = [&](variant& v) {
      v.g.emplace(n, v.placement);
      run_init(v, n);
      if (!v.loops->runs_cws_phases()) return;
      const unsigned total = opt.plan.warmup + opt.plan.runs;
      v.init_map = {v.schedules[init_phase]->iterations(), 1, opt.plan.warmup, total};
      v.step_map = {v.schedules[step_phase]->iterations(), opt.iters, opt.plan.warmup, total};
    };
    const auto one_run = [&](variant& v, cws_apps::phase_timer& t) {
      v.loops->begin_run(t);
      t.time_reported("init", 1, [&] { return run_init(v, n); });
      v.cur = v.g->a.data();
      v.next = v.g->b.data();
      t.time_reported("step", opt.iters, [&] { return run_step(v, n); });
    };
    // The figures only cws variants have: schedules, iteration lines, locality, pages moved.
    const auto report_cws = [&](const variant& v, cws_apps::json& e) {
      const cws::schedule& init = *v.schedules[init_phase];
      const cws::schedule& step = *v.schedules[step_phase];
      e["policy"] = v.policy;
      e["init_policy"] = std::string(init.policy_name());
      e["schedules"] = {{"init", init.name()}, {"step", step.name()}};
      e["step_follows"] = step.follows();
      auto step_lines = heat::lines_of(rt, step.name(), v.step_map);
      auto init_lines = heat::lines_of(rt, init.name(), v.init_map);
      heat::add_locality(step_lines, tally, step.name());
      heat::add_locality(init_lines, tally, init.name());
      // Locality of the measured runs' phases; pages moved and relocalization
      // time of both schedules (evolve relocalizes after each run of either
      // that becomes its template). Each variant has its own schedules, so
      // their iterations count only this variant's runs, whatever ran in between.
      const auto measured = [&](const heat::run_map& m, const std::string& name) {
        return tally.summarize(name, m.first + std::uint64_t{m.warmup} * m.per_run,
                               m.first + std::uint64_t{m.runs_total} * m.per_run);
      };
      const auto step_sum = measured(v.step_map, step.name());
      const auto init_sum = measured(v.init_map, init.name());
      cws_apps::put_locality(e, step_sum, "local_share");
      e["step_pages_moved"] = step_sum.pages_moved;
      e["step_relocalization_s"] = step_sum.relocalization_s;
      e["init_local_share"] = init_sum.reported ? cws_apps::json(init_sum.mean_share) : cws_apps::json(nullptr);
      e["init_pages_moved"] = init_sum.pages_moved;
      e["init_relocalization_s"] = init_sum.relocalization_s;
      e["relocalizations"] = step_sum.relocalizations + init_sum.relocalizations;
      e["pages_moved"] = step_sum.pages_moved + init_sum.pages_moved;
      e["pages_failed"] = step_sum.pages_failed + init_sum.pages_failed;
      e["bytes_moved"] = step_sum.bytes_moved + init_sum.bytes_moved;
      e["relocalization_s"] = step_sum.relocalization_s + init_sum.relocalization_s;
      // Step phases: the headline time split into the phases' wall_s and the rest of rt.run.
      cws_apps::put_phase_breakdown(e, v.loops->clock(step_phase));
      heat::put_summary(e, step_lines, v.policy);
      if (const cws::run_report* last = step.last_report(); last != nullptr && v.policy == "evolve") {
        const auto* s = cws::schedulers::store_of(rt).find(step.name());
        e["converged"] = last->converged;
        e["converged_at"] = last->converged && s != nullptr ? cws_apps::json(s->converged_at) : cws_apps::json(nullptr);
      }
      e["iterations"] = heat::lines_json(step_lines);
      e["init_iterations"] = heat::lines_json(init_lines);
      iteration_blocks.push_back({fmt::format("{}: schedule \"{}\"{}", v.name, step.name(),
                                              step.follows().empty() ? "" : " (follows \"" + step.follows() + "\")"),
                                  std::move(step_lines), opt.plan.warmup + opt.plan.runs});
    };
    // After the variant's last run: its report, and its final grid against
    // the serial one's (serial is the first variant, so its own finish has
    // set `expected`; its grids stay, the others' are released).
    const auto finish = [&](variant& v, const cws_apps::phase_timer& timer) {
      cws_apps::json& e = out.add(v.name);
      cws_apps::put_timing(e, timer["step"]);  // median_s / min_s: one iteration
      cws_apps::put_timing(e, timer["init"], "init_");
      e["gbps"] = 2 * grid_bytes / timer["step"].median() / 1e9;
      bool ok = true;
      if (expected == nullptr) {
        expected = v.cur;
      } else {
        std::size_t count = 0;
        const std::size_t first = heat::first_difference(v.cur, expected, n, count);
        ok = count == 0;
        if (!ok)
          wrong.push_back(
              fmt::format("{}: {} cell(s) differ from the serial reference, first at row {} column {} "
                          "({} instead of {})",
                          v.name, count, first / n, first % n, v.cur[first], expected[first]));
      }
      e["verified"] = ok;
      if (v.loops->runs_cws_phases()) report_cws(v, e);
      if (v.loop != cws_apps::loop_flavour::serial) v.g.reset();
    };
    cws_apps::measure_variants(variants, opt.plan, prepare, one_run, finish);
    out.add_ratio("ratio_vs_omp_static", "median_s", "omp-static");
    out.add_ratio("ratio_vs_cws_random", "median_s", "cws-random");
    out.add_ratio("ratio_vs_serial", "median_s", "serial");

    env.save_trace();
    if (!opt.json && !quiet) {
      for (const iteration_block& b : iteration_blocks) {
        if (b.lines.empty()) {
          fmt::print("{}: no iteration reports in the schedule store\n\n", b.title);
          continue;
        }
        for (unsigned r = 0; r < (all_iterations ? b.runs : 1u); ++r) {
          heat::print_run(
              fmt::format("{}, run {} of {}{}", b.title, r + 1, b.runs, r < opt.plan.warmup ? " (warm-up)" : ""),
              b.lines, r);
          fmt::print("\n");
        }
      }
    }
    out.print(opt.json,
              fmt::format("cws-heat: {} x {} grid of doubles (2 x {:.0f} MiB), blocks of {} rows ({} blocks), "
                          "{} iterations per run, {} runs (+{} warm-up)",
                          n, n, grid_bytes / (1 << 20), block, blocks, opt.iters, opt.plan.runs, opt.plan.warmup),
              {{"variant", "variant"},
               {"ms/iter", "median_s", 1e3, 3},
               {"min ms", "min_s", 1e3, 3},
               {"init ms", "init_median_s", 1e3, 2},
               {"GB/s", "gbps", 1, 2},
               {"vs omp", "ratio_vs_omp_static", 1, 2},
               {"vs random", "ratio_vs_cws_random", 1, 2},
               {"desig/it", "designated_per_iter", 1, 1},
               {"extra/it", "extra_steals_per_iter", 1, 1},
               {"back/it", "taken_back_per_iter", 1, 1},
               {"wait ms/it", "waiting_s_per_iter", 1e3, 2},
               {"dist %", "mean_distance", 100, 1},
               {"replayed %", "replayed_share", 100, 0},
               {"div", "diverged_iterations"},
               {"local %", "local_share", 100, 1},
               {"last %", "local_share_last", 100, 1},
               {"moved", "pages_moved"},
               {"reloc ms", "relocalization_s", 1e3, 2},
               {"ok", "verified"}},
              {"ms/iter: median over runs of the mean time of one Jacobi iteration (one step phase), the wall clock "
               "around the call (rt.run, tbb::parallel_for, the OpenMP region); init: one init phase;",
               "GB/s counts one grid read and one written per iteration; 'vs' columns are time ratios "
               "(lower is better);",
               "desig .. div: means over the measured runs' step iterations (schedule store; recorder for random): "
               "steals designated, extra, taken back,",
               "waiting time summed over workers, schedule distance to the previous iteration, share that replayed "
               "a template, diverged iterations;",
               fmt::format("local %: mean over the measured step phases of the share of declared bytes on a page "
                           "homed on the toucher's node (page homes: {}); last %: the last measured step phase;",
                           rt.page_homes().name()),
               "moved / reloc ms: pages moved and time spent by the relocalizations after the measured runs' "
               "init and step phases (evolve's), inside the ms/iter of a cws variant (rt.run makes them); iteration "
               "lines: the phases' own wall_s (JSON phase_wall_s / outside_wall_s: the split of ms/iter)"});
    if (!wrong.empty()) {
      for (const std::string& w : wrong) cws_apps::report_error(app.get_name(), w.c_str(), 1);
      return 1;
    }
    return 0;
  });
}
