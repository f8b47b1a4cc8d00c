#pragma once
// The per-iteration view of a cws variant of an app: the run reports of its
// schedules, taken as the phases run (line_log) and mapped to the runs of the
// timing loop, as JSON, as text lines, and summed up over the measured runs.
// A schedule's own history (cws::schedule::history()) keeps only its last
// runtime_config::history runs (CWS_HISTORY), fewer than a benchmark makes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <cws/cws.hpp>

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
  // A copy of the run's report: its statistics, what it ran as and why,
  // locality (when its tasks declared touches) and the relocalization made
  // from its touches (evolve's, or the app's), the policy's note.
  cws::run_report report;
};

// The lines of one schedule taken as its phases run. Reading them from the
// schedule's history afterwards would need a history as long as the whole
// benchmark, which the runtime then keeps for every schedule, growing by a
// record each phase (cws-cg: 1 500 runs per schedule made the recorder's end
// of phase 17 us in a tenth of the phases, 16 % of an outer iteration). Call
// add() after each run of the schedule, outside the timed call
// (block_loops::keep_lines does).
class line_log {
 public:
  // Room for every line `map` covers, taken now: growing the vector while
  // the phases run would copy every line so far (each a run_report) at each
  // doubling, between two phases, long enough for the helpers to go to sleep.
  explicit line_log(run_map map) : map_(map) { lines_.reserve(std::size_t{map.per_run} * map.runs_total); }
  // The schedule's latest run, if `map` covers it. A policy that keeps no
  // trees leaves distance_to_previous empty; it is then computed from the
  // recorder's trees of this run and the previous one.
  void add(const cws::runtime& rt, const cws::schedule& s);
  const std::vector<iteration_line>& lines() const noexcept { return lines_; }

 private:
  run_map map_;
  std::vector<iteration_line> lines_;
  cws::steal_tree::tree previous_;  // the recorder's tree of the run before, if kept
  std::optional<std::uint64_t> previous_run_;
};

// One JSON object per line: run, warmup, iteration, schedule_iteration,
// ran_as (the label, e.g. "random (no template yet)"), ran_as_kind (the
// cws::ran_as token, e.g. "random_no_template"), ran_as_reason, template_from, wall_s, tasks, segments, designated,
// extra_steals, taken_back, waiting_s, elided, max_share_ratio, idle_workers (balance), distance_to_previous (null
// for a schedule's first run; for a policy that keeps no trees, random or hinted, computed from the recorder's
// trees of consecutive runs), diverged, divergence,
// converged (cws::run_report::converged: the schedule is converged after this run), note, local_share (null: no
// touches declared), pages_moved (null: no relocalization after this run).
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
