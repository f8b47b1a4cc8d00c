// cws-jacobi: Jacobi sweeps of the 5-point Poisson stencil on a rows x cols
// grid of doubles (jacobi/grid.hpp), the grid not necessarily square. An init
// phase writes both buffers (their first touch), then every sweep is one
// phase: a recursive bisection over blocks of rows (cws::parallel_for_range,
// grain = block rows) from one buffer into the other. The same phase recurs
// every sweep, which the replaying policies exploit.
//
// Everything but the kernel, what a leaf touches, the options and the check
// is the common runner's (common/loop_suite.hpp): the variants (serial, cws
// under each policy of --policies, cws-random-interleave,
// cws-stows-follow-init, tbb-auto, tbb-affinity, tbb-static, omp-static),
// their timing, the cws figures, the iteration lines and the table. Every
// variant's final grid must equal the serial program's (reference_run) bit
// for bit.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/loop_suite.hpp"
#include "common/two_buffers.hpp"
#include "jacobi/grid.hpp"

namespace {

enum phase_id { init_phase = 0, sweep_phase = 1 };

using buffers = cws_apps::two_buffers;  // first touched by the variant's own init loop, untimed

struct shape {
  std::size_t rows, cols;
};

// Rows [lo, hi) of `p` (clamped to the grid), declared as touched (touch.hpp).
void touch_rows(const double* p, const shape& s, std::size_t lo, std::size_t hi) {
  hi = std::min(hi, s.rows);
  if (lo < hi) cws::touch(p + lo * s.cols, (hi - lo) * s.cols * sizeof(double));
}

// One init run (both buffers) or one sweep (cur -> next, then swapped); the
// cws leaves declare their touches first: init writes its rows of both
// buffers; a sweep reads rows lo-1 .. hi of cur and writes rows [lo, hi) of next.
double run_init(cws_apps::loop_variant& v, buffers& g, const shape& s) {
  double *const a = g.a.data(), *const b = g.b.data();
  const bool declare = v.runs_cws();
  g.restart();
  return v.loops->run(init_phase, [=](std::size_t lo, std::size_t hi) {
    if (declare) touch_rows(a, s, lo, hi), touch_rows(b, s, lo, hi);
    jacobi::init_rows(a, b, s.cols, lo, hi);
  });
}
double run_sweep(cws_apps::loop_variant& v, buffers& g, const shape& s) {
  const double* const cur = g.cur;
  double* const next = g.next;
  const bool declare = v.runs_cws();
  const double seconds = v.loops->run(sweep_phase, [=](std::size_t lo, std::size_t hi) {
    if (declare) touch_rows(cur, s, lo == 0 ? 0 : lo - 1, hi + 1), touch_rows(next, s, lo, hi);
    jacobi::sweep_rows(cur, next, s.cols, s.rows, lo, hi);
  });
  g.swap();
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"5-point Jacobi on a rows x cols grid: cws under each policy vs TBB vs OpenMP static", "cws-jacobi"};
  cws_apps::suite_options opt;
  opt.common.iters = 20;
  shape s{1024, 3072};
  std::size_t block = 0;
  app.add_option("--rows", s.rows, "Grid rows")
      ->check(CLI::Range(std::size_t{3}, std::size_t{1} << 20))
      ->capture_default_str();
  app.add_option("--cols", s.cols, "Grid columns")
      ->check(CLI::Range(std::size_t{3}, std::size_t{1} << 20))
      ->capture_default_str();
  app.add_option("--block", block, "Rows per leaf block (0: rows / (16 x workers))")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20))
      ->capture_default_str();
  cws_apps::add_suite_options(app, opt, "Under replaying policies, the sweeps replay the init phase's template",
                              "interleaved: 2 grids per variant; sequential: 2 at a time; both keep the serial "
                              "program's grid for the verification",
                              "Jacobi sweeps (phases) per run; a sample is their mean");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    cws_apps::bench_env env(opt.common);
    if (block == 0) block = std::max<std::size_t>(1, s.rows / (16 * std::size_t{env.workers()}));
    block = std::min(block, s.rows);
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
    std::vector<std::optional<buffers>> g(suite.variants().size());
    const cws_apps::suite_hooks hooks{
        .prepare = [&](cws_apps::loop_variant& v) { run_init(v, g[v.index].emplace(expected.size(), v.placement), s); },
        .one_run =
            [&](cws_apps::loop_variant& v, cws_apps::phase_timer& t) {
              t.time_reported("init", 1, [&] { return run_init(v, *g[v.index], s); });
              t.time_reported("step", opt.common.iters, [&] { return run_sweep(v, *g[v.index], s); });
            },
        .finish =
            [&](cws_apps::loop_variant& v, const cws_apps::phase_timer& t, cws_apps::json& e,
                std::vector<std::string>& wrong) {
              e["gbps"] = 2 * grid_bytes / t["step"].median() / 1e9;
              std::size_t count = 0;
              const std::size_t first =
                  jacobi::first_difference(g[v.index]->cur, expected.data(), expected.size(), count);
              if (count != 0)
                wrong.push_back(fmt::format("{}: {} cell(s) differ from the serial program, first at row {} column {}",
                                            v.name, count, first / s.cols, first % s.cols));
              e["verified"] = count == 0;
              g[v.index].reset();
            }};
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
