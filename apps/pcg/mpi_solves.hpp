#pragma once
// The solves of one rank of cws-pcg-mpi and what rank 0 makes of them: each
// solve timed between barriers, its time the slowest rank's; the last
// solution checked over all ranks against the manufactured solution; the
// result printed by rank 0 as one JSON document (--json) or a few lines.

#include <string>

#include "common/bench_env.hpp"
#include "common/report.hpp"
#include "pcg/flags.hpp"
#include "pcg/loops_executor.hpp"

namespace pcg {

// Where this rank stands and what the ranks solve together.
struct mpi_run {
  int rank = 0, ranks = 1;
  int node_ranks = 1;  // ranks on this rank's node
  unsigned total_workers = 0;
  std::string loop, policy;  // --loop, --policy
  const problem_flags& flags;
  const slab& part;
  cws_apps::run_plan plan;
};

struct mpi_solves {
  cws_apps::json solves = cws_apps::json::array();  // one object per solve, warm-ups first
  cws_apps::samples measured;                       // the slowest rank's seconds of every measured solve
  solve_result last;
};
// plan.warmup + plan.runs solves from x = 0; call on every rank.
mpi_solves run_solves(solver& s, loops_executor& local, const cws_apps::run_plan& plan);

// The last solution's verification, over all ranks: converged, and its
// error against the manufactured solution within cond(A) x (true residual + 64 eps).
struct mpi_check {
  double true_relres = 0, rel_err = 0, bound = 0;
  bool ok = false;
};
mpi_check check_solution(solver& s, const problem& prob, const solve_result& last);

// Rank 0's output on stdout, and on stderr one error line unless c.ok.
void print_result(const mpi_run& run, const cws_apps::bench_env& env, const mpi_solves& r, const mpi_check& c,
                  bool as_json);

}  // namespace pcg
