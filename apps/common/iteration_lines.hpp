#pragma once
// The per-iteration view of a cws variant of an app: the iteration reports
// the schedule store kept for its schedules (cws::schedulers::iteration_report),
// mapped to the runs of the timing loop, as JSON, as text lines, and summed up
// over the measured runs.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/locality_tally.hpp"
#include "common/report.hpp"

namespace cws_apps {

// The phases of one schedule that belong to the timed runs of one variant:
// schedule iterations [first, first + runs_total * per_run), `per_run` per run,
// the first `warmup` runs unmeasured.
struct run_map {
  std::uint64_t first = 0;
  unsigned per_run = 1;
  unsigned warmup = 0;
  unsigned runs_total = 0;  // warm-up + measured
};

struct iteration_line {
  unsigned run = 0;  // 0-based, warm-up runs first
  bool warmup = false;
  unsigned index = 0;  // iteration within the run
  cws::schedulers::iteration_report report;
  // Locality (add_locality): the run's local share when its tasks declared
  // touches, and the pages moved by the relocalization(s) made from its
  // touches right after it (evolve), when there was one.
  std::optional<double> local_share;
  std::optional<std::uint64_t> pages_moved;
};

// The reports of schedule `name` that `map` covers, in order: the schedule
// store's history for the replaying policies. A schedule the store keeps no
// history for (the core's `random` policy reports nothing to it) gets reports
// built from the steal-tree recorder's phase records instead: the same
// statistics, ran_as = random (the policy), and the schedule distance to the previous
// recorded run computed as the store does (steal_tree::schedule_distance,
// share of work that moved worker). Empty when neither knows the schedule.
std::vector<iteration_line> lines_of(const cws::runtime& rt, const std::string& name, const run_map& map);

// Fills local_share and pages_moved of `lines` (runs of schedule `name`)
// from what `tally` saw.
void add_locality(std::vector<iteration_line>& lines, const locality_tally& tally, const std::string& name);

// One JSON object per line: run, warmup, iteration, schedule_iteration,
// ran_as (the label, e.g. "random (no template yet)"), ran_as_kind (the
// cws::ran_as token, e.g. "random_no_template"), ran_as_reason, template_from, wall_s, tasks, segments, designated,
// extra_steals, taken_back, waiting_s, elided, max_share_ratio, idle_workers (balance), distance_to_previous (null
// for a schedule's first run), diverged, divergence,
// converged, note, local_share (null: no touches declared), pages_moved (null: no relocalization after this run).
json lines_json(const std::vector<iteration_line>& lines);

// Means over the measured runs' lines, set on `entry`: designated_per_iter,
// extra_steals_per_iter, taken_back_per_iter, waiting_s_per_iter,
// mean_distance, replayed_share (share of iterations that replayed a template
// rather than running as random; null for the random policy) and
// diverged_iterations.
void put_summary(json& entry, const std::vector<iteration_line>& lines, const std::string& policy);

// The text block of one run: a title line, then one line per iteration.
void print_run(const std::string& title, const std::vector<iteration_line>& lines, unsigned run);

}  // namespace cws_apps
