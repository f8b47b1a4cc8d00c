#pragma once
// The solver of one rank of cws-pcg-mpi: its slab of the matrix and the
// vectors, the loops of --loop (cws: one schedule per kernel under
// --policy, kernel_schedules.hpp, named with the problem and the rank, and
// the rank's schedule file loaded first), the executor with the halo
// exchanges and global sums (mpi_executor.hpp), and the init phase run.

#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/block_loops.hpp"
#include "pcg/flags.hpp"
#include "pcg/loops_executor.hpp"
#include "pcg/mpi_executor.hpp"

namespace pcg {

class mpi_rank {
 public:
  // `schedule_file`: this rank's (FILE.rank<N>), empty: none.
  mpi_rank(cws_apps::bench_env& env, const problem_flags& f, const slab& part, const std::string& loop,
           const std::string& policy, int rank, int ranks, const std::string& schedule_file);
  mpi_rank(const mpi_rank&) = delete;
  mpi_rank& operator=(const mpi_rank&) = delete;

  pcg::solver& solver() noexcept { return solver_; }
  loops_executor& local() noexcept { return local_; }  // what this rank's phases ran as

 private:
  // Fills the matrix serially (the schedule names carry its pattern hash),
  // loads the schedule file and makes the schedules of a cws flavour.
  std::vector<cws::schedule*> schedules_for(cws::runtime& rt, const problem_flags& f, const std::string& policy,
                                            int rank, int ranks, const std::string& schedule_file);

  cws_apps::loop_flavour flavour_;
  const slab& part_;
  system sys_;
  vectors vec_;
  std::vector<cws::schedule*> schedules_;
  cws_apps::block_loops loops_;
  loops_executor local_;
  mpi_executor exec_;
  pcg::solver solver_;
};

}  // namespace pcg
