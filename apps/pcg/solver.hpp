#pragma once
// Preconditioned conjugate gradient over a system (problem.hpp), each step a
// parallel phase run by an executor: the same driver runs serially, under
// cws (every kernel its own named schedule), TBB, OpenMP, and over MPI ranks
// (the executor adds the halo exchanges and the global sums).
//
// Phases of one iteration (x0 = 0; stop when |r| / |b| <= tol, r updated
// recursively):
//   spmv       q = A p, and p . q                     -> alpha
//   update     x += alpha p, r -= alpha q, and r . r  -> stop test
//   precond    z = M^-1 r and r . z (jacobi: 1 phase; sgs: 2C - 1 colour phases,
//              the last one computes r . z; none: z is r)
//   direction  p = z + beta p
// so 4 (jacobi), 6 (sgs, 7 points), 18 (sgs, 27 points) or 3 (none) phases,
// and 3 global sums. A solve starts with `start` (x = 0, r = b, b . b), the
// preconditioner and `direction` (p = z).
//
// Every partial sum is one block's, and the executor adds them in global
// block order, so the result does not depend on who ran which block: every
// variant, every policy and every rank count gives bitwise the same residual
// history and iteration count.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "pcg/kernels.hpp"
#include "pcg/problem.hpp"

namespace pcg {

enum class preconditioner { none, jacobi, sgs };
const char* to_string(preconditioner p) noexcept;
preconditioner parse_preconditioner(const std::string& s);  // throws std::invalid_argument

// What the driver needs from a way of running phases.
class executor {
 public:
  using block_body = std::function<void(std::size_t, std::size_t)>;
  virtual ~executor() = default;
  // Runs phase `kernel` (an index into kernel_names()) once: body(lo, hi)
  // over consecutive ranges of local blocks covering [0, blocks).
  virtual void run(std::size_t kernel, const block_body& body) = 0;
  // Whether the leaves should declare what they touch (cws phases).
  virtual bool declares_touches() const noexcept { return false; }
  // Brings the halo rows of a held-rows vector up to date (MPI).
  virtual void exchange(double* /*held*/) {}
  // The sum of every process's per-block partials in global block order.
  virtual double sum(const std::vector<double>& local_partials);
};

// The phases a solver with this preconditioner runs, in the order of their
// kernel index: init (matrix fill, first touch), start, spmv, update, the
// preconditioner's (jacobi | fwd0 .. fwd{C-1}, bwd{C-2} .. bwd0), direction.
std::vector<std::string> kernel_names(preconditioner pc, unsigned colours);
// The kernel index of spmv, the phase that starts a CG iteration.
inline constexpr std::size_t spmv_kernel = 2;

// Measured solves per variant of cws-pcg and cws-pcg-mpi (--runs): fewer than
// the other apps' default, a solve is many phases.
inline constexpr unsigned default_runs = 3;

struct solve_options {
  preconditioner pc = preconditioner::sgs;
  double tol = 1e-8;
  unsigned max_iters = 10000;
};

struct solve_result {
  unsigned iterations = 0;
  bool converged = false;
  double relres = 0;            // recursive |r| / |b| at the end
  std::vector<double> history;  // relres after every iteration
};

class solver {
 public:
  solver(system& a, vectors& v, executor& exec, solve_options o);
  // The init phase: every array's rows filled block by block (first touch).
  void init();
  solve_result solve();
  // |b - A x| / |b| of the current x (two untimed phases: start's b . b is
  // recomputed from b, the residual from x after a halo exchange).
  double true_relres();
  // max |x - u*| / max |u*| and |x - u*|_2 / |u*|_2 over the owned rows,
  // this process only.
  struct errors {
    double max_abs = 0, max_exact = 0, sq_diff = 0, sq_exact = 0;
  };
  errors error_parts() const;

 private:
  double run_sum(std::size_t kernel, const std::function<void(std::size_t, std::size_t, double*)>& body);
  void run_plain(std::size_t kernel, const std::function<void(std::size_t, std::size_t)>& body);
  double precondition(double rr);  // z = M^-1 r; returns r . z
  void touch(std::size_t kernel, std::size_t lo, std::size_t hi) const;

  system& a_;
  vectors& v_;
  executor& exec_;
  solve_options opt_;
  unsigned colours_;
  std::size_t k_spmv_, k_update_, k_precond_, k_direction_;
  std::vector<double> partial_;
};

}  // namespace pcg
