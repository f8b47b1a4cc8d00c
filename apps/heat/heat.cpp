// cws-heat: 2D Jacobi heat diffusion, the SC14 iterative benchmark
// (heat/grid.hpp): an init phase writes both N x N grids, then every
// iteration is one phase, the 5-point stencil over blocks of rows. The
// stencil's phases and touches (common/stencil_grid.hpp), the variants, their
// timing and the table (common/loop_suite.hpp) are shared; this file holds
// the options and the check (every final grid equals the serial one exactly).

#include "common/bounded_option.hpp"
#include "common/stencil_grid.hpp"
#include "heat/grid.hpp"

int main(int argc, char** argv) {
  CLI::App app{"2D Jacobi heat diffusion (SC14): cws under each policy vs TBB vs OpenMP static", "cws-heat"};
  cws_apps::suite_options opt;
  std::size_t n = 2048, block = 0;
  cws_apps::add_bounded_option(app, "--size", n, "Grid side N (an N x N grid of doubles, two buffers)", std::size_t{3},
                               std::size_t{1} << 16);
  cws_apps::add_block_rows_option(app, "--block", block, "Rows per leaf block of the cws, TBB and OpenMP loops", "N",
                                  std::size_t{1} << 16);
  cws_apps::add_suite_options(
      app, opt,
      {.iters_help = "Jacobi iterations (step phases) per run; a sample is their mean",
       .footprint = "interleaved: 2 grids of N x N doubles per variant (12 variants with the default policies: 768 MiB "
                    "at N = 2048); sequential: 4 grids (serial's, kept as the reference, and one other variant's)"});

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    cws_apps::bench_env env(opt.common);
    block = cws_apps::block_rows(block, n, env.workers());
    const std::size_t blocks = (n + block - 1) / block;
    const cws_apps::row_grid grid{n, n};
    cws_apps::loop_suite suite(env, opt,
                               {.app = "heat",
                                .phases = {"init", "step"},
                                .baselines = {{"tbb-auto", cws_apps::loop_flavour::tbb_auto},
                                              {"tbb-affinity", cws_apps::loop_flavour::tbb_affinity},
                                              {"omp-static", cws_apps::loop_flavour::omp_static}},
                                .n = n,
                                .grain = block});
    const double grid_bytes = static_cast<double>(grid.cells() * sizeof(double));
    const std::string homes = env.rt().page_homes().name();
    cws_apps::json params = suite.params({{"size", n}, {"block_rows", block}, {"blocks", blocks}});
    params.update({{"bytes_per_step", 2 * grid_bytes}, {"page_homes", homes}});
    cws_apps::report out("heat", env, params);
    std::vector<std::optional<cws_apps::two_buffers>> g(suite.variants().size());
    const double* expected = nullptr;  // the serial variant's final grid (serial finishes first; its grids stay)
    cws_apps::suite_hooks hooks = cws_apps::stencil_hooks(
        g, grid, opt.common.iters, [n](double* a, double* b, auto lo, auto hi) { heat::init_rows(a, b, n, lo, hi); },
        [n](const double* c, double* x, auto lo, auto hi) { heat::step_rows(c, x, n, lo, hi); });
    hooks.finish = [&](cws_apps::loop_variant& v, const cws_apps::phase_timer& t, cws_apps::json& e,
                       std::vector<std::string>& wrong) {
      e["gbps"] = 2 * grid_bytes / t["step"].median() / 1e9;
      cws_apps::put_check(e, wrong, expected ? cws_apps::compare_grids(v.name, g[v.index]->cur, expected, grid) : "");
      if (expected == nullptr) expected = g[v.index]->cur;
      if (v.loop != cws_apps::loop_flavour::serial) g[v.index].reset();
    };
    return suite.run(out, hooks,
                     fmt::format("cws-heat: {} x {} grid of doubles (2 x {:.0f} MiB), blocks of {} rows ({} blocks), "
                                 "{} iterations per run, {} runs (+{} warm-up)",
                                 n, n, grid_bytes / (1 << 20), block, blocks, opt.common.iters, opt.common.plan.runs,
                                 opt.common.plan.warmup),
                     cws_apps::standard_columns({.time_title = "ms/iter", .waiting = true}),
                     {"ms/iter: median over runs of the mean time of one iteration (one step phase), the wall clock "
                      "around the call (rt.run, tbb::parallel_for, the OpenMP region); init: one init phase; GB/s: one "
                      "grid read and one written per iteration; 'vs' columns are time ratios (lower is better);",
                      "desig .. div: means over the measured step iterations: steals designated, extra, taken back, "
                      "waiting time summed over workers, schedule distance to the previous iteration, share replayed, "
                      "diverged;",
                      cws_apps::locality_note(homes, "step phase", "ms/iter")});
  });
}
