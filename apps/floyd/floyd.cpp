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
//
// The variants, their timing, the cws figures, the iteration lines and the
// table are the common runner's (common/loop_suite.hpp); this file holds
// what is floyd's own: the matrix, what a leaf touches, its options and the
// check against the serial program.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/loop_suite.hpp"
#include "floyd/paths.hpp"
#include "floyd/reference.hpp"

namespace {

enum phase_id { init_phase = 0, step_phase = 1 };

using matrix = cws::numa::array<int>;  // first touched by the variant's own init loop, untimed

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

double run_init(cws_apps::loop_variant& v, matrix& m, const floyd::tiling& t) {
  int* const path = m.data();
  const bool declare = v.runs_cws();
  return v.loops->run(init_phase, [=, &t](std::size_t first, std::size_t last) {
    if (declare) touch_tiles(path, t, first, last);
    floyd::init_tiles(path, t, first, last);
  });
}
double run_step(cws_apps::loop_variant& v, matrix& m, const floyd::tiling& t, std::size_t k) {
  int* const path = m.data();
  const bool declare = v.runs_cws();
  return v.loops->run(step_phase, [=, &t](std::size_t first, std::size_t last) {
    if (declare) touch_step(path, t, k, first, last);
    floyd::relax_tiles(path, t, k, first, last);
  });
}

// "<variant>: 3 distance(s) differ ..." when `got` is not `want`, else "".
std::string compare(const std::string& variant, const int* got, const std::vector<int>& want, std::size_t n) {
  std::size_t count = 0;
  const std::size_t first = floyd::first_difference(got, want.data(), n, count);
  if (count == 0) return "";
  return fmt::format("{}: {} distance(s) differ from the serial program, first at row {} column {} ({} instead of {})",
                     variant, count, first / n, first % n, got[first], want[first]);
}

std::vector<std::string> notes(const std::string& page_homes) {
  return {
      "ms/step: median over runs of the mean time of one step k (one phase), the wall clock around the call (rt.run, "
      "tbb::parallel_for, the OpenMP region); init: one init phase;",
      "GB/s counts the matrix read and written once per step; 'vs' columns are time ratios (lower is better);",
      "desig .. div: means over the measured runs' steps (schedule store; recorder for random): steals designated, "
      "extra, taken back, schedule distance to the previous step, share that replayed a template, diverged steps;",
      fmt::format("local %: mean over the measured steps of the share of declared bytes on a page homed on the "
                  "toucher's node (page homes: {}); last %: the last measured step;",
                  page_homes),
      "moved / reloc ms: pages moved and time spent by the relocalizations after the measured runs' phases (evolve's), "
      "inside ms/step (rt.run makes them)"};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"PolyBench floyd-warshall (SC14): cws under each policy vs TBB vs OpenMP static", "cws-floyd"};
  cws_apps::suite_options opt;
  opt.common.iters = 100;
  std::size_t n = 2048, tile_rows = 0, tile_cols = 0;
  bool full = false;
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
  cws_apps::add_suite_options(
      app, opt,
      "Under replaying policies, the step phases replay the init phase's template (schedule follows data) instead "
      "of their own",
      "interleaved: one n x n int matrix per variant (13 variants with the default policies: 208 MiB at n = 2048); "
      "sequential: one at a time; both keep the serial program's matrix for the verification",
      "Steps k = 0 .. iters-1 (phases) per run, at most n; a sample is their mean");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const unsigned steps = opt.common.iters = full ? static_cast<unsigned>(n) : opt.common.iters;
    if (steps > n)
      return cws_apps::report_error(
          app.get_name(), fmt::format("--iters {} is more than the {} steps of n = {}", steps, n, n).c_str(), 2);
    cws_apps::bench_env env(opt.common);
    if (tile_rows == 0) tile_rows = std::max<std::size_t>(1, n / (16 * std::size_t{env.workers()}));
    if (tile_cols == 0) tile_cols = std::max<std::size_t>(1, n / 2);
    const floyd::tiling tiles(n, tile_rows, tile_cols);
    cws_apps::loop_suite suite(
        env, opt,  // one leaf per tile: the loops run over the tile numbers
        {.app = "floyd", .phases = {"init", "step"}, .baselines = cws_apps::standard_baselines(), .n = tiles.count});

    // The serial program's matrix, untimed, before anything is measured.
    const std::vector<int> expected = floyd::reference_run(n, steps);
    const double matrix_bytes = static_cast<double>(n * n * sizeof(int));
    const std::string homes = env.rt().page_homes().name();
    cws_apps::json params = suite.params({{"size", n},
                                          {"steps", steps},
                                          {"full", steps == n},
                                          {"tile_rows", tiles.rows},
                                          {"tile_cols", tiles.cols},
                                          {"tiles", tiles.count}});
    params.update({{"bytes_per_step", 2 * matrix_bytes},
                   {"checksum", {{"sum", floyd::sum(expected.data(), n)}, {"max", floyd::max(expected.data(), n)}}},
                   {"page_homes", homes}});
    cws_apps::report out("floyd", env, params);
    std::vector<std::optional<matrix>> path(suite.variants().size());
    const cws_apps::suite_hooks hooks{
        .prepare =
            [&](cws_apps::loop_variant& v) {
              run_init(v, path[v.index].emplace(cws::numa::allocate<int>(n * n, v.placement)), tiles);
            },
        .one_run =
            [&](cws_apps::loop_variant& v, cws_apps::phase_timer& t) {
              t.time_reported("init", 1, [&] { return run_init(v, *path[v.index], tiles); });
              std::size_t k = 0;
              t.time_reported("step", steps, [&] { return run_step(v, *path[v.index], tiles, k++); });
            },
        .finish =
            [&](cws_apps::loop_variant& v, const cws_apps::phase_timer& t, cws_apps::json& e,
                std::vector<std::string>& wrong) {
              e["gbps"] = 2 * matrix_bytes / t["step"].median() / 1e9;
              const std::string w = compare(v.name, path[v.index]->data(), expected, n);
              if (!w.empty()) wrong.push_back(w);
              e["verified"] = w.empty();
              path[v.index].reset();
            }};
    return suite.run(out, hooks,
                     fmt::format("cws-floyd: floyd-warshall on {} vertices ({} x {} int, {:.0f} MiB), tiles of {} x "
                                 "{} ({} tiles), steps k = 0 .. {} per run ({}), {} runs (+{} warm-up)",
                                 n, n, n, matrix_bytes / (1 << 20), tiles.rows, tiles.cols, tiles.count, steps - 1,
                                 steps == n ? "the whole algorithm" : fmt::format("{} of {}", steps, n),
                                 opt.common.plan.runs, opt.common.plan.warmup),
                     cws_apps::standard_columns({}), notes(homes));
  });
}
