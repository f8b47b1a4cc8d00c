// cws-floyd: PolyBench's floyd-warshall (all-pairs shortest paths on int
// distances), one of the SC14 iterative benchmarks. An n x n matrix cut into
// tiles of (i, j); an init phase writes it (its first touch), then every step
// k is one phase over the tiles: a recursive bisection over the tile numbers
// (cws::parallel_for_range, one tile per leaf), each leaf relaxing its tile
// through vertex k (floyd/paths.hpp: why skipping row k and column k makes
// the phase race-free and still exact). The same phase recurs every step,
// which is what the replaying policies exploit.
//
// Variants: cws under each policy of --policies (each with its own schedules
// "floyd-init/<name>" and "floyd-step/<name>"; under `user` both loops use
// parallel_for_range_owned, tile t on worker floor(t P / tiles), the
// OpenMP-static ownership), plus cws-random-interleave (matrix interleaved
// over the nodes) and cws-stows-follow-init (the steps replay init's
// template: schedule follows data), tbb-auto, tbb-affinity (one
// affinity_partitioner per loop, kept across steps and runs), tbb-static,
// omp-static and serial. Every variant's matrix must equal the plain serial
// program's (floyd/reference.cpp) exactly.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
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
#include "floyd/paths.hpp"
#include "floyd/reference.hpp"
#include "common/iteration_lines.hpp"

namespace {

enum phase_id { init_phase = 0, step_phase = 1 };

struct variant {
  std::string name;
  cws_apps::loop_flavour loop;
  std::string policy{};              // cws variants only
  cws::schedule* schedules[2] = {};  // cws variants only: init, step
  cws::numa::placement placement = cws::numa::first_touch;
  // From the variant's set-up to its report:
  std::unique_ptr<cws_apps::block_loops> loops{};
  std::optional<cws::numa::array<int>> path{};  // first touched by the variant's own init loop, untimed
  cws_apps::run_map init_map{}, step_map{};         // cws variants: the schedules' iterations of the timed runs
};

// What a leaf of tiles [first, last) touches, declared by the cws variants
// (touch.hpp): init writes its tiles; step k writes its tiles and reads the
// tiles' part of row k, path[k][j0..j1). It also reads path[i][k] of its
// rows, one int per row, left undeclared: a range per row for 4 bytes each
// would double the ranges a leaf declares (and their cost) for 1/cols of
// its bytes.
void touch_tiles(const int* path, const floyd::tiling& t, std::size_t first, std::size_t last) {
  for (std::size_t tile = first; tile < last; ++tile)
    for (std::size_t i = t.row_begin(tile); i < t.row_end(tile); ++i)
      cws::touch(path + i * t.n + t.col_begin(tile), (t.col_end(tile) - t.col_begin(tile)) * sizeof(int));
}
void touch_step(const int* path, const floyd::tiling& t, std::size_t k, std::size_t first, std::size_t last) {
  touch_tiles(path, t, first, last);
  for (std::size_t tile = first; tile < last; ++tile)
    cws::touch(path + k * t.n + t.col_begin(tile), (t.col_end(tile) - t.col_begin(tile)) * sizeof(int));
}

double run_init(variant& v, const floyd::tiling& t) {
  int* const path = v.path->data();
  const bool declare = v.loops->runs_cws_phases();
  return v.loops->run(init_phase, [=, &t](std::size_t first, std::size_t last) {
    if (declare) touch_tiles(path, t, first, last);
    floyd::init_tiles(path, t, first, last);
  });
}
double run_step(variant& v, const floyd::tiling& t, std::size_t k) {
  int* const path = v.path->data();
  const bool declare = v.loops->runs_cws_phases();
  return v.loops->run(step_phase, [=, &t](std::size_t first, std::size_t last) {
    if (declare) touch_step(path, t, k, first, last);
    floyd::relax_tiles(path, t, k, first, last);
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"PolyBench floyd-warshall (SC14): cws under each policy vs TBB vs OpenMP static", "cws-floyd"};
  cws_apps::common_options opt;
  opt.iters = 100;
  std::size_t n = 2048, tile_rows = 0, tile_cols = 0;
  bool full = false, follow_init = false, quiet = false, all_iterations = false;
  std::string evolve_init = "random";
  app.add_option("--size", n, "Vertices n (an n x n matrix of int distances)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{46340}))  // i*j of the init must fit an int, as in PolyBench
      ->capture_default_str();
  app.add_option("--tile-rows", tile_rows, "Rows per tile (0: n / (16 x workers))")
      ->check(CLI::Range(std::size_t{0}, std::size_t{46340}))
      ->capture_default_str();
  app.add_option("--tile-cols", tile_cols, "Columns per tile (0: n / 2)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{46340}))
      ->capture_default_str();
  app.add_flag("--full", full, "All n steps (the whole algorithm) instead of --iters");
  app.add_flag("--follow-init", follow_init,
               "Under replaying policies, the step phases replay the init phase's template (schedule follows data) "
               "instead of their own");
  app.add_option("--evolve-init", evolve_init,
                 "Policy of the init schedule of the cws-evolve variant (random: it does not move pages; evolve: "
                 "it relocalizes them to init's own tree after each of its relws runs)")
      ->capture_default_str();
  app.add_flag(
      "--verbose-iterations", all_iterations,
      "Print the iteration lines of every run the schedule store still holds (CWS_HISTORY), not only the first");
  app.add_flag("-q,--quiet", quiet, "No iteration lines, only the table");
  cws_apps::add_common_options(app, opt);
  const cws_apps::policies_option policies_opt(app, opt, {"random", "stows", "stuws", "relws", "evolve", "user"},
                                               "Comma-separated cws policies, one cws variant each");
  cws_apps::add_order_option(app, opt,
                             "interleaved: one n x n int matrix per variant (13 variants with the default policies: "
                             "208 MiB at n = 2048); sequential: one at a time; both keep the serial program's matrix "
                             "for the verification");
  app.get_option("--iters")->description("Steps k = 0 .. iters-1 (phases) per run, at most n; a sample is their mean");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    if (full) opt.iters = static_cast<unsigned>(n);
    if (opt.iters > n)
      return cws_apps::report_error(
          app.get_name(), fmt::format("--iters {} is more than the {} steps of n = {}", opt.iters, n, n).c_str(), 2);
    const std::vector<std::string> policies = policies_opt.chosen();
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();
    cws_apps::locality_tally tally(rt);
    const unsigned workers = env.workers();
    if (tile_rows == 0) tile_rows = std::max<std::size_t>(1, n / (16 * std::size_t{workers}));
    if (tile_cols == 0) tile_cols = std::max<std::size_t>(1, n / 2);
    const floyd::tiling tiles(n, tile_rows, tile_cols);
    const unsigned steps = opt.iters;

    // All schedules are created before anything runs, so an unknown policy fails at once (exit 2).
    std::vector<variant> variants;
    variants.push_back({.name = "serial", .loop = cws_apps::loop_flavour::serial});
    auto add_cws = [&](const std::string& p, const std::string& suffix, cws::numa::placement where, bool follow,
                       const std::string& init_policy) {
      using cws_apps::loop_flavour;
      variant v{.name = "cws-" + suffix,
                .loop = p == cws::policy::user ? loop_flavour::cws_owned : loop_flavour::cws,
                .policy = p,
                .placement = where};
      v.schedules[init_phase] = &rt.schedule("floyd-init/" + suffix, init_policy);
      v.schedules[step_phase] = &rt.schedule("floyd-step/" + suffix, p);
      if (follow) v.schedules[step_phase]->follow(v.schedules[init_phase]->name());
      variants.push_back(std::move(v));
    };
    for (const std::string& p : policies) {
      // As in cws-heat: an init under evolve would move the pages to init's
      // tree after each of its relws runs, away from where the steps'
      // converged template runs them; so evolve's init runs under --evolve-init.
      const bool follow = follow_init && cws_apps::replays(p);
      add_cws(p, p, cws::numa::first_touch, follow, p == cws::policy::evolve && !follow ? evolve_init : p);
      if (p == cws::policy::random) add_cws(p, p + "-interleave", cws::numa::interleaved, false, p);
      if (p == cws::policy::stows && !follow_init) add_cws(p, p + "-follow-init", cws::numa::first_touch, true, p);
    }
    for (auto [name, flavour] : {std::pair{"tbb-auto", cws_apps::loop_flavour::tbb_auto},
                                 {"tbb-affinity", cws_apps::loop_flavour::tbb_affinity},
                                 {"tbb-static", cws_apps::loop_flavour::tbb_static},
                                 {"omp-static", cws_apps::loop_flavour::omp_static}})
      variants.push_back({.name = name, .loop = flavour});
    // One leaf per tile: the loops run over the tile numbers.
    for (variant& v : variants)
      v.loops = std::make_unique<cws_apps::block_loops>(env, v.loop, tiles.count, 1,
                                                        std::vector{v.schedules[0], v.schedules[1]});

    // The serial program's matrix, untimed, before anything is measured.
    const std::vector<int> expected = floyd::reference_run(n, steps);
    const double matrix_bytes = static_cast<double>(n * n * sizeof(int));
    cws_apps::report out(
        "floyd", env,
        {{"size", n},
         {"steps", steps},
         {"full", steps == n},
         {"tile_rows", tiles.rows},
         {"tile_cols", tiles.cols},
         {"tiles", tiles.count},
         {"iters", opt.iters},
         {"runs", opt.plan.runs},
         {"warmup", opt.plan.warmup},
         {"order", cws_apps::to_string(opt.plan.order)},
         {"policies", policies},
         {"follow_init", follow_init},
         {"evolve_init", evolve_init},
         {"bytes_per_step", 2 * matrix_bytes},
         {"checksum", {{"sum", floyd::sum(expected.data(), n)}, {"max", floyd::max(expected.data(), n)}}},
         {"page_homes", rt.page_homes().name()}});

    std::vector<std::string> wrong;
    struct iteration_block {
      std::string title;
      std::vector<cws_apps::iteration_line> lines;
    };
    std::vector<iteration_block> iteration_blocks;
    const unsigned runs_total = opt.plan.warmup + opt.plan.runs;

    const auto prepare = [&](variant& v) {
      v.path.emplace(cws::numa::allocate<int>(n * n, v.placement));
      run_init(v, tiles);
      if (!v.loops->runs_cws_phases()) return;
      v.init_map = {v.schedules[init_phase]->iterations(), 1, opt.plan.warmup, runs_total};
      v.step_map = {v.schedules[step_phase]->iterations(), steps, opt.plan.warmup, runs_total};
    };
    const auto one_run = [&](variant& v, cws_apps::phase_timer& t) {
      v.loops->begin_run(t);
      t.time_reported("init", 1, [&] { return run_init(v, tiles); });
      std::size_t k = 0;
      t.time_reported("step", steps, [&] { return run_step(v, tiles, k++); });
    };
    // The figures only cws variants have: schedules, iteration lines, locality, pages moved.
    const auto report_cws = [&](const variant& v, cws_apps::json& e) {
      const cws::schedule& init = *v.schedules[init_phase];
      const cws::schedule& step = *v.schedules[step_phase];
      e["policy"] = v.policy;
      e["init_policy"] = std::string(init.policy_name());
      e["schedules"] = {{"init", init.name()}, {"step", step.name()}};
      e["step_follows"] = step.follows();
      auto step_lines = cws_apps::lines_of(rt, step.name(), v.step_map);
      auto init_lines = cws_apps::lines_of(rt, init.name(), v.init_map);
      cws_apps::add_locality(step_lines, tally, step.name());
      cws_apps::add_locality(init_lines, tally, init.name());
      // The measured runs only: each variant has its own schedules, so their
      // iterations count only this variant's runs, whatever ran in between.
      const auto measured = [&](const cws_apps::run_map& m, const std::string& name) {
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
      cws_apps::put_phase_breakdown(e, v.loops->clock(step_phase));
      cws_apps::put_summary(e, step_lines, v.policy);
      if (const cws::run_report* last = step.last_report(); last != nullptr && v.policy == cws::policy::evolve) {
        const auto* s = cws::schedulers::store_of(rt).find(step.name());
        e["converged"] = last->converged;
        e["converged_at"] = last->converged && s != nullptr ? cws_apps::json(s->converged_at) : cws_apps::json(nullptr);
      }
      e["iterations"] = cws_apps::lines_json(step_lines);
      e["init_iterations"] = cws_apps::lines_json(init_lines);
      iteration_blocks.push_back({fmt::format("{}: schedule \"{}\"{}", v.name, step.name(),
                                              step.follows().empty() ? "" : " (follows \"" + step.follows() + "\")"),
                                  std::move(step_lines)});
    };
    const auto finish = [&](variant& v, const cws_apps::phase_timer& timer) {
      cws_apps::json& e = out.add(v.name);
      cws_apps::put_timing(e, timer["step"]);  // median_s / min_s: one step
      cws_apps::put_timing(e, timer["init"], "init_");
      e["gbps"] = 2 * matrix_bytes / timer["step"].median() / 1e9;
      std::size_t count = 0;
      const std::size_t first = floyd::first_difference(v.path->data(), expected.data(), n, count);
      if (count != 0)
        wrong.push_back(
            fmt::format("{}: {} distance(s) differ from the serial program, first at row {} column {} "
                        "({} instead of {})",
                        v.name, count, first / n, first % n, (*v.path)[first], expected[first]));
      e["verified"] = count == 0;
      if (v.loops->runs_cws_phases()) report_cws(v, e);
      v.path.reset();
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
        // The store keeps the latest CWS_HISTORY phases of a schedule: the
        // first ones may have fallen out of it.
        const unsigned first = b.lines.front().run;
        if (first > 0 || b.lines.front().index > 0)
          fmt::print(
              "{}: the phases before run {} iteration {} are no longer in the schedule store's history "
              "(CWS_HISTORY phases per schedule)\n",
              b.title, first + 1, b.lines.front().index);
        for (unsigned r = first; r < (all_iterations ? runs_total : first + 1); ++r) {
          cws_apps::print_run(
              fmt::format("{}, run {} of {}{}", b.title, r + 1, runs_total, r < opt.plan.warmup ? " (warm-up)" : ""),
              b.lines, r);
          fmt::print("\n");
        }
      }
    }
    out.print(opt.json,
              fmt::format("cws-floyd: floyd-warshall on {} vertices ({} x {} int, {:.0f} MiB), tiles of {} x {} ({} "
                          "tiles), steps k = 0 .. {} per run ({}), {} runs (+{} warm-up)",
                          n, n, n, matrix_bytes / (1 << 20), tiles.rows, tiles.cols, tiles.count, steps - 1,
                          steps == n ? "the whole algorithm" : fmt::format("{} of {}", steps, n), opt.plan.runs,
                          opt.plan.warmup),
              {{"variant", "variant"},
               {"ms/step", "median_s", 1e3, 3},
               {"min ms", "min_s", 1e3, 3},
               {"init ms", "init_median_s", 1e3, 2},
               {"GB/s", "gbps", 1, 2},
               {"vs omp", "ratio_vs_omp_static", 1, 2},
               {"vs random", "ratio_vs_cws_random", 1, 2},
               {"desig/it", "designated_per_iter", 1, 1},
               {"extra/it", "extra_steals_per_iter", 1, 1},
               {"back/it", "taken_back_per_iter", 1, 1},
               {"dist %", "mean_distance", 100, 1},
               {"replayed %", "replayed_share", 100, 0},
               {"div", "diverged_iterations"},
               {"local %", "local_share", 100, 1},
               {"last %", "local_share_last", 100, 1},
               {"moved", "pages_moved"},
               {"reloc ms", "relocalization_s", 1e3, 2},
               {"ok", "verified"}},
              {"ms/step: median over runs of the mean time of one step k (one phase), the wall clock around the "
               "call (rt.run, tbb::parallel_for, the OpenMP region); init: one init phase;",
               "GB/s counts the matrix read and written once per step; 'vs' columns are time ratios (lower is better);",
               "desig .. div: means over the measured runs' steps (schedule store; recorder for random): steals "
               "designated, extra, taken back, schedule distance to the previous step, share that replayed a "
               "template, diverged steps;",
               fmt::format("local %: mean over the measured steps of the share of declared bytes on a page homed on "
                           "the toucher's node (page homes: {}); last %: the last measured step;",
                           rt.page_homes().name()),
               "moved / reloc ms: pages moved and time spent by the relocalizations after the measured runs' "
               "phases (evolve's), inside ms/step (rt.run makes them)"});
    if (!wrong.empty()) {
      for (const std::string& w : wrong) cws_apps::report_error(app.get_name(), w.c_str(), 1);
      return 1;
    }
    return 0;
  });
}
