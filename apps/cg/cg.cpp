// cws-cg: the NAS CG benchmark (NPB 3.x), SC14's iterative application with
// *differing* structure. NPB's matrix (makea, serial, from its random
// stream) is copied into every variant's own arrays by an untimed init
// phase; then a run is NPB's timed loop: from x = 1, `--iters` outer
// iterations (default: the class's niter), each one conj_grad of 25 CG
// steps plus zeta = shift + 1 / (x . z) and x = z / |z|. Every loop of it
// is one parallel phase over fixed row blocks (cg/solver.hpp: 104 phases
// per outer iteration), and the dot products are deterministic block
// reductions, so zeta is bitwise the same for every variant.
//
// Variants (cg/bench.hpp): cws under each policy of --policies, each kernel
// in its own schedule, with evolve also cws-evolve-follow; tbb-auto,
// tbb-affinity, tbb-static, omp-static and serial. Every variant's zeta
// must match NPB's official value within NPB's tolerance and equal the
// serial zeta exactly.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "cg/bench.hpp"
#include "common/bounded_option.hpp"

int main(int argc, char** argv) {
  CLI::App app{"NAS CG (NPB 3.x, SC14): cws under each policy vs TBB vs OpenMP static", "cws-cg"};
  cws_apps::common_options opt;
  opt.iters = 0;  // the class's niter
  std::string class_name = "W";
  cg_app::settings s;
  cws_apps::add_checked_option(app, "--class", class_name, "NPB problem class: S, W, A, B or C",
                               CLI::IsMember({"S", "W", "A", "B", "C"}));
  cws_apps::add_bounded_option(app, "--block", s.block,
                               "Rows per row block, the leaf of every loop (0: by class, S 32, W and A 128, B and C "
                               "1024; the same for every worker count, so that zeta is bitwise the same on any number "
                               "of workers)",
                               std::size_t{0}, std::size_t{1} << 24);
  cws_apps::add_checked_option(app, "--init", s.init,
                               "How the untimed init phase copies the matrix into a variant's arrays (their first "
                               "touch): serial (one task on worker 0, as NPB's serial makea: every page starts on one "
                               "node) or blocks (a loop over the row blocks under the variant's init policy)",
                               CLI::IsMember({"serial", "blocks"}));
  app.add_flag("--follow-spmv", s.follow_spmv,
               "Under replaying policies, every vector kernel replays the spmv schedule's template (schedule::follow) "
               "instead of its own; without it, evolve gets an extra variant cws-evolve-follow that does");
  cws_apps::add_evolve_init_option(app, s.evolve_init,
                                   "Policy of the init schedule of the evolve variants (random: it never moves pages; "
                                   "evolve: it relocalizes them to init's own tree)");
  app.add_option("--iteration-lines", s.lines,
                 "Print the first N spmv phases of the first run of each cws variant (what they ran as, steals, "
                 "locality, pages moved)")
      ->capture_default_str();
  std::optional<cws_apps::policies_option> policies;
  cws_apps::add_variant_options(app, opt, policies, "Comma-separated cws policies, one cws variant each",
                                "interleaved: the matrix and 5 vectors per variant (class W: 6 MiB, A: 23 MiB, B: "
                                "168 MiB); sequential: those of two variants (serial's is kept)");
  app.get_option("--iters")
      ->description(
          "Outer iterations per run (default: the class's niter, 15 for S, W, A, 75 for B, C); a sample is their "
          "mean; zeta is checked against NPB's official value at niter (and, for S and W, at 1, 2, 5 and 10)")
      ->default_str("niter");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const cg::problem_class cls = *cg::find_class(class_name);
    const int iters = opt.iters == 0 ? cls.niter : static_cast<int>(opt.iters);
    cws_apps::bench_env env(opt);
    cg_app::bench bench(env, opt, policies->chosen(), cls, iters, s);
    // NPB's check, and that zeta is bitwise the serial one (serial is the
    // first variant, so its zeta is known before any other's finish).
    const std::optional<double> zeta_ref = cg::reference_zeta(cls, iters);
    std::optional<double> serial_zeta;
    return bench.run(app.get_name(), [&](const cg_app::variant& v, cws_apps::json& e, std::vector<std::string>& wrong) {
      const double zeta = v.zetas.back();
      const bool same_every_run =
          std::all_of(v.zetas.begin(), v.zetas.end(), [&](double z) { return z == v.zetas.front(); });
      if (!serial_zeta) serial_zeta = zeta;
      const bool matches_ref = !zeta_ref || cg::zeta_matches(zeta, *zeta_ref);
      const bool equals_serial = zeta == *serial_zeta;
      const double rel_err = zeta_ref ? std::abs(zeta - *zeta_ref) / *zeta_ref : 0.0;
      e["zeta"] = zeta;
      e["zeta_rel_err"] = zeta_ref ? cws_apps::json(rel_err) : cws_apps::json(nullptr);
      e["zeta_equals_serial"] = equals_serial;
      e["zeta_same_every_run"] = same_every_run;
      e["rnorm"] = v.rnorm;
      e["verified"] = matches_ref && equals_serial && same_every_run;
      if (!matches_ref)
        wrong.push_back(fmt::format("{}: zeta {:.13f} differs from NPB's {:.13f} by {:.2e} (tolerance {:.0e})", v.name,
                                    zeta, *zeta_ref, rel_err, cg::zeta_tolerance));
      if (!equals_serial)
        wrong.push_back(fmt::format("{}: zeta {:.17g} is not bitwise the serial {:.17g}", v.name, zeta, *serial_zeta));
      if (!same_every_run) wrong.push_back(fmt::format("{}: zeta changed from one run to the next", v.name));
    });
  });
}
