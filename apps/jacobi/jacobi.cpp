// cws-jacobi: Jacobi sweeps of the 5-point Poisson stencil on a rows x cols
// grid of doubles (jacobi/grid.hpp), the grid not necessarily square: an
// init phase writes both buffers, then every sweep is one phase over blocks
// of rows. Written on the shared pieces only: the stencil's phases and
// touches (common/stencil_grid.hpp), the variants, their timing and the
// table (common/loop_suite.hpp). This file holds the options and the check:
// every variant's final grid equals the serial program's (reference_run).

#include "common/bounded_option.hpp"
#include "common/stencil_grid.hpp"
#include "jacobi/grid.hpp"

int main(int argc, char** argv) {
  CLI::App app{"5-point Jacobi on a rows x cols grid: cws under each policy vs TBB vs OpenMP static", "cws-jacobi"};
  cws_apps::suite_options opt;
  cws_apps::row_grid s{1024, 3072};
  std::size_t block = 0;
  const std::size_t most = std::size_t{1} << 20;
  cws_apps::add_bounded_option(app, "--rows", s.rows, "Grid rows", std::size_t{3}, most);
  cws_apps::add_bounded_option(app, "--cols", s.cols, "Grid columns", std::size_t{3}, most);
  cws_apps::add_block_rows_option(app, "--block", block, "Rows per leaf block", "rows", most);
  cws_apps::add_suite_options(app, opt,
                              {.iters_help = "Jacobi sweeps (phases) per run; a sample is their mean",
                               .footprint = "interleaved: 2 grids per variant; sequential: 2 at a time; both keep the "
                                            "serial program's grid for the verification",
                               .follow = "Under replaying policies, the sweeps replay the init phase's template"});

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    cws_apps::bench_env env(opt.common);
    block = cws_apps::block_rows(block, s.rows, env.workers());
    cws_apps::loop_suite suite(env, opt,
                               {.app = "jacobi",
                                .phases = {"init", "sweep"},
                                .baselines = cws_apps::standard_baselines(),
                                .n = s.rows,
                                .grain = block});
    const std::vector<double> expected = jacobi::reference_run(s.rows, s.cols, opt.common.iters);
    const double grid_bytes = static_cast<double>(expected.size() * sizeof(double));
    cws_apps::report out(
        "jacobi", env,
        suite.params({{"rows", s.rows}, {"cols", s.cols}, {"block_rows", block}, {"bytes_per_step", 2 * grid_bytes}}));
    std::vector<std::optional<cws_apps::two_buffers>> g(suite.variants().size());
    cws_apps::suite_hooks hooks = cws_apps::stencil_hooks(
        g, s, opt.common.iters,
        [&](double* a, double* b, auto lo, auto hi) { jacobi::init_rows(a, b, s.cols, lo, hi); },
        [&](const double* c, double* x, auto lo, auto hi) { jacobi::sweep_rows(c, x, s.cols, s.rows, lo, hi); });
    hooks.finish = [&](cws_apps::loop_variant& v, const cws_apps::phase_timer& t, cws_apps::json& e,
                       std::vector<std::string>& wrong) {
      e["gbps"] = 2 * grid_bytes / t["step"].median() / 1e9;
      cws_apps::put_check(e, wrong, cws_apps::compare_grids(v.name, g[v.index]->cur, expected.data(), s));
      g[v.index].reset();
    };
    return suite.run(out, hooks,
                     fmt::format("cws-jacobi: {} x {} grid of doubles, blocks of {} rows, {} sweeps per run, {} runs "
                                 "(+{} warm-up)",
                                 s.rows, s.cols, block, opt.common.iters, opt.common.plan.runs, opt.common.plan.warmup),
                     cws_apps::standard_columns({.time_title = "ms/sweep"}),
                     {"ms/sweep: median over runs of the mean time of one sweep (one phase), the wall clock around the "
                      "call; GB/s counts one grid read and one written per sweep; 'vs' columns are time ratios;",
                      "desig .. div: means over the measured sweeps; local %: share of declared bytes on a page homed "
                      "on the toucher's node; moved / reloc ms: evolve's relocalizations"});
  });
}
