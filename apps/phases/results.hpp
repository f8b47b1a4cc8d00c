#pragma once
// What cws-phases reports: its params, one JSON entry per variant (per size:
// times, ratio to omp-static, checksum, and for cws its breakdown and
// timeline; per gap length: the CPU of the runtime's threads), and the
// tables drawn from them, one row per variant and one column per size or gap.

#include <string>
#include <vector>

#include "common/report.hpp"
#include "phases/variants.hpp"

namespace phases {

// What the app saw of the machine and the runtimes' waiting before it ran.
struct run_conditions {
  double load_average = -1;                     // the 1-minute load average at start; -1 when unknown
  std::string omp_wait_policy, gomp_spincount;  // the environment variables, or "unset"
  unsigned cws_blocktime_us = 0;

  // The load average now: a machine shared with other work stretches phases
  // that wait for a preempted thread. Read before the runtimes start.
  static double current_load();
  static run_conditions at_start(double load, const cws::runtime& rt);
};

cws_apps::json run_params(const variant_set& set, const options& o, const cws_apps::common_options& common,
                          const std::vector<std::string>& policies, const run_conditions& c);

struct results {
  std::vector<cws_apps::table> tables;  // us per phase, ratios, the cws breakdown, the gaps (unless --no-gaps)
  bool all_verified = true;
};
// Adds the entry of every variant to `out`; `timers` in the order of the
// variants, omp-static the last.
results add_results(cws_apps::report& out, const variant_set& set, const std::vector<cws_apps::phase_timer>& timers);

// The footnotes of the tables.
std::vector<std::string> table_notes(const variant_set& set, const options& o, const cws_apps::run_plan& plan,
                                     const run_conditions& c);

}  // namespace phases
