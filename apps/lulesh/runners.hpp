#pragma once
// How the variants of cws-lulesh run a loop (lulesh::loop_runner):
//
//   cws_runner   rt.run in the loop's own schedule, the loop split by
//                PufferFish's regular or irregular hinted recursion (every
//                child spawned with a hint at the loop's main array);
//                the phases' statistics summed over the measured runs.
//   tbb_runner   tbb::parallel_for with simple_partitioner down to the same
//                grain (it halves ranges as the regular recursion does).
//   omp_runner   #pragma omp parallel for schedule(static) over blocks of the
//                same grain.
//
// The grain of a loop over n items is PufferFish's n / (32 x factor), or a
// fixed tile.

#include <cstddef>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <cws/cws.hpp>

#include "common/bench_env.hpp"
#include "common/hinted_recursion.hpp"
#include "common/timeline_figures.hpp"
#include "common/ran_as_counts.hpp"
#include "common/timing.hpp"
#include "lulesh/loops.hpp"

namespace lulesh {

struct grain_rule {
  unsigned factor = 1;   // PufferFish's Factor: grain = n / (32 x factor)
  std::size_t tile = 0;  // when not 0, every loop's grain
  std::size_t operator()(std::size_t n) const noexcept {
    if (tile != 0) return tile;
    const std::size_t g = n / (32 * std::size_t{factor});
    return g == 0 ? 1 : g;
  }
};

// What the measured cws phases of one variant did, summed.
struct cws_totals {
  std::uint64_t phases = 0;
  double phase_wall_s = 0;  // the phases' own wall_s
  cws_apps::timeline_figures timeline;  // their parts, when the runtime timed them (--phase-timeline)
  cws::worker_stats work;   // summed over workers and phases
  // Locality of the phases that reported it (their hints are declared touches).
  std::uint64_t locality_phases = 0;
  std::uint64_t touched_bytes = 0, local_bytes = 0, unknown_bytes = 0;
  double min_share = 1;
  std::array<std::uint64_t, loop_count> loop_touched{}, loop_local{};  // the same per loop
  // Relocalizations made after the measured phases (evolve).
  std::uint64_t relocalizations = 0, pages_moved = 0;
  double relocalization_s = 0;
  cws_apps::ran_as_counts ran_as;  // phases per cws::ran_as
  std::uint64_t converged_phases = 0;           // phases whose report said converged (evolve)
};

class cws_runner final : public loop_runner {
 public:
  // `schedules`: one per loop_id.
  cws_runner(cws::runtime& rt, std::vector<cws::schedule*> schedules, cws_apps::recursion shape, grain_rule grain);

  void run(loop_id id, std::size_t n, const hint_target& hint, range_fn body) override;
  bool declares_touches() const noexcept override { return true; }

  // Makes loop `leader`'s leaves also call declare(extent, lo, hi), so that
  // its touches (and evolve's relocalizations after it) cover every array of
  // its extent, not only its hint: for a leader whose template the other
  // loops of that extent follow.
  void declare_for(loop_id leader, std::function<void(extent, std::size_t, std::size_t)> declare);

  // Whether the phases from now on are counted in totals().
  void set_measuring(bool on) noexcept { measuring_ = on; }
  const cws_totals& totals() const noexcept { return totals_; }

 private:
  cws::runtime& rt_;
  std::vector<cws::schedule*> schedules_;
  cws_apps::recursion shape_;
  grain_rule grain_;
  std::vector<std::function<void(extent, std::size_t, std::size_t)>> declare_;  // per loop_id, or empty
  bool measuring_ = false;
  cws_totals totals_;
};

class tbb_runner final : public loop_runner {
 public:
  tbb_runner(cws_apps::bench_env& env, grain_rule grain) : env_(env), grain_(grain) {}
  void run(loop_id id, std::size_t n, const hint_target& hint, range_fn body) override;

 private:
  cws_apps::bench_env& env_;
  grain_rule grain_;
};

class omp_runner final : public loop_runner {
 public:
  explicit omp_runner(grain_rule grain) : grain_(grain) {}
  void run(loop_id id, std::size_t n, const hint_target& hint, range_fn body) override;

 private:
  grain_rule grain_;
};

}  // namespace lulesh
