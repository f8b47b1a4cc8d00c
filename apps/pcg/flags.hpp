#pragma once
// The problem and solver settings cws-pcg and cws-pcg-mpi read from their
// command lines (each program declares the flags with its own help): the
// grid, stencil, coefficients, preconditioner, tolerance, block split and
// schedule file.

#include <cstddef>
#include <string>

#include "pcg/problem.hpp"
#include "pcg/solver.hpp"

namespace pcg {

struct problem_flags {
  problem prob;
  int stencil = 7;                // --stencil: 7 or 27 points
  std::string coef = "constant";  // --coef: coefficient_kind's name
  std::string precond = "sgs";    // --precond: preconditioner's name
  solve_options so;
  std::size_t block_rows = 0;  // 0: about 16 blocks per worker (default_block_rows)
  std::string schedules_path;  // --schedules, empty: none

  // After parsing: prob.stencil, prob.coef and so.pc from the flags' values
  // (throws std::invalid_argument for an unknown name).
  void resolve();
};

}  // namespace pcg
