#pragma once
// Per-phase statistics, gathered per worker without sharing and summed after
// the phase.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cws/locality.hpp"

namespace cws {

struct worker_stats {
  std::uint64_t tasks = 0;            // tasks executed (the root counts on worker 0)
  std::uint64_t segments = 0;         // segments started (phase root, steals, hand-overs)
  std::uint64_t steals = 0;           // successful steals from other workers' deques or mailboxes
  std::uint64_t failed_steals = 0;    // steal attempts that found nothing
  std::uint64_t nested_segments = 0;  // segments started while blocked in sync
  // Time inside the phase spent looking for work or waiting: in the steal
  // loop, blocked in a sync, out of the phase before its end, and for a
  // helper the time from the phase's start until it joined. The phase's
  // wall time less idle_s is the time the worker ran tasks.
  double idle_s = 0;
  std::uint64_t designated = 0;  // of `steals`: tasks taken from this worker's mailbox (routed to it)
  std::uint64_t taken_back = 0;  // tasks this worker routed away, then ran itself (RELWS)
  std::uint64_t elided = 0;      // spawns run as plain calls under serial elision (no task; in `tasks`)
  // Hinted policies (place_tree.hpp): where find_place sent this worker's
  // hinted spawns, and what became of them.
  std::uint64_t hinted_leaf = 0;   // to its own leaf: pushed on its deque, or inlined by HET
  std::uint64_t hinted_node = 0;   // to another NUMA node's place
  std::uint64_t hinted_root = 0;   // to the root place (the hints span nodes)
  std::uint64_t het_inlined = 0;   // of hinted_leaf: run at once because the leaf's HET flag was set
  std::uint64_t place_steals = 0;  // of steals: tasks taken from a node or the root place
  std::uint64_t reclaimed = 0;     // tasks it placed on a node or the root place, then ran itself
  friend bool operator==(const worker_stats&, const worker_stats&) = default;
};

// The time worker `w` ran tasks in a phase of `wall_s`: the wall time less
// its idle time, 0 for a worker that started no segment (it was absent, or
// found nothing). load_balance::busy_over_fair is made of these.
inline double busy_s(const worker_stats& w, double wall_s) noexcept {
  return w.segments == 0 ? 0.0 : std::max(0.0, wall_s - w.idle_s);
}

struct phase_info {
  std::string schedule;         // name of the schedule slot
  std::uint64_t iteration = 0;  // 0-based count of runs of this schedule
  std::string policy;
  unsigned workers = 0;
  std::string follows;  // schedule whose template this phase replays (schedule::follow), or empty
  // The schedule's place among its runtime's schedules, in creation order
  // (schedule::index()): 0, 1, 2, ... and never reused. Lets an observer
  // keep per-schedule state in a vector instead of looking the name up
  // every phase. no_schedule_index in a phase_info made by hand (a test
  // feeding an observer): go by the name.
  static constexpr std::uint32_t no_schedule_index = ~std::uint32_t{0};
  std::uint32_t schedule_index = no_schedule_index;
};

struct phase_stats {
  phase_info phase;
  double wall_s = 0;
  // One per worker. A helper that did not join the phase before it closed
  // (the caller finished it first: docs/scheduler.md, Joining) has all zeros.
  std::vector<worker_stats> per_worker;
  // The workers that took part: the caller and the helpers that joined
  // before the phase closed. Fewer than per_worker.size() means a helper was
  // absent (parked or off its core), not that it found nothing to steal.
  unsigned workers_joined = 0;
  // Where the touched bytes lived (locality.hpp); only for a phase whose
  // tasks declared touches (touch.hpp), computed after the workers stopped
  // (not part of wall_s).
  std::optional<locality_report> locality;

  std::uint64_t tasks() const noexcept;
  std::uint64_t steals() const noexcept;
  std::uint64_t failed_steals() const noexcept;
  std::uint64_t segments() const noexcept;
  double idle_s() const noexcept;
  std::uint64_t designated() const noexcept;
  std::uint64_t taken_back() const noexcept;
  std::uint64_t elided() const noexcept;  // spawns run as plain calls (serial elision), summed over workers
  std::uint64_t extra_steals() const noexcept { return steals() - designated(); }
};

}  // namespace cws
