#pragma once
// The figures of a cws variant of PufferFish's row benchmarks (cws-sor,
// cws-srad), summed over its measured phases (warm-up left out):
//   * what the hinted policies count per worker (worker_stats): where
//     find_place sent the hinted spawns (hinted_leaf, hinted_node,
//     hinted_root), how many HET ran inline (het_inlined; het_share =
//     het_inlined / all hinted spawns, the share of pushes HET removed, the
//     paper's Fig. 13), steals from node and root places, tasks reclaimed;
//   * the locality columns (local share of the declared touches, from
//     common/locality_tally.hpp) of the kernel phases and of the init phase;
//   * the phases' own wall time vs the rest of rt.run, and what the last
//     phase ran as (evolve: whether it converged).

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <cws/cws.hpp>

#include "common/hinted_counts.hpp"
#include "common/locality_tally.hpp"
#include "common/per_schedule.hpp"
#include "common/report.hpp"
#include "common/variant_runner.hpp"
#include "common/timing.hpp"

namespace pufferfish {

// Per-worker counters summed over workers and phases (common/hinted_counts.hpp).
struct phase_counts {
  std::uint64_t phases = 0;
  cws::worker_stats work{};

  phase_counts& operator+=(const phase_counts& o) noexcept;
};

// An observer keeping, per schedule name, the counters of every phase run
// (called between phases on the runtime's calling thread, like every
// observer; destroy it between phases).
class counter_tally final : public cws::observer {
 public:
  explicit counter_tally(cws::runtime& rt) : rt_(rt) { rt_.add_observer(*this); }
  ~counter_tally() override;
  counter_tally(const counter_tally&) = delete;
  counter_tally& operator=(const counter_tally&) = delete;

  void on_phase_end(const cws::phase_stats& stats) override;
  // Runs [first, end) of `schedule`, summed.
  phase_counts summarize(std::string_view schedule, std::uint64_t first, std::uint64_t end) const;

 private:
  struct run {
    std::uint64_t iteration;
    phase_counts counts;
  };
  cws::runtime& rt_;
  // A deque per schedule, as locality_tally's: appending never copies the
  // runs before (observers run inside rt.run, between two phases).
  cws_apps::per_schedule<std::deque<run>> log_;
};

// The measured runs of one schedule: iterations [first, end).
struct measured_runs {
  const cws::schedule* schedule = nullptr;
  std::uint64_t first = 0, end = 0;
};

// The measured runs of `s` whose first run (warm-up included) is iteration
// `start`, with `per_run` phases of `s` per run.
measured_runs measured(const cws::schedule& s, std::uint64_t start, unsigned per_run, const cws_apps::run_plan& plan);

// Sets on `entry`: init_policy, schedules (init first), follows (per kernel
// schedule, the schedule whose template it replays, or ""), phases, tasks_per_phase,
// steals_per_phase, hinted_leaf, hinted_node, hinted_root, het_inlined,
// place_steals, reclaimed (sums over the measured kernel phases), het_share
// (null without hinted spawns), the locality columns of the kernel phases
// (cws_apps::put_locality: local_share, _min, _last, ...), init_local_share,
// ran_as_last (the last kernel phase's cws::ran_as token) and, for an evolve
// policy, converged (every kernel schedule's last run).
void put_cws_figures(cws_apps::json& entry, const cws_apps::locality_tally& locality, const counter_tally& counters,
                     const std::vector<measured_runs>& kernel, const measured_runs& init);

// The results table of a row benchmark: `time_title` (the headline median,
// e.g. "ms/sweep"), min, init, the time ratios (ratios()), tasks per
// phase, where the hinted spawns went and HET's share, locality, pages
// moved, ok.
std::vector<cws_apps::column> table_columns(const std::string& time_title);
// The ratios of that table: median_s vs serial, cws-random-ft, cws-hinted and omp-static.
const std::vector<cws_apps::ratio_spec>& ratios();

}  // namespace pufferfish
