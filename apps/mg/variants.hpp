#pragma once
// How one variant of cws-mg runs the MG kernels: a plane_runner that sends
// each kernel call of a level at or above the parallel cut-off through the
// variant's loop flavour (cws under a policy, TBB, OpenMP static; the level's
// loops in common/block_loops.hpp), runs the coarser levels on the caller,
// and, for the cws flavours, sums up what each phase's run report says
// (what it ran as, locality, pages moved) over the measured runs.
//
// The schedules of the cws phases follow a strategy (SC14 compared the first
// two for MG):
//   one         one schedule for every kernel call of the benchmark: each phase
//               replays the tree of the phase before it, whatever its kernel or
//               level
//   per-kernel  one schedule per kernel and level: a phase replays the previous
//               call of the same loop
//   per-level   one schedule per level, shared by the kernels that write that
//               level (they split the same planes the same way)
// The first-touch loops always have their own schedule per level.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/bench_env.hpp"
#include "common/timeline_figures.hpp"
#include "common/block_loops.hpp"
#include "common/ran_as_counts.hpp"
#include "common/report.hpp"
#include "mg/solver.hpp"

namespace mg_app {

enum class strategy { one, per_kernel, per_level };
std::string_view to_string(strategy s) noexcept;
std::optional<strategy> strategy_named(std::string_view name) noexcept;
// Every strategy's name, in enum order (what --schedules accepts).
std::vector<std::string> strategy_names();
// "one (a single schedule for every kernel call), per-kernel (...), ...": --schedules' help.
std::string strategy_descriptions();

// The schedule of kernel `k` at `level` for the variant whose schedules end in
// "/<suffix>": "mg-init-L<level>/<suffix>" for first touch, and for the
// kernels "mg/<suffix>" (one), "mg-<kernel>-L<level>/<suffix>" (per-kernel) or
// "mg-L<level>/<suffix>" (per-level).
std::string schedule_name(strategy s, mg::kernel k, unsigned level, std::string_view suffix);

// What the cws phases of the measured runs did, summed up.
struct phase_tally {
  std::uint64_t phases = 0;
  std::set<std::string> schedules;              // the kernel schedules the phases ran in
  double run_call_s = 0;                        // summed wall clock around rt.run
  double phase_wall_s = 0;                      // summed phase wall_s (first task to last)
  cws_apps::timeline_figures timeline;          // their parts, when the runtime timed them (--phase-timeline)
  cws_apps::ran_as_counts ran_as;  // phases per cws::ran_as
  std::uint64_t diverged = 0;
  // Locality (phases whose leaves declared touches).
  std::uint64_t reported = 0;
  double share_sum = 0, share_min = 1;
  std::uint64_t touched_bytes = 0, local_bytes = 0, unknown_bytes = 0;
  std::map<std::string, std::pair<double, std::uint64_t>> share_by_loop;  // "resid-L7" -> (sum, phases)
  double last_run_share = 0;  // mean over the phases of the last measured run
  // Relocalizations made from the phases (evolve's).
  std::uint64_t relocalizations = 0, pages_moved = 0;
  double relocalization_s = 0;

  void put(cws_apps::json& entry) const;
};

class variant_runner final : public mg::plane_runner {
 public:
  // `schedules[level][kernel]` for the cws flavours (levels below
  // first_parallel_level are unused); ignored otherwise.
  variant_runner(cws_apps::bench_env& env, cws_apps::loop_flavour flavour, unsigned levels,
                 unsigned first_parallel_level, std::size_t block_planes,
                 const std::vector<std::vector<cws::schedule*>>& schedules);

  void run(mg::kernel k, unsigned level, std::size_t planes, const body_fn& body) override;
  bool declares_touches(unsigned level) const override {
    return cws_apps::runs_cws_phases(flavour_) && parallel(level);
  }
  bool parallel(unsigned level) const noexcept { return level >= first_parallel_ && loops_.at(level) != nullptr; }

  // Call before each benchmark: whether its phases count (measured runs).
  void begin_run(bool measured);
  // Wall clock around this run's parallel calls so far (rt.run, the TBB call, the OpenMP region).
  double calls_s() const noexcept { return calls_s_; }
  const phase_tally& tally() const noexcept { return tally_; }

 private:
  void count(const cws::run_report& r, mg::kernel k, unsigned level, double call_s);

  cws_apps::loop_flavour flavour_;
  unsigned first_parallel_;
  std::vector<std::unique_ptr<cws_apps::block_loops>> loops_;  // per level; null below the cut-off
  std::vector<std::vector<cws::schedule*>> schedules_;
  bool measured_ = false;
  double calls_s_ = 0;
  double run_share_sum_ = 0;
  std::uint64_t run_reported_ = 0;
  phase_tally tally_;
};

}  // namespace mg_app
