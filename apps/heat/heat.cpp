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
// The variants, their timing (interleaved rounds by default), the cws
// figures, the iteration lines and the table are the common runner's
// (common/loop_suite.hpp); this file holds what is heat's own: its grids,
// what a leaf touches, its options and the check against the serial grid.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/loop_suite.hpp"
#include "common/two_buffers.hpp"
#include "heat/grid.hpp"

namespace {

enum phase_id { init_phase = 0, step_phase = 1 };

using grids = cws_apps::two_buffers;  // first touched by the variant's own init loop, untimed

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
double run_init(cws_apps::loop_variant& v, grids& g, std::size_t n) {
  double* const a = g.a.data();
  double* const b = g.b.data();
  const bool declare = v.runs_cws();
  g.restart();
  return v.loops->run(init_phase, [=](std::size_t lo, std::size_t hi) {
    if (declare) touch_init(a, b, n, lo, hi);
    heat::init_rows(a, b, n, lo, hi);
  });
}
double run_step(cws_apps::loop_variant& v, grids& g, std::size_t n) {
  const double* const cur = g.cur;
  double* const next = g.next;
  const bool declare = v.runs_cws();
  const double s = v.loops->run(step_phase, [=](std::size_t lo, std::size_t hi) {
    if (declare) touch_step(cur, next, n, lo, hi);
    heat::step_rows(cur, next, n, lo, hi);
  });
  g.swap();
  return s;
}

// "<variant>: 3 cell(s) differ ..." when `got` is not `want`, else "".
std::string compare(const std::string& variant, const double* got, const double* want, std::size_t n) {
  std::size_t count = 0;
  const std::size_t first = heat::first_difference(got, want, n, count);
  if (count == 0) return "";
  return fmt::format("{}: {} cell(s) differ from the serial reference, first at row {} column {} ({} instead of {})",
                     variant, count, first / n, first % n, got[first], want[first]);
}

std::vector<std::string> notes(const std::string& page_homes) {
  return {
      "ms/iter: median over runs of the mean time of one Jacobi iteration (one step phase), the wall clock around the "
      "call (rt.run, tbb::parallel_for, the OpenMP region); init: one init phase;",
      "GB/s counts one grid read and one written per iteration; 'vs' columns are time ratios (lower is better);",
      "desig .. div: means over the measured runs' step iterations (schedule store; recorder for random): steals "
      "designated, extra, taken back,",
      "waiting time summed over workers, schedule distance to the previous iteration, share that replayed a template, "
      "diverged iterations;",
      fmt::format("local %: mean over the measured step phases of the share of declared bytes on a page homed on the "
                  "toucher's node (page homes: {}); last %: the last measured step phase;",
                  page_homes),
      "moved / reloc ms: pages moved and time spent by the relocalizations after the measured runs' init and step "
      "phases (evolve's), inside the ms/iter of a cws variant (rt.run makes them); iteration lines: the phases' own "
      "wall_s (JSON phase_wall_s / outside_wall_s: the split of ms/iter)"};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"2D Jacobi heat diffusion (SC14): cws under each policy vs TBB vs OpenMP static", "cws-heat"};
  cws_apps::suite_options opt;
  opt.common.iters = 20;
  std::size_t n = 2048, block = 0;
  app.add_option("--size", n, "Grid side N (an N x N grid of doubles, two buffers)")
      ->check(CLI::Range(std::size_t{3}, std::size_t{1} << 16))
      ->capture_default_str();
  app.add_option("--block", block, "Rows per leaf block of the cws, TBB and OpenMP loops (0: N / (16 x workers))")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 16))
      ->capture_default_str();
  cws_apps::add_suite_options(
      app, opt,
      "Under replaying policies, the step phases replay the init phase's template (schedule follows data) instead "
      "of their own",
      "interleaved: 2 grids of N x N doubles per variant (12 variants with the default policies: 768 MiB at N = "
      "2048); sequential: 4 grids (serial's, kept as the reference, and one other variant's)",
      "Jacobi iterations (step phases) per run; a sample is their mean");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    cws_apps::bench_env env(opt.common);
    if (block == 0) block = std::max<std::size_t>(1, n / (16 * std::size_t{env.workers()}));
    block = std::min(block, n);
    const std::size_t blocks = (n + block - 1) / block;
    cws_apps::loop_suite suite(env, opt,
                               {.app = "heat",
                                .phases = {"init", "step"},
                                .baselines = {{"tbb-auto", cws_apps::loop_flavour::tbb_auto},
                                              {"tbb-affinity", cws_apps::loop_flavour::tbb_affinity},
                                              {"omp-static", cws_apps::loop_flavour::omp_static}},
                                .n = n,
                                .grain = block});
    const double grid_bytes = static_cast<double>(n * n * sizeof(double));
    const std::string homes = env.rt().page_homes().name();
    cws_apps::json params = suite.params({{"size", n}, {"block_rows", block}, {"blocks", blocks}});
    params.update({{"bytes_per_step", 2 * grid_bytes}, {"page_homes", homes}});
    cws_apps::report out("heat", env, params);
    std::vector<std::optional<grids>> g(suite.variants().size());
    const double* expected = nullptr;  // the serial variant's final grid (serial finishes first; its grids stay)
    const cws_apps::suite_hooks hooks{
        .prepare = [&](cws_apps::loop_variant& v) { run_init(v, g[v.index].emplace(n * n, v.placement), n); },
        .one_run =
            [&](cws_apps::loop_variant& v, cws_apps::phase_timer& t) {
              t.time_reported("init", 1, [&] { return run_init(v, *g[v.index], n); });
              t.time_reported("step", opt.common.iters, [&] { return run_step(v, *g[v.index], n); });
            },
        .finish =
            [&](cws_apps::loop_variant& v, const cws_apps::phase_timer& t, cws_apps::json& e,
                std::vector<std::string>& wrong) {
              e["gbps"] = 2 * grid_bytes / t["step"].median() / 1e9;
              const std::string w = expected ? compare(v.name, g[v.index]->cur, expected, n) : "";
              if (expected == nullptr) expected = g[v.index]->cur;
              if (!w.empty()) wrong.push_back(w);
              e["verified"] = w.empty();
              if (v.loop != cws_apps::loop_flavour::serial) g[v.index].reset();
            }};
    return suite.run(out, hooks,
                     fmt::format("cws-heat: {} x {} grid of doubles (2 x {:.0f} MiB), blocks of {} rows ({} blocks), "
                                 "{} iterations per run, {} runs (+{} warm-up)",
                                 n, n, grid_bytes / (1 << 20), block, blocks, opt.common.iters, opt.common.plan.runs,
                                 opt.common.plan.warmup),
                     cws_apps::standard_columns({.time_title = "ms/iter", .waiting = true}), notes(homes));
  });
}
