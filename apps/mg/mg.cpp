// cws-mg: NAS MG (NPB 3.3), the SC14 benchmark whose iterations hold several
// phase structures. A V-cycle calls five kernels (resid, psinv, rprj3,
// interp, and the final norm) on every level of a grid hierarchy; each call
// on a level at or above the parallel cut-off is one fork/join phase over the
// interior i3 planes of the level it writes, so the task count halves from
// one level to the next. The coarser levels run on the caller in every
// variant. The timed region is NPB's: the initial residual, nit x (V-cycle,
// residual), the norm; the result, rnm2, is checked against the official
// value of the class (relative error <= 1e-8) and must be the same bits in
// every variant.
//
// Variants (mg/bench.hpp): cws under each policy and schedule strategy,
// cws-stows-follow-init, tbb-auto, tbb-affinity, tbb-static, omp-static,
// serial. Every variant first touches its own grids with its own loops
// (untimed), so the pages sit where its kernels run them; the cws leaves
// declare their touches, so on a synthetic topology the table shows the
// local share of the kernel phases.

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "common/bounded_option.hpp"
#include "mg/bench.hpp"

int main(int argc, char** argv) {
  CLI::App app{"NAS MG (NPB 3.3) V-cycles: cws under each policy and schedule strategy vs TBB vs OpenMP static",
               "cws-mg"};
  cws_apps::common_options opt;
  std::string class_name = "W";
  mg_app::settings s;
  const std::size_t most_planes = std::size_t{1} << 12;  // a bound on plane counts (class D: 1024 + 2)
  cws_apps::add_checked_option(
      app, "--class", class_name,
      "NPB class: S (32^3), W (128^3), A (256^3), B (256^3, 20 V-cycles), C (512^3, 20), D (1024^3, 50)",
      CLI::IsMember({"S", "W", "A", "B", "C", "D"}, CLI::ignore_case));
  cws_apps::add_block_rows_option(app, "--block", s.block, "i3 planes per leaf of every parallel loop, on every level",
                                  "finest level's planes", most_planes, "; a level of p planes has p / block leaves");
  cws_apps::add_bounded_option(app, "--serial-below", s.serial_below,
                               "Levels with fewer interior planes than this run on the calling thread in every variant "
                               "(their phases would cost more than their work)",
                               std::size_t{2}, most_planes);
  cws_apps::add_checked_option(app, "--schedules", s.strategy_names,
                               fmt::format("Schedule strategies of the replaying policies (stows, stuws, relws, "
                                           "evolve), one variant each: {}",
                                           mg_app::strategy_descriptions()),
                               CLI::IsMember(mg_app::strategy_names()))
      ->delimiter(',');
  cws_apps::add_evolve_init_option(
      app, s.evolve_init, "Policy of the first-touch schedules of the evolve variants (random: they move no page)");
  std::optional<cws_apps::policies_option> policies;
  cws_apps::add_variant_options(app, opt, policies,
                                "Comma-separated cws policies, one cws variant each (and per schedule strategy for "
                                "the replaying ones)",
                                "interleaved: the grids of every variant at once (class W: 58 MB per variant, about 1 "
                                "GB with the defaults; class A: 453 MB per variant, use sequential); sequential: one "
                                "variant's grids at a time");
  app.get_option("--iters")->description("Benchmarks (NPB's timed region) per measured run; a sample is their mean");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const mg::class_params& cls = mg::class_named(static_cast<char>(std::toupper(class_name[0])));
    cws_apps::bench_env env(opt);
    mg_app::bench bench(env, opt, policies->chosen(), cls, s);
    double reference = 0;  // the serial variant's rnm2 (the first variant: its finish comes first)
    const auto verify = [&](const mg_app::variant& v, cws_apps::json& e, std::vector<std::string>& wrong) {
      const double rnm2 = v.rnm2.back();
      if (v.loop == cws_apps::loop_flavour::serial) reference = rnm2;
      const bool official = mg::verified(rnm2, cls);
      const bool same_bits = std::all_of(v.rnm2.begin(), v.rnm2.end(), [&](double x) { return x == reference; });
      e["rnm2"] = rnm2;
      e["rel_err"] = mg::relative_error(rnm2, cls);
      e["equals_serial"] = same_bits;
      e["verified"] = official && same_bits;
      if (!official)
        wrong.push_back(fmt::format("{}: rnm2 = {:.13e}, official {:.13e}, relative error {:.2e} > {:.0e}", v.name,
                                    rnm2, cls.verify_value, mg::relative_error(rnm2, cls), mg::verify_epsilon));
      else if (!same_bits)
        wrong.push_back(fmt::format("{}: rnm2 differs from the serial variant's in some run ({:.17e} vs {:.17e})",
                                    v.name, rnm2, reference));
    };
    return bench.run(app.get_name(), verify, [&] {
      return fmt::format(
          "ok: the final residual norm rnm2 is within {:.0e} of the official {:.13e} (serial: {:.13e}, "
          "relative error {:.1e}) and has the same bits as serial's in every run",
          mg::verify_epsilon, cls.verify_value, reference, mg::relative_error(reference, cls));
    });
  });
}
