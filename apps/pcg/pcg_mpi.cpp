// cws-pcg-mpi: the solver of cws-pcg over MPI ranks, one cws runtime per rank
// (mpi_rank.hpp), each with a contiguous run of the grid's row blocks; the
// halo exchanges and global sums in block order (mpi_executor.hpp) make any
// rank count give bitwise the iterations and residuals of one rank.
//
//   mpirun -np 2 cws-pcg-mpi --size 64 --workers 1 --json
//
// Per rank: its own trace (--trace-out FILE writes FILE.rank<N>) and schedule
// file (--schedules FILE: FILE.rank<N>). Rank 0 prints the result, the
// slowest rank's time per solve (mpi_solves.hpp).

#include <fmt/format.h>
#include <mpi.h>

#include <cstdio>
#include <string>

#include "common/bench_env.hpp"
#include "pcg/mpi_executor.hpp"
#include "pcg/mpi_options.hpp"
#include "pcg/mpi_rank.hpp"
#include "pcg/mpi_solves.hpp"
#include "pcg/schedule_file.hpp"

namespace {

int run(int argc, char** argv, int rank, int ranks) {
  CLI::App app{"Preconditioned CG over MPI ranks, one cws runtime per rank", "cws-pcg-mpi"};
  pcg::mpi_options o;
  pcg::add_mpi_options(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
  }
  cws_apps::common_options& opt = o.common;
  pcg::problem_flags& f = o.problem;
  f.resolve();
  const std::string suffix = fmt::format(".rank{}", rank);
  if (!opt.trace_out.empty()) opt.trace_out += suffix;
  if (!opt.trace_in.empty()) opt.trace_in += suffix;
  // Each rank's workers stay on its own CPUs: cws places them on the CPU set
  // mpirun bound the rank to, or, with --bind-to none, on the rank's share of
  // the node's cores (its local rank from the launcher); cpu_rule() says which.
  const int node_ranks = pcg::ranks_on_node(rank);
  cws_apps::bench_env env(opt);
  const auto total_workers = static_cast<unsigned>(pcg::sum_over_ranks(env.workers()));
  if (f.block_rows == 0) f.block_rows = pcg::default_block_rows(f.prob, total_workers);
  const pcg::slab part =
      pcg::make_slab(f.prob, f.block_rows, static_cast<unsigned>(rank), static_cast<unsigned>(ranks));
  pcg::mpi_rank me(env, f, part, o.loop, opt.policy, rank, ranks,
                   f.schedules_path.empty() ? std::string() : f.schedules_path + suffix);
  const pcg::mpi_solves solves = pcg::run_solves(me.solver(), me.local(), opt.plan);
  const pcg::mpi_check check = pcg::check_solution(me.solver(), f.prob, solves.last);
  env.save_trace();
  if (!f.schedules_path.empty()) pcg::save_schedule_file(env.rt(), f.schedules_path + suffix);
  if (rank == 0)
    pcg::print_result({rank, ranks, node_ranks, total_workers, o.loop, opt.policy, f, part, opt.plan}, env, solves,
                      check, opt.json);
  return check.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int code = 0;
  try {
    code = run(argc, argv, rank, ranks);
  } catch (const std::exception& e) {
    // One rank failing leaves the others in a collective: abort them all.
    const bool usage = dynamic_cast<const cws::error*>(&e) != nullptr || dynamic_cast<const std::invalid_argument*>(&e);
    std::fprintf(stderr, "cws-pcg-mpi: rank %d: error: %s\n", rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, usage ? 2 : 1);
  }
  MPI_Finalize();
  return code;
}
