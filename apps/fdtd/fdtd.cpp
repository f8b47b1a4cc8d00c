// cws-fdtd: PolyBench's fdtd-2d (2D finite-difference time domain), an SC14
// iterative benchmark: three nx x ny fields; an init phase writes them, then
// every time step is an e and an h phase over the same row blocks
// (fdtd/field_phases.hpp). Under a replaying policy the h phase replays the e
// phase's template (schedule::follow), unless --h-own-template. The variants,
// their timing and the table are the common runner's (common/loop_suite.hpp);
// this file holds the options and the check: every variant's fields equal
// the plain serial program's (fdtd/reference.cpp) bit for bit.

#include "common/bounded_option.hpp"
#include "common/grid_difference.hpp"
#include "fdtd/field_phases.hpp"
#include "fdtd/reference.hpp"

int main(int argc, char** argv) {
  CLI::App app{"PolyBench fdtd-2d (SC14): cws under each policy vs TBB vs OpenMP static", "cws-fdtd"};
  cws_apps::suite_options opt;
  std::size_t nx = 2048, ny = 2048, block = 0;
  bool h_own = false;
  const std::size_t most = std::size_t{1} << 20;
  cws_apps::add_bounded_option(app, "--nx", nx, "Rows of each field", std::size_t{2}, most);
  cws_apps::add_bounded_option(app, "--ny", ny, "Columns of each field", std::size_t{2}, most);
  cws_apps::add_block_rows_option(app, "--block", block, "Rows per leaf block of the cws, TBB and OpenMP loops", "nx",
                                  most);
  app.add_flag("--h-own-template", h_own,
               "Under replaying policies, the h phase replays its own template instead of the e phase's");
  cws_apps::add_suite_options(
      app, opt,
      {.iters_help = "Time steps per run (PolyBench's tmax); a sample is their mean",
       .footprint = "interleaved: 3 fields of nx x ny doubles per variant (13 variants with the default policies: 1.2 "
                    "GiB at 2048 x 2048); sequential: 3 fields at a time; both keep the serial program's 3 fields for "
                    "the verification",
       .follow =
           "Under replaying policies, both step phases replay the init phase's template (schedule follows data)"});

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    cws_apps::bench_env env(opt.common);
    block = cws_apps::block_rows(block, nx, env.workers());
    const std::size_t blocks = (nx + block - 1) / block, cells = nx * ny;
    cws_apps::suite_spec spec{.app = "fdtd",
                              .phases = {"init", "e", "h"},
                              .baselines = cws_apps::standard_baselines(),
                              .n = nx,
                              .grain = block};
    // h replays e's template: both split the same rows, and a block's h update reads what its e update wrote.
    if (!h_own) spec.follows.emplace_back(fdtd::h_phase, fdtd::e_phase);
    cws_apps::loop_suite suite(env, opt, std::move(spec));
    const fdtd::reference_fields expected = fdtd::reference_run(nx, ny, opt.common.iters);
    const double field_bytes = static_cast<double>(cells * sizeof(double));
    const std::string homes = env.rt().page_homes().name();
    cws_apps::json params = suite.params({{"nx", nx}, {"ny", ny}, {"tmax", opt.common.iters}});
    params.update({{"block_rows", block}, {"blocks", blocks}, {"h_own_template", h_own}});
    const auto sum = [&](const std::vector<double>& f) { return fdtd::sum(f.data(), cells); };
    params.update({{"bytes_per_step", 9 * field_bytes}, {"page_homes", homes}});
    params["checksums"] = {{"ex", sum(expected.ex)}, {"ey", sum(expected.ey)}, {"hz", sum(expected.hz)}};
    cws_apps::report out("fdtd", env, params);
    std::vector<std::optional<fdtd::field_arrays>> arrays(suite.variants().size());
    const cws_apps::suite_hooks hooks{
        .prepare =
            [&](cws_apps::loop_variant& v) { fdtd::run_init(v, arrays[v.index].emplace(nx, ny, v.placement).view); },
        .one_run = [&](cws_apps::loop_variant& v,
                       cws_apps::phase_timer& t) { fdtd::one_run(v, *arrays[v.index], opt.common.iters, t); },
        .finish =
            [&](cws_apps::loop_variant& v, const cws_apps::phase_timer& t, cws_apps::json& e,
                std::vector<std::string>& wrong) {
              const fdtd::field_arrays& a = *arrays[v.index];
              e["e_median_s"] = a.e_samples.median(), e["h_median_s"] = a.h_samples.median();
              e["gbps"] = 9 * field_bytes / t["step"].median() / 1e9;
              bool ok = true;  // "<variant>: ex: 12 value(s) differ ..., first at row 3 column 4 (x instead of y)"
              for (auto [name, got, want] : {std::tuple{"ex", a.view.ex, &expected.ex},
                                             {"ey", a.view.ey, &expected.ey},
                                             {"hz", a.view.hz, &expected.hz}})
                if (auto w = cws_apps::grid_difference(name, "value(s)", got, want->data(), cells, ny); !w.empty())
                  ok = false, wrong.push_back(v.name + ": " + w);
              e["verified"] = ok;
              arrays[v.index].reset();
            }};
    return suite.run(
        out, hooks,
        fmt::format("cws-fdtd: fdtd-2d, 3 fields of {} x {} doubles ({:.0f} MiB each), blocks of {} rows ({} blocks), "
                    "{} time steps per run (2 phases each), {} runs (+{} warm-up)",
                    nx, ny, field_bytes / (1 << 20), block, blocks, opt.common.iters, opt.common.plan.runs,
                    opt.common.plan.warmup),
        cws_apps::standard_columns({.per = "ph",
                                    .split = {{"e ms", "e_median_s", 1e3, 3}, {"h ms", "h_median_s", 1e3, 3}},
                                    .taken_back = false}),
        {"ms/step: median over runs of the mean time of one time step, the wall clock around the calls of its two "
         "phases (rt.run, tbb::parallel_for, the OpenMP region); e ms / h ms: each phase alone; GB/s: 9 field "
         "transfers per step (e: ey, ex, hz read, ey, ex written; h: ex, ey, hz read, hz written);",
         "desig/ph .. div: means over the measured e and h phases: steals designated, extra, schedule distance to "
         "the phase's previous run, share replayed, diverged; 'vs' columns are time ratios (lower is better);",
         cws_apps::locality_note(homes, "h phase", "ms/step")});
  });
}
