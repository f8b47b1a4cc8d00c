#pragma once
// The command line of cws-pcg-mpi: the problem flags (flags.hpp, with the
// shorter help of this program), --loop, the per-rank --schedules, and the
// common flags without --iters (a run is one solve); --policy defaults to
// evolve.

#include <CLI/CLI.hpp>
#include <string>

#include "common/bench_env.hpp"
#include "pcg/flags.hpp"

namespace pcg {

struct mpi_options {
  cws_apps::common_options common;
  problem_flags problem;
  std::string loop = "cws";  // cws (under --policy), omp-static, tbb-affinity, serial
};

void add_mpi_options(CLI::App& app, mpi_options& o);

}  // namespace pcg
