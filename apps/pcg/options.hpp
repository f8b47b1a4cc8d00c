#pragma once
// The command line of cws-pcg: the problem and solver flags (flags.hpp),
// the schedule file's, --write-matrix, -q, the common flags without --iters
// (a run is one solve), --policies and --order.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "common/bench_env.hpp"
#include "pcg/flags.hpp"

namespace pcg {

struct options {
  cws_apps::common_options common;
  problem_flags problem;
  bool strict = false;      // --schedules-strict
  std::string matrix_path;  // --write-matrix
  bool quiet = false;
  std::optional<cws_apps::policies_option> policies;  // set by add_options
};

void add_options(CLI::App& app, options& o);

}  // namespace pcg
