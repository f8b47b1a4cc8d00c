#include "pcg/mpi_options.hpp"

namespace pcg {

void add_mpi_options(CLI::App& app, mpi_options& o) {
  problem_flags& f = o.problem;
  o.common.policy = "evolve";
  o.common.plan.runs = default_runs;
  app.add_option("--size", f.prob.n, "Grid side n")->check(CLI::Range(std::size_t{2}, std::size_t{1024}));
  app.add_option("--stencil", f.stencil, "7 or 27 points")->check(CLI::IsMember({7, 27}));
  app.add_option("--coef", f.coef, "constant, aniso, variable")
      ->check(CLI::IsMember({"constant", "aniso", "variable"}));
  app.add_option("--anisotropy", f.prob.anisotropy, "z coupling of --coef aniso")->check(CLI::Range(1e-6, 1e6));
  app.add_option("--precond", f.precond, "none, jacobi, sgs")->check(CLI::IsMember({"none", "jacobi", "sgs"}));
  app.add_option("--tol", f.so.tol, "Stop at |r| / |b| <= tol")->check(CLI::Range(1e-15, 0.5));
  app.add_option("--max-iters", f.so.max_iters, "Give up after this many iterations")->check(CLI::Range(1u, 1000000u));
  app.add_option("--block-rows", f.block_rows,
                 "Rows per block (0: about 16 blocks per worker over all ranks; give the same value to compare rank "
                 "counts with different worker totals)");
  app.add_option("--loop", o.loop, "Loops of each rank: cws (the --policy), omp-static, tbb-affinity, serial")
      ->check(CLI::IsMember({"cws", "omp-static", "tbb-affinity", "serial"}))
      ->capture_default_str();
  app.add_option("--schedules", f.schedules_path, "Per-rank schedule files FILE.rank<N>: loaded if they match, saved");
  cws_apps::add_common_options(app, o.common);
  app.remove_option(app.get_option("--iters"));
}

}  // namespace pcg
