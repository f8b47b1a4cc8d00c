#include "pcg/options.hpp"

#include <cmath>
#include <cstdlib>

#include "common/bounded_option.hpp"

namespace pcg {

void add_options(CLI::App& app, options& o) {
  problem_flags& p = o.problem;
  p.prob.n = 64;
  cws_apps::add_bounded_option(app, "--size", p.prob.n, "Grid side n (n^3 unknowns)", std::size_t{2},
                               std::size_t{1024});
  cws_apps::add_checked_option(app, "--stencil", p.stencil, "7 or 27 points", CLI::IsMember({7, 27}));
  cws_apps::add_checked_option(app, "--coef", p.coef,
                               "Coefficients: constant (Poisson), aniso (weak z coupling), variable (3 decades)",
                               CLI::IsMember({"constant", "aniso", "variable"}));
  // CLI::Range lets NaN through (every comparison with it is false): refused first.
  const CLI::Validator not_nan(
      [](std::string& v) { return std::isnan(std::strtod(v.c_str(), nullptr)) ? "not a number: " + v : std::string(); },
      "");
  cws_apps::add_checked_option(app, "--anisotropy", p.prob.anisotropy, "z coupling of --coef aniso", not_nan)
      ->check(CLI::Range(1e-6, 1e6));
  cws_apps::add_checked_option(app, "--precond", p.precond,
                               "Preconditioner: none, jacobi, sgs (multicolour symmetric Gauss-Seidel)",
                               CLI::IsMember({"none", "jacobi", "sgs"}));
  cws_apps::add_checked_option(app, "--tol", p.so.tol, "Stop at |r| / |b| <= tol", not_nan)
      ->check(CLI::Range(1e-15, 0.5));
  cws_apps::add_bounded_option(app, "--max-iters", p.so.max_iters, "Give up (exit 1) after this many iterations", 1u,
                               1000000u);
  app.add_option("--block-rows", p.block_rows,
                 "Rows per block, the leaf of every loop and unit of the reductions (0: about 16 blocks per worker, "
                 "whole pages)")
      ->capture_default_str();
  app.add_option("--schedules", p.schedules_path,
                 "Schedule file: loaded at the start if it exists and matches (problem, blocks, worker count; else "
                 "one line and ignored), saved at the end");
  app.add_flag("--schedules-strict", o.strict, "An existing schedule file that does not match is an error (exit 2)");
  app.add_option("--write-matrix", o.matrix_path, "Write the matrix in Matrix Market format (symmetric, lower)");
  app.add_flag("-q,--quiet", o.quiet, "No per-solve lines, only the table");
  o.common.plan.runs = default_runs;  // before the option is made: --help shows this default
  cws_apps::add_variant_options(app, o.common, o.policies,
                                "Comma-separated cws policies, one cws variant each (with evolve also "
                                "cws-evolve-follow: every kernel follows spmv's template)",
                                "interleaved: one matrix and 5 vectors per variant; sequential: two sets");
  app.remove_option(app.get_option("--iters"));
}

}  // namespace pcg
