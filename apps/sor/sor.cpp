// cws-sor: PufferFish's SOR and SOR-ir, race-free: every sweep of the n x n
// grid of floats is two loops over the interior rows, red rows then black ones
// (sor/grid.hpp); every grid must equal the serial program's bit for bit.
// `--faithful` runs the artifact's racy in-place update (one phase per sweep),
// for timing only: its grids must stay finite. Runner: common/row_suite.hpp.

#include <fmt/format.h>

#include <string>
#include <vector>

#include "common/bounded_option.hpp"
#include "common/row_suite.hpp"
#include "sor/grid.hpp"

namespace {

using pufferfish::row_variant;

enum phase_id : std::size_t { init_phase = 0, red_phase = 1, black_phase = 2 };  // faithful: red_phase is the sweep

// One sweep of `v`'s grid: red, then black (--faithful: one phase of every
// row). A child's hint is the rows it writes, or the artifact's, which spans
// nodes when the child's range ends on a block boundary.
double run_sweep(row_variant& v, std::size_t n, bool artifact_hint, bool faithful) {
  cws::numa::array<float>& a = v.arrays[0];
  double seconds = 0;
  for (std::size_t phase = red_phase; phase <= (faithful ? red_phase : black_phase); ++phase) {
    const sor::colour c = phase == red_phase ? sor::colour::red : sor::colour::black;
    const auto hint = [&a, n, artifact_hint, faithful, c](std::size_t lo, std::size_t hi) {
      if (artifact_hint) return cws::hint(a, (lo - 1) * n, hi * n + 1);
      const sor::row_span rows = faithful ? sor::row_span{lo, hi} : sor::rows_of(c, lo, hi, n);
      return cws::hint(a, rows.first * n, rows.end * n);
    };
    seconds += v.loops->run(phase, 1, n - 1, hint, [g = sor::grid{a.data(), n}, c, faithful](auto lo, auto hi) {
      faithful ? sor::relax_all_rows(g, lo, hi) : sor::relax_rows(g, lo, hi, c);
    });
  }
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"PufferFish SOR / SOR-ir, red-black: cws hinted, random, evolve vs TBB vs OpenMP static", "cws-sor"};
  pufferfish::row_options opt;
  std::size_t n = 2048;
  std::string hint = "written";
  bool faithful = false;
  pufferfish::add_count_option(app, "--size", n, "Rows and columns of the grid (PufferFish: 16384)", 3, 1 << 17);
  cws_apps::add_checked_option(app, "--hint", hint,
                               "written: a child's hint is the rows it writes; faithful: the artifact's hint, row "
                               "lo-1 to the first element of row hi",
                               CLI::IsMember({"written", "faithful"}));
  app.add_flag("--faithful", faithful,
               "The artifact's in-place update of every row in one phase per sweep (a data race: timing only, the "
               "grid is checked to stay finite)");
  pufferfish::add_row_options(
      app, opt,
      {"SOR", "Rows per leaf (PufferFish's THRESHOLD)", 20, "Sweeps per run (PufferFish: 50); a sample is their mean",
       "interleaved: one grid of n x n floats per variant (10 variants: 160 MiB at 2048, 10 GiB at 16384); "
       "sequential: one grid at a time; both keep the serial program's grid"});

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    cws_apps::bench_env env(opt.common);
    pufferfish::row_suite suite(
        env, opt,
        {.app = "sor",
         .phases =
             faithful ? std::vector<std::string>{"init", "sweep"} : std::vector<std::string>{"init", "red", "black"},
         .data = {1, n * n, n, 0, "cell(s)"},
         .step = {"sweep", "ms/sweep", "mcups", static_cast<double>((n - 2) * (n - 2))},
         .words = {"the calls of its phases", "grid", "kernel", "the leaves' hints: the rows they write",
                   faithful ? "ok: the grid is finite (the faithful update races, its result is not reproducible)"
                            : "ok: the grid equals the serial red-black program's bit for bit"}});
    // The serial program's grid, untimed (--faithful: none, its sweeps race).
    const std::vector<float> expected = faithful ? std::vector<float>{} : sor::serial_run(n, opt.common.iters);
    const auto init = [&](row_variant& v) {
      return v.loops->run(init_phase, 0, n, pufferfish::rows_hint(v.arrays[0], n),
                          [g = sor::grid{v.arrays[0].data(), n}](auto lo, auto hi) { sor::init_rows(g, lo, hi); });
    };
    const auto verify = [&](row_variant& v, cws_apps::json& e, std::vector<std::string>& wrong) {
      e["check"] = faithful ? "finite" : "exact";
      if (const std::size_t bad = faithful ? sor::non_finite(v.arrays[0].data(), n * n) : 0)
        wrong.push_back(fmt::format("{}: {} cell(s) not finite after the faithful sweeps", v.name, bad));
    };
    const auto sweep = [&](row_variant& v) { return run_sweep(v, n, hint == "faithful", faithful); };
    return suite.run({init, sweep, verify}, expected,
                     {.sizes = {{"size", n}},
                      .own = {{"hint", hint},
                              {"faithful", faithful},
                              {"omega", sor::omega},
                              {"element", "float"},
                              {"phases_per_sweep", faithful ? 1 : 2}},
                      .size = fmt::format("{} x {} floats", n, n),
                      .per_step = faithful ? "faithful: one racy in-place phase each" : "red and black phase each",
                      .detail = "hints: " + hint});
  });
}
