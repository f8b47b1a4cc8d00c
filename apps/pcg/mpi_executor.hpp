#pragma once
// The executor of one MPI rank of cws-pcg-mpi (solver.hpp): the block loops
// of its slab (loops_executor.hpp), plus the halo exchanges and the global
// sums, and the reductions over ranks the program's figures need.
//
// Before every phase that reads a vector at neighbouring rows the halo rows
// are exchanged with MPI_Sendrecv (a slab owns at least the stencil's reach
// of rows, so halos only come from the next ranks); each dot product is an
// MPI_Allreduce of the per-block partial sums (every block belongs to one
// rank, the others add zeros, which is exact), added up in global block
// order on every rank. So any rank count gives bitwise the iteration count
// and residual history of one rank with the same blocks.

#include <cstddef>
#include <vector>

#include "pcg/loops_executor.hpp"
#include "pcg/solver.hpp"

namespace pcg {

class mpi_executor final : public executor {
 public:
  mpi_executor(loops_executor& local, const slab& s, std::size_t reach, int rank, int ranks)
      : local_(local), s_(s), reach_(reach), rank_(rank), ranks_(ranks), global_(s.global_blocks, 0.0) {}

  void run(std::size_t kernel, const block_body& body) override { local_.run(kernel, body); }
  bool declares_touches() const noexcept override { return local_.declares_touches(); }
  void exchange(double* held) override;
  double sum(const std::vector<double>& local_partials) override;

 private:
  loops_executor& local_;
  const slab& s_;
  std::size_t reach_;
  int rank_, ranks_;
  std::vector<double> global_;
};

// v's maximum and sum over all ranks (MPI_Allreduce on MPI_COMM_WORLD).
double max_over_ranks(double v);
double sum_over_ranks(double v);

// The ranks on this rank's node (MPI_COMM_TYPE_SHARED), this one included.
int ranks_on_node(int rank);

}  // namespace pcg
