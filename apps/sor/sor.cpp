// cws-sor: PufferFish's SOR and SOR-ir benchmarks, done race-free. An n x n
// grid of floats; every sweep is two phases (red rows, then black rows; see
// sor/grid.hpp), each a loop over the interior rows whose children hint the
// rows they write. Every variant's grid must equal the serial program's bit
// for bit. `--faithful` runs the artifact's racy in-place update instead (one
// phase per sweep), for timing only: its grids must stay finite. The
// variants, timing, figures and table are common/row_suite.hpp's.

#include <fmt/format.h>

#include "common/row_suite.hpp"
#include "sor/grid.hpp"

namespace {

using pufferfish::row_variant;

enum phase_id : std::size_t { init_phase = 0, red_phase = 1, black_phase = 2 };  // faithful: red_phase is the sweep

struct setup {
  std::size_t n = 2048;
  std::string hint = "written";  // faithful: the artifact's hint, from row lo-1 to the first element of row hi
  bool faithful = false;         // one racy phase per sweep, writing every row of [lo, hi)
};

// One kernel phase of colour c (or the faithful one).
double run_kernel(row_variant& v, const setup& s, sor::colour c) {
  cws::numa::array<float>& a = v.arrays[0];
  const sor::grid g{a.data(), s.n};
  const auto hint = [&a, &s, c](std::size_t lo, std::size_t hi) {
    if (s.hint == "faithful") return cws::hint(a, (lo - 1) * s.n, hi * s.n + 1);  // spans nodes at block ends
    const sor::row_span rows = s.faithful ? sor::row_span{lo, hi} : sor::rows_of(c, lo, hi, s.n);
    return cws::hint(a, rows.first * s.n, rows.end * s.n);
  };
  if (s.faithful)
    return v.loops->run(red_phase, 1, s.n - 1, hint, [g](auto lo, auto hi) { sor::relax_all_rows(g, lo, hi); });
  return v.loops->run(c == sor::colour::red ? red_phase : black_phase, 1, s.n - 1, hint,
                      [g, c](std::size_t lo, std::size_t hi) { sor::relax_rows(g, lo, hi, c); });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"PufferFish SOR / SOR-ir, red-black: cws hinted, random, evolve vs TBB vs OpenMP static", "cws-sor"};
  pufferfish::row_options opt;
  opt.common.iters = 20;
  setup s;
  app.add_option("--size", s.n, "Rows and columns of the grid (PufferFish: 16384)")
      ->check(CLI::Range(std::size_t{3}, std::size_t{1} << 17))
      ->capture_default_str();
  app.add_option("--hint", s.hint,
                 "written: a child's hint is the rows it writes; faithful: the artifact's hint, row lo-1 to the first "
                 "element of row hi")
      ->check(CLI::IsMember({"written", "faithful"}))
      ->capture_default_str();
  app.add_flag("--faithful", s.faithful,
               "The artifact's in-place update of every row in one phase per sweep (a data race: timing only, the "
               "grid is checked to stay finite)");
  pufferfish::add_row_options(app, opt,
                              {"SOR", "Rows per leaf (PufferFish's THRESHOLD)",
                               "interleaved: one grid of n x n floats per variant (10 variants: 160 MiB at 2048, 10 "
                               "GiB at 16384); sequential: one grid at a time; both keep the serial program's grid",
                               "Sweeps per run (PufferFish: 50); a sample is their mean"});

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const std::size_t n = s.n, cells = n * n;
    cws_apps::bench_env env(opt.common);
    pufferfish::row_suite suite(
        env, opt,
        {.app = "sor",
         .phases =
             s.faithful ? std::vector<std::string>{"init", "sweep"} : std::vector<std::string>{"init", "red", "black"},
         .data = {1, cells, n, 0, "cell(s)"},
         .step = {"sweep", "ms/sweep", "mcups", static_cast<double>((n - 2) * (n - 2))},
         .words = {"the calls of its phases", "grid", "kernel", "the leaves' hints: the rows they write",
                   s.faithful ? "ok: the grid is finite (the faithful update races, its result is not reproducible)"
                              : "ok: the grid equals the serial red-black program's bit for bit"}});
    std::vector<float> expected(s.faithful ? 0 : cells);  // the serial program's grid, untimed
    if (!s.faithful) sor::serial_run({expected.data(), n}, opt.common.iters);
    const auto init = [&](row_variant& v) {
      cws::numa::array<float>* a = &v.arrays[0];
      return v.loops->run(
          init_phase, 0, n, [a, n](std::size_t lo, std::size_t hi) { return cws::hint(*a, lo * n, hi * n); },
          [g = sor::grid{a->data(), n}](std::size_t lo, std::size_t hi) { sor::init_rows(g, lo, hi); });
    };
    const auto sweep = [&](row_variant& v) {
      const double red = run_kernel(v, s, sor::colour::red);
      return s.faithful ? red : red + run_kernel(v, s, sor::colour::black);
    };
    const auto verify = [&](row_variant& v, cws_apps::json& e, std::vector<std::string>& wrong) {
      e["check"] = s.faithful ? "finite" : "exact";
      if (const std::size_t bad = s.faithful ? sor::non_finite(v.arrays[0].data(), cells) : 0)
        wrong.push_back(fmt::format("{}: {} cell(s) not finite after the faithful sweeps", v.name, bad));
    };
    return suite.run({init, sweep, verify}, expected,
                     {.sizes = {{"size", n}},
                      .own = {{"hint", s.hint},
                              {"faithful", s.faithful},
                              {"omega", sor::omega},
                              {"element", "float"},
                              {"phases_per_sweep", s.faithful ? 1 : 2}},
                      .size = fmt::format("{} x {} floats ({:.0f} MiB)", n, n,
                                          static_cast<double>(cells * sizeof(float)) / (1 << 20)),
                      .per_step = s.faithful ? "faithful: one racy in-place phase each" : "red and black phase each",
                      .detail = "hints: " + s.hint});
  });
}
