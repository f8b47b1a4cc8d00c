#pragma once
// The parallel loops of one benchmark variant: body(lo, hi) over [0, n) in
// leaves of `grain` elements, with one loop flavour (serial, cws, TBB,
// OpenMP static), returning the wall-clock seconds of one run of a loop.
//
//   cws_apps::block_loops loops(env, cws_apps::loop_flavour::tbb_affinity, n, grain, {init_s, copy_s});
//   double s = loops.run(1, [&](std::size_t lo, std::size_t hi) { ... });   // loop 1: the copy
//
// A variant runs a few distinct loops (its phases, e.g. init and copy), each
// many times. The object lives as long as the variant, because two flavours
// keep state per phase across runs:
//   * cws: each phase runs in its own schedule, whose recorded steal trees the
//     replaying policies follow from one run to the next. Its time is the
//     wall clock around rt.run, as the baselines' is around their call; the
//     phase's own wall_s (which leaves out waking the workers, the join, the
//     locality report and any relocalization) is kept per phase as a
//     breakdown by a cws_phase_clock (JSON phase_wall_s, outside_wall_s;
//     phase_timeline when the runtime times its phases, --phase-timeline).
//     On request (keep_lines) it also keeps each cws phase's iteration line
//     as the run happens: a schedule's history holds only its last
//     CWS_HISTORY runs, fewer than a benchmark makes.
//   * tbb_affinity: one tbb::affinity_partitioner per phase, reused across
//     runs, so that TBB replays the block -> thread mapping of the same loop's
//     previous run (its whole point); a partitioner shared by two loops would
//     replay the other loop's mapping.

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <cws/cws.hpp>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include "common/bench_env.hpp"
#include "common/iteration_lines.hpp"
#include "common/timing.hpp"

namespace cws_apps {

enum class loop_flavour {
  serial,        // body(0, n) on the calling thread
  cws,           // cws::parallel_for_range (recursive bisection) in the phase's schedule
  cws_owned,     // cws::parallel_for_range_owned: block i on worker floor(i P / blocks) (policy `user`)
  tbb_auto,      // tbb::parallel_for, auto_partitioner
  tbb_simple,    // tbb::parallel_for, simple_partitioner (splits down to `grain`)
  tbb_static,    // tbb::parallel_for, static_partitioner (one even share per thread)
  tbb_affinity,  // tbb::parallel_for, the phase's affinity_partitioner
  omp_static,    // #pragma omp parallel for schedule(static) over the blocks
};

inline bool runs_cws_phases(loop_flavour f) noexcept { return f == loop_flavour::cws || f == loop_flavour::cws_owned; }

class block_loops {
 public:
  // `schedules`: one entry per phase; for the cws flavours the schedule that
  // phase runs in, for the others nullptr (only the count matters).
  block_loops(bench_env& env, loop_flavour flavour, std::size_t n, std::size_t grain,
              std::vector<cws::schedule*> schedules)
      : env_(env),
        flavour_(flavour),
        n_(n),
        grain_(std::max<std::size_t>(grain, 1)),
        schedules_(std::move(schedules)),
        affinity_(std::make_unique<tbb::affinity_partitioner[]>(schedules_.size())),
        clocks_(schedules_.size()),
        lines_(schedules_.size()) {
    if (cws_apps::runs_cws_phases(flavour_))
      for (const cws::schedule* s : schedules_)
        if (s == nullptr) throw std::logic_error("block_loops: a cws loop flavour needs a schedule per phase");
  }

  // Runs loop `phase` once over [0, n); returns the wall-clock seconds of
  // the call that starts it (rt.run, tbb::parallel_for in the arena, the
  // OpenMP region, the serial call).
  template <class Body>
  double run(std::size_t phase, const Body& body) {
    const tbb::blocked_range<std::size_t> all(0, n_, grain_);
    auto tbb_body = [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); };
    switch (flavour_) {
      case loop_flavour::serial:
        return seconds_of([&] { body(0, n_); });
      case loop_flavour::cws:
      case loop_flavour::cws_owned: {
        const double s = clocks_.at(phase).run([&]() -> const cws::run_report& {
          return env_.rt().run(*schedules_.at(phase), [&] {
            if (flavour_ == loop_flavour::cws)
              cws::parallel_for_range(0, n_, body, grain_);
            else
              cws::parallel_for_range_owned(0, n_, body, blocks());
          });
        });
        if (lines_[phase]) lines_[phase]->add(env_.rt(), *schedules_[phase]);  // after the timed call
        return s;
      }
      case loop_flavour::tbb_auto:
        return seconds_of([&] { env_.in_tbb([&] { tbb::parallel_for(all, tbb_body, tbb::auto_partitioner()); }); });
      case loop_flavour::tbb_simple:
        return seconds_of([&] { env_.in_tbb([&] { tbb::parallel_for(all, tbb_body, tbb::simple_partitioner()); }); });
      case loop_flavour::tbb_static:
        return seconds_of([&] { env_.in_tbb([&] { tbb::parallel_for(all, tbb_body, tbb::static_partitioner()); }); });
      case loop_flavour::tbb_affinity: {
        tbb::affinity_partitioner& affinity = affinity_[phase];
        return seconds_of([&] { env_.in_tbb([&] { tbb::parallel_for(all, tbb_body, affinity); }); });
      }
      case loop_flavour::omp_static: {
        const std::size_t blocks = this->blocks(), grain = grain_, n = n_;
        return seconds_of([&] {
#pragma omp parallel for schedule(static)
          for (std::size_t k = 0; k < blocks; ++k) body(k * grain, std::min(n, (k + 1) * grain));
        });
      }
    }
    return 0;
  }

  // Call at the start of every run: the clocks count from the first run that
  // `t` records, so they cover the measured runs only. (A run made outside
  // the timer, e.g. a verification, still adds to them: read them first.)
  void begin_run(const phase_timer& t) {
    if (t.recording() && !measuring_) {
      for (cws_phase_clock& c : clocks_) c.reset();
      measuring_ = true;
    }
  }
  // From now on, keeps the iteration line of each run of loop `phase` that
  // `map` covers (cws flavours; line_log in iteration_lines.hpp).
  void keep_lines(std::size_t phase, const run_map& map) { lines_.at(phase).emplace(map); }
  // The lines kept of loop `phase`, in order; empty unless keep_lines was called.
  const std::vector<iteration_line>& lines(std::size_t phase) const {
    static const std::vector<iteration_line> none;
    return lines_.at(phase) ? lines_[phase]->lines() : none;
  }
  // The breakdown of the cws phases of loop `phase`: mean wall_s, and mean
  // time rt.run spent outside it (cws_phase_clock). Zero for other flavours.
  const cws_phase_clock& clock(std::size_t phase) const { return clocks_.at(phase); }

  loop_flavour flavour() const noexcept { return flavour_; }
  bool runs_cws_phases() const noexcept { return cws_apps::runs_cws_phases(flavour_); }
  std::size_t blocks() const noexcept { return (n_ + grain_ - 1) / grain_; }

 private:
  bench_env& env_;
  loop_flavour flavour_;
  std::size_t n_, grain_;
  std::vector<cws::schedule*> schedules_;
  std::unique_ptr<tbb::affinity_partitioner[]> affinity_;  // one per phase; not movable, hence the array
  std::vector<cws_phase_clock> clocks_;                    // one per phase
  std::vector<std::optional<line_log>> lines_;             // one per phase, kept on request
  bool measuring_ = false;
};

}  // namespace cws_apps
