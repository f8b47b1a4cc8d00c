// cws-sor: PufferFish's SOR and SOR-ir benchmarks, done race-free. An n x n
// grid of floats; every sweep is two phases (red rows, then black rows; see
// sor/grid.hpp), each a recursion over the interior rows in leaves of
// `--tile` rows (PufferFish's THRESHOLD, 2), with a hint on every child: the
// rows it writes. `--recursion regular` is SOR's binary splitter,
// `irregular` SOR-ir's 2-/4-way one (common/hinted_recursion.hpp).
//
// Variants (common/row_loops.hpp): serial; cws-hinted and cws-hinted-hpt
// (block-cyclic grid); cws-random-ft (first touch), cws-random-il
// (interleaved); cws-evolve (first touch); cws-evolve-hinted (block-cyclic);
// tbb-simple, tbb-affinity, omp-static. Each variant initialises its own grid
// with its own parallel loop over the same rows (its first touch), untimed,
// before every run; then `--iters` sweeps are timed. After the last run every
// grid must equal the serial program's bit for bit. `--faithful` runs the
// artifact's racy in-place update instead (one phase per sweep), for timing
// only: its grids are checked to stay finite.

#include <fmt/format.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/hinted_recursion.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"
#include "sor/grid.hpp"
#include "common/hinted_figures.hpp"
#include "common/row_loops.hpp"

namespace {

enum phase_id : std::size_t { init_phase = 0, red_phase = 1, black_phase = 2 };  // faithful: red_phase is the sweep
enum class hint_mode { written, faithful };

struct variant {
  pufferfish::variant_kind kind;
  std::string name;
  std::vector<cws::schedule*> schedules;  // cws: init, red, black (faithful: init, sweep)
  std::vector<std::uint64_t> start;       // cws: each schedule's iterations() before the first run
  std::unique_ptr<pufferfish::row_loops> loops;
  std::optional<cws::numa::array<float>> cells;
  sor::grid view{};
};

// The hint of a child over rows [lo, hi) of a kernel phase.
struct kernel_hint {
  const cws::numa::array<float>* cells;
  std::size_t n;
  hint_mode mode;
  bool all_rows;  // --faithful: the child writes every row of [lo, hi)
  sor::colour c;
  cws::touch_hint operator()(std::size_t lo, std::size_t hi) const {
    // The artifact's hint: from the start of row lo-1 to the first element of
    // row hi, inclusive (so a range ending on a block boundary spans nodes).
    if (mode == hint_mode::faithful) return cws::hint(*cells, (lo - 1) * n, hi * n + 1);
    if (all_rows) return cws::hint(*cells, lo * n, hi * n);
    const sor::row_span rows = sor::rows_of(c, lo, hi, n);
    return cws::hint(*cells, rows.first * n, rows.end * n);
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"PufferFish SOR / SOR-ir, red-black: cws hinted, random, evolve vs TBB vs OpenMP static", "cws-sor"};
  cws_apps::common_options opt;
  opt.iters = 20;
  std::size_t n = 2048, tile = 2;
  std::string recursion_name = "regular", hint_name = "written";
  std::vector<std::string> variant_list;
  bool faithful = false;
  app.add_option("--size", n, "Rows and columns of the grid (PufferFish: 16384)")
      ->check(CLI::Range(std::size_t{3}, std::size_t{1} << 17))
      ->capture_default_str();
  app.add_option("--tile", tile, "Rows per leaf (PufferFish's THRESHOLD)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  app.add_option("--recursion", recursion_name, "regular: SOR's binary splitter; irregular: SOR-ir's 2-/4-way one")
      ->check(CLI::IsMember({"regular", "irregular"}))
      ->capture_default_str();
  app.add_option("--hint", hint_name,
                 "written: a child's hint is the rows it writes; faithful: the artifact's hint, row lo-1 to the first "
                 "element of row hi")
      ->check(CLI::IsMember({"written", "faithful"}))
      ->capture_default_str();
  app.add_flag("--faithful", faithful,
               "The artifact's in-place update of every row in one phase per sweep (a data race: timing only, the "
               "grid is checked to stay finite)");
  app.add_option("--variants", variant_list,
                 "Comma-separated variants to run (default: all): " + pufferfish::variant_names())
      ->delimiter(',');
  cws_apps::add_common_options(app, opt);
  cws_apps::add_order_option(app, opt,
                             "interleaved: one grid of n x n floats per variant (10 variants: 160 MiB at 2048, 10 GiB "
                             "at 16384); sequential: one grid at a time; both keep the serial program's grid");
  app.get_option("--iters")->description("Sweeps per run (PufferFish: 50); a sample is their mean");
  app.get_option("--policy")->description("Only the cws variants whose kernel policy this is (and the baselines)");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const bool policy_given = app.get_option("--policy")->count() > 0;
    const std::vector<pufferfish::variant_kind> kinds =
        pufferfish::choose_variants(variant_list, policy_given ? opt.policy : "");
    const cws_apps::recursion shape =
        recursion_name == "regular" ? cws_apps::recursion::regular : cws_apps::recursion::irregular;
    const hint_mode hints = hint_name == "faithful" ? hint_mode::faithful : hint_mode::written;
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();
    cws_apps::locality_tally locality(rt);
    pufferfish::counter_tally counters(rt);
    const std::size_t cells = n * n;
    const unsigned kernel_phases = faithful ? 1 : 2;

    // Every schedule is created before anything runs, so an unknown policy fails at once (exit 2).
    std::vector<variant> variants;
    for (const pufferfish::variant_kind& k : kinds) {
      variant v;
      v.kind = k;
      v.name = k.name;
      if (k.how == pufferfish::runner::cws) {
        v.schedules.push_back(&rt.schedule("sor-init/" + k.name, k.init_policy));
        if (faithful) {
          v.schedules.push_back(&rt.schedule("sor-sweep/" + k.name, k.policy));
        } else {
          v.schedules.push_back(&rt.schedule("sor-red/" + k.name, k.policy));
          v.schedules.push_back(&rt.schedule("sor-black/" + k.name, k.policy));
          // Both phases split the same rows the same way, and a page holds rows of both colours when rows are
          // shorter than a page: with one tree for both, evolve moves each page to one place, not back and forth.
          if (pufferfish::learns_trees(k)) v.schedules[black_phase]->follow(v.schedules[red_phase]->name());
        }
      } else {
        v.schedules.assign(1 + kernel_phases, nullptr);
      }
      v.loops = std::make_unique<pufferfish::row_loops>(env, k.how, shape, tile, v.schedules);
      variants.push_back(std::move(v));
    }

    // The serial program's grid, untimed, before anything is measured.
    std::vector<float> expected;
    if (!faithful) {
      expected.resize(cells);
      sor::serial_run({expected.data(), n}, opt.iters);
    }
    const std::string bench = shape == cws_apps::recursion::regular ? "sor" : "sor-ir";
    cws_apps::report out(
        "sor", env,
        {{"bench", bench},
         {"size", n},
         {"sweeps", opt.iters},
         {"iters", opt.iters},
         {"tile", tile},
         {"recursion", pufferfish::to_string(shape)},
         {"hint", hint_name},
         {"faithful", faithful},
         {"omega", sor::omega},
         {"element", "float"},
         {"phases_per_sweep", kernel_phases},
         {"runs", opt.plan.runs},
         {"warmup", opt.plan.warmup},
         {"order", cws_apps::to_string(opt.plan.order)},
         {"checksum", faithful ? cws_apps::json(nullptr) : cws_apps::json(sor::checksum(expected.data(), cells))},
         {"page_homes", rt.page_homes().name()}});

    const auto run_init = [&](variant& v) {
      const sor::grid g = v.view;
      const cws::numa::array<float>* a = &*v.cells;
      return v.loops->run(
          init_phase, 0, n, [a, n](std::size_t lo, std::size_t hi) { return cws::hint(*a, lo * n, hi * n); },
          [g](std::size_t lo, std::size_t hi) { sor::init_rows(g, lo, hi); });
    };
    const auto run_kernel = [&](variant& v, std::size_t phase) {
      const sor::grid g = v.view;
      if (faithful)
        return v.loops->run(phase, 1, n - 1, kernel_hint{&*v.cells, n, hints, true, sor::colour::red},
                            [g](std::size_t lo, std::size_t hi) { sor::relax_all_rows(g, lo, hi); });
      const sor::colour c = phase == red_phase ? sor::colour::red : sor::colour::black;
      return v.loops->run(phase, 1, n - 1, kernel_hint{&*v.cells, n, hints, false, c},
                          [g, c](std::size_t lo, std::size_t hi) { sor::relax_rows(g, lo, hi, c); });
    };

    std::vector<std::string> wrong;
    const auto prepare = [&](variant& v) {
      v.cells.emplace(cws::numa::allocate<float>(cells, v.kind.placement));
      v.view = {v.cells->data(), n};
      run_init(v);  // the first touch, untimed: no measured phase takes a page fault
      for (const cws::schedule* s : v.schedules)
        if (s != nullptr) v.start.push_back(s->iterations());
    };
    const auto one_run = [&](variant& v, cws_apps::phase_timer& t) {
      v.loops->begin_run(t);
      t.time_reported("init", 1, [&] { return run_init(v); });
      t.time_reported("sweep", opt.iters, [&] {
        double s = run_kernel(v, red_phase);
        if (!faithful) s += run_kernel(v, black_phase);
        return s;
      });
    };
    const auto finish = [&](variant& v, const cws_apps::phase_timer& timer) {
      cws_apps::json& e = out.add(v.name);
      cws_apps::put_timing(e, timer["sweep"]);  // median_s / min_s: one sweep
      cws_apps::put_timing(e, timer["init"], "init_");
      e["placement"] = cws::numa::to_string(v.kind.placement);
      e["mcups"] = static_cast<double>((n - 2) * (n - 2)) / timer["sweep"].median() / 1e6;
      bool ok = true;
      if (faithful) {
        const std::size_t bad = sor::non_finite(v.view.cells, cells);
        e["check"] = "finite";
        if (bad)
          ok = false, wrong.push_back(fmt::format("{}: {} cell(s) not finite after the faithful sweeps", v.name, bad));
      } else {
        std::size_t count = 0;
        const std::size_t first = sor::first_difference(v.view.cells, expected.data(), cells, count);
        e["check"] = "exact";
        if (count)
          ok = false, wrong.push_back(fmt::format(
                          "{}: {} cell(s) differ from the serial program, first at row {} column {} ({} instead of {})",
                          v.name, count, first / n, first % n, v.view.cells[first], expected[first]));
      }
      e["checksum"] = sor::checksum(v.view.cells, cells);
      e["verified"] = ok;
      if (v.loops->runs_cws_phases()) {
        e["policy"] = v.kind.policy;
        std::vector<pufferfish::measured_runs> kernel;
        for (std::size_t p = 1; p < v.schedules.size(); ++p)
          kernel.push_back(pufferfish::measured(*v.schedules[p], v.start[p], opt.iters, opt.plan));
        pufferfish::put_cws_figures(e, locality, counters, kernel,
                                    pufferfish::measured(*v.schedules[init_phase], v.start[init_phase], 1, opt.plan));
        cws_apps::put_phase_breakdown(e, v.loops->clock(red_phase), faithful ? "sweep_" : "red_");
        if (!faithful) cws_apps::put_phase_breakdown(e, v.loops->clock(black_phase), "black_");
      }
      v.cells.reset();
    };
    cws_apps::measure_variants(variants, opt.plan, prepare, one_run, finish);
    pufferfish::add_ratios(out);

    env.save_trace();
    out.print(opt.json,
              fmt::format("cws-sor ({}): {} x {} floats ({:.0f} MiB), {} sweeps per run ({}), leaves of {} rows, "
                          "hints: {}, {} runs (+{} warm-up)",
                          bench, n, n, static_cast<double>(cells * sizeof(float)) / (1 << 20), opt.iters,
                          faithful ? "faithful: one racy in-place phase each" : "red and black phase each", tile,
                          hint_name, opt.plan.runs, opt.plan.warmup),
              pufferfish::table_columns("ms/sweep"),
              {"ms/sweep: median over runs of the mean time of one sweep, the wall clock around the calls of its "
               "phases (rt.run, tbb::parallel_for, the OpenMP region); init (untimed in ms/sweep) re-initialises the "
               "grid before every run; 'vs' columns are time ratios (lower is better);",
               "leaf / node / root: hinted spawns find_place sent to the spawner's leaf, another node, the root, "
               "summed over the measured kernel phases; het %: the share of them HET ran inline;",
               fmt::format("local %: mean over the measured kernel phases of the share of declared bytes (the leaves' "
                           "hints: the rows they write) on a page homed on the toucher's node (page homes: {}); last "
                           "%: the last phase; moved: pages evolve relocalized",
                           rt.page_homes().name()),
               faithful ? "ok: the grid is finite (the faithful update races, its result is not reproducible)"
                        : "ok: the grid equals the serial red-black program's bit for bit"});
    if (!wrong.empty()) {
      for (const std::string& w : wrong) cws_apps::report_error(app.get_name(), w.c_str(), 1);
      return 1;
    }
    return 0;
  });
}
