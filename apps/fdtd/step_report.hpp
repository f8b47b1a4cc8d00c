#pragma once
// The schedule figures of a cws variant of cws-fdtd: its three schedules
// (init, and the two phases of a time step, e and h) mapped to the timed
// runs, their iteration lines (the per-iteration view of
// common/iteration_lines.hpp), the locality of the step phases, evolve's
// convergence, as JSON and as text blocks.

#include <cstddef>
#include <string>
#include <vector>

#include <cws/cws.hpp>

#include "common/block_loops.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "common/iteration_lines.hpp"

namespace fdtd {

// The loops of a variant, in this order (block_loops phase index).
enum phase_id : std::size_t { init_phase = 0, e_phase = 1, h_phase = 2, phase_count = 3 };

// Per schedule, its iterations that belong to the timed runs (warm-up included).
struct run_maps {
  cws_apps::run_map of[phase_count];
};

// The maps as they stand before the first timed run: init once per run, e
// and h `steps` times per run.
run_maps run_maps_from(cws::schedule* const (&schedules)[phase_count], unsigned steps, const cws_apps::run_plan& plan);

// The iteration lines of one schedule of one variant, for the text output.
struct iteration_block {
  std::string title;
  std::vector<cws_apps::iteration_line> lines;
  unsigned runs = 0;  // warm-up + measured
  unsigned warmup = 0;
};

// Sets on `entry` the figures only cws variants have: init_policy,
// schedules {init, e, h}, e_follows / h_follows, the locality of the
// measured e and h phases (local_share, _min, _last from both; e_local_share,
// h_local_share, init_local_share), pages moved and relocalization time
// (step_ and init_ and their sum), phase_wall_s / outside_wall_s of each step
// phase (e_, h_ prefixes), the means of the iteration reports over the
// measured e and h phases (cws_apps::put_summary), evolve's converged /
// converged_at, and e_iterations, h_iterations, init_iterations. Appends the
// e and h iteration blocks to `blocks`.
void report_schedules(const cws::runtime& rt, const cws_apps::locality_tally& tally,
                      cws::schedule* const (&schedules)[phase_count], const run_maps& maps,
                      const cws_apps::block_loops& loops, cws_apps::json& entry, const std::string& variant,
                      std::vector<iteration_block>& blocks);

// Each block's first run (every run with `all_runs`), followed by an empty line.
void print_iteration_blocks(const std::vector<iteration_block>& blocks, bool all_runs);

}  // namespace fdtd
