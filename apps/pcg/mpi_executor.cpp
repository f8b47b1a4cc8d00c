#include "pcg/mpi_executor.hpp"

#include <mpi.h>

#include <algorithm>

namespace pcg {

void mpi_executor::exchange(double* held) {
  if (ranks_ == 1) return;
  const int count = static_cast<int>(reach_);
  const std::size_t off = s_.offset(), owned = s_.owned();
  const int down = rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL, up = rank_ + 1 < ranks_ ? rank_ + 1 : MPI_PROC_NULL;
  // My first rows to the rank below, its first rows into my upper halo; then the other way.
  MPI_Sendrecv(held + off, down == MPI_PROC_NULL ? 0 : count, MPI_DOUBLE, down, 1, held + off + owned,
               up == MPI_PROC_NULL ? 0 : count, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(held + off + owned - (up == MPI_PROC_NULL ? 0 : reach_), up == MPI_PROC_NULL ? 0 : count, MPI_DOUBLE, up,
               2, held, down == MPI_PROC_NULL ? 0 : count, MPI_DOUBLE, down, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

double mpi_executor::sum(const std::vector<double>& local_partials) {
  std::fill(global_.begin(), global_.end(), 0.0);
  std::copy(local_partials.begin(), local_partials.end(), global_.begin() + static_cast<long>(s_.first_block));
  MPI_Allreduce(MPI_IN_PLACE, global_.data(), static_cast<int>(global_.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double total = 0;
  for (double v : global_) total += v;
  return total;
}

double max_over_ranks(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return v;
}

double sum_over_ranks(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return v;
}

int ranks_on_node(int rank) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_ranks = 1;
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_free(&node);
  return node_ranks;
}

}  // namespace pcg
