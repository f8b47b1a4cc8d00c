#include "pcg/mpi_solves.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>

#include "pcg/mpi_executor.hpp"

namespace pcg {

namespace {

using cws_apps::json;

json params_json(const mpi_run& run, const cws_apps::bench_env& env) {
  const cws::runtime& rt = env.rt();
  const problem_flags& f = run.flags;
  return {{"ranks", run.ranks},
          {"ranks_per_node", run.node_ranks},
          {"pinned", rt.config().pin},
          {"cpus_rank0", rt.topology().cpu_rule()},
          {"workers_per_rank", env.workers()},
          {"total_workers", run.total_workers},
          {"size", f.prob.n},
          {"stencil", f.stencil},
          {"coef", f.coef},
          {"precond", f.precond},
          {"tol", f.so.tol},
          {"loop", run.loop},
          {"policy", run.policy},
          {"block_rows", run.part.block_rows},
          {"blocks", run.part.global_blocks},
          {"runs", run.plan.runs},
          {"warmup", run.plan.warmup}};
}

}  // namespace

mpi_solves run_solves(solver& s, loops_executor& local, const cws_apps::run_plan& plan) {
  mpi_solves r;
  for (unsigned i = 0; i < plan.warmup + plan.runs; ++i) {
    local.begin_solve();
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    r.last = s.solve();
    const double seconds = max_over_ranks(MPI_Wtime() - t0);
    const phase_tally& t = local.tally();
    const double relws_it = sum_over_ranks(t.relws_iterations), stows = sum_over_ranks(t.stows);
    if (i >= plan.warmup) r.measured.add(seconds);
    r.solves.push_back({{"solve", i},
                        {"warmup", i < plan.warmup},
                        {"seconds", seconds},
                        {"iterations", r.last.iterations},
                        {"relres_hex", fmt::format("{:a}", r.last.relres)},
                        {"relws_iterations_all_ranks", relws_it},
                        {"stows_phases_all_ranks", stows}});
  }
  return r;
}

mpi_check check_solution(solver& s, const problem& prob, const solve_result& last) {
  mpi_check c;
  c.true_relres = s.true_relres();
  const auto err = s.error_parts();
  c.rel_err = std::sqrt(sum_over_ranks(err.sq_diff) / sum_over_ranks(err.sq_exact));
  c.bound = prob.condition_bound() * (c.true_relres + 64 * 2.2e-16);
  c.ok = last.converged && c.rel_err <= c.bound;
  return c;
}

void print_result(const mpi_run& run, const cws_apps::bench_env& env, const mpi_solves& r, const mpi_check& c,
                  bool as_json) {
  const solve_result& res = r.last;
  const double median = r.measured.median();
  if (as_json) {
    const json doc{{"app", "pcg-mpi"},
                   {"params", params_json(run, env)},
                   {"topology", env.topology_json()},
                   {"results",
                    {{"iterations", res.iterations},
                     {"converged", res.converged},
                     {"relres", res.relres},
                     {"relres_hex", fmt::format("{:a}", res.relres)},
                     {"true_relres", c.true_relres},
                     {"error_2", c.rel_err},
                     {"error_bound", c.bound},
                     {"verified", c.ok},
                     {"median_s", median},
                     {"first_s", r.solves.front()["seconds"]},
                     {"solves", r.solves}}}};
    fmt::print("{}\n", doc.dump(2));
  } else {
    fmt::print("cws-pcg-mpi: {} ranks x {} workers, {} with {}, {} blocks of {} rows\n", run.ranks, env.workers(),
               run.flags.prob.describe(), run.flags.precond, run.part.global_blocks, run.part.block_rows);
    fmt::print("  {} iterations, |r|/|b| = {:.6e} ({:a}), true {:.3e}, error {:.3e} (bound {:.3e})\n", res.iterations,
               res.relres, res.relres, c.true_relres, c.rel_err, c.bound);
    for (const json& s : r.solves)
      fmt::print("  solve {}{}: {:.1f} ms, relws iterations (all ranks) {}\n", s["solve"].get<unsigned>() + 1,
                 s["warmup"].get<bool>() ? " (warm-up)" : "", s["seconds"].get<double>() * 1e3,
                 s["relws_iterations_all_ranks"].get<double>());
    fmt::print("  median time to solution {:.1f} ms\n", median * 1e3);
  }
  std::fflush(stdout);
  if (!c.ok)
    std::fprintf(stderr, "cws-pcg-mpi: error: %s\n",
                 res.converged ? "error against the manufactured solution over its bound" : "not converged");
}

}  // namespace pcg
