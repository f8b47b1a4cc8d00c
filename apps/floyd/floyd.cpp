// cws-floyd: PolyBench's floyd-warshall (all-pairs shortest paths on int
// distances), an SC14 iterative benchmark: an init phase writes the n x n
// matrix, then every step k is one phase over its tiles (floyd/tile_phases.hpp;
// floyd/paths.hpp says why the phase is race-free and exact). The variants,
// their timing and the table are the common runner's (common/loop_suite.hpp);
// this file holds the options and the check: every variant's matrix equals
// the plain serial program's (floyd/reference.cpp) exactly.

#include "common/bounded_option.hpp"
#include "common/grid_difference.hpp"
#include "floyd/reference.hpp"
#include "floyd/tile_phases.hpp"

int main(int argc, char** argv) {
  CLI::App app{"PolyBench floyd-warshall (SC14): cws under each policy vs TBB vs OpenMP static", "cws-floyd"};
  cws_apps::suite_options opt;
  std::size_t n = 2048, tile_rows = 0, tile_cols = 0;
  bool full = false;
  const std::size_t most = 46340;  // i*j of the init must fit an int, as in PolyBench
  cws_apps::add_bounded_option(app, "--size", n, "Vertices n (an n x n matrix of int distances)", std::size_t{1}, most);
  cws_apps::add_block_rows_option(app, "--tile-rows", tile_rows, "Rows per tile", "n", most);
  cws_apps::add_bounded_option(app, "--tile-cols", tile_cols, "Columns per tile (0: n / 2)", std::size_t{}, most);
  app.add_flag("--full", full, "All n steps (the whole algorithm) instead of --iters");
  cws_apps::add_suite_options(
      app, opt,
      {.iters = 100,
       .iters_help = "Steps k = 0 .. iters-1 (phases) per run, at most n; a sample is their mean",
       .footprint =
           "interleaved: one n x n int matrix per variant (13 variants with the default policies: 208 MiB at "
           "n = 2048); sequential: one at a time; both keep the serial program's matrix for the verification"});

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const unsigned steps = opt.common.iters = full ? static_cast<unsigned>(n) : opt.common.iters;
    if (steps > n)
      return cws_apps::report_error(
          app.get_name(), fmt::format("--iters {} is more than the {} steps of n = {}", steps, n, n).c_str(), 2);
    cws_apps::bench_env env(opt.common);
    tile_rows = cws_apps::block_rows(tile_rows, n, env.workers());
    if (tile_cols == 0) tile_cols = std::max<std::size_t>(1, n / 2);
    const floyd::tiling tiles(n, tile_rows, tile_cols);
    cws_apps::loop_suite suite(
        env, opt,  // one leaf per tile: the loops run over the tile numbers
        {.app = "floyd", .phases = {"init", "step"}, .baselines = cws_apps::standard_baselines(), .n = tiles.count});
    // The serial program's matrix, untimed, before anything is measured.
    const std::vector<int> expected = floyd::reference_run(n, steps);
    const double matrix_bytes = static_cast<double>(n * n * sizeof(int));
    const std::string homes = env.rt().page_homes().name();
    cws_apps::json params = suite.params({{"size", n}, {"steps", steps}, {"full", steps == n}});
    params.update({{"tile_rows", tiles.rows}, {"tile_cols", tiles.cols}, {"tiles", tiles.count}});
    params.update({{"bytes_per_step", 2 * matrix_bytes},
                   {"checksum", {{"sum", floyd::sum(expected.data(), n)}, {"max", floyd::max(expected.data(), n)}}},
                   {"page_homes", homes}});
    cws_apps::report out("floyd", env, params);
    std::vector<std::optional<floyd::matrix>> path(suite.variants().size());
    const cws_apps::suite_hooks hooks{
        .prepare =
            [&](cws_apps::loop_variant& v) {
              floyd::run_init(v, path[v.index].emplace(cws::numa::allocate<int>(n * n, v.placement)), tiles);
            },
        .one_run =
            [&](cws_apps::loop_variant& v, cws_apps::phase_timer& t) {
              t.time_reported("init", 1, [&] { return floyd::run_init(v, *path[v.index], tiles); });
              std::size_t k = 0;
              t.time_reported("step", steps, [&] { return floyd::run_step(v, *path[v.index], tiles, k++); });
            },
        .finish =
            [&](cws_apps::loop_variant& v, const cws_apps::phase_timer& t, cws_apps::json& e,
                std::vector<std::string>& wrong) {
              e["gbps"] = 2 * matrix_bytes / t["step"].median() / 1e9;
              cws_apps::put_check(
                  e, wrong,
                  cws_apps::grid_difference(v.name, "distance(s)", path[v.index]->data(), expected.data(), n * n, n));
              path[v.index].reset();
            }};
    return suite.run(out, hooks,
                     fmt::format("cws-floyd: floyd-warshall on {} vertices ({} x {} int, {:.0f} MiB), tiles of {} x "
                                 "{} ({} tiles), steps k = 0 .. {} per run ({}), {} runs (+{} warm-up)",
                                 n, n, n, matrix_bytes / (1 << 20), tiles.rows, tiles.cols, tiles.count, steps - 1,
                                 steps == n ? "the whole algorithm" : fmt::format("{} of {}", steps, n),
                                 opt.common.plan.runs, opt.common.plan.warmup),
                     cws_apps::standard_columns({}),
                     {"ms/step: median over runs of the mean time of one step k (one phase), the wall clock around the "
                      "call (rt.run, tbb::parallel_for, the OpenMP region); init: one init phase; GB/s: the matrix "
                      "read and written once per step; 'vs' columns are time ratios (lower is better);",
                      "desig .. div: means over the measured steps: steals designated, extra, taken back, schedule "
                      "distance to the previous step, share replayed, diverged;",
                      cws_apps::locality_note(homes, "step", "ms/step")});
  });
}
