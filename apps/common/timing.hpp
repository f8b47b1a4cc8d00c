#pragma once
// The timing loop shared by the apps: warm-up runs (not recorded), then
// measured runs, each of which may time several named phases.
//
//   auto t = cws_apps::measure("cws-random", plan, [&](cws_apps::phase_timer& pt) {
//     pt.time("init", [&] { ... });
//     pt.time("copy", [&] { ... });
//   });
//   t["copy"].median();

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <cws/run_report.hpp>

#include "common/likwid_markers.hpp"
#include "common/samples.hpp"
#include "common/timeline_figures.hpp"

namespace cws_apps {

// Wall-clock seconds of one call of f.
template <class F>
double seconds_of(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  std::forward<F>(f)();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Times cws phases the way the baselines are timed: the wall clock around
// the call the user makes (rt.run), which includes waking and pinning the
// workers, the join, and what rt.run does after the workers stopped (locality
// report, relocalization, policy bookkeeping). The phase's own wall_s (from
// the first task to the last) is kept apart as a breakdown: run(f) calls f,
// which runs one phase and returns its report (what rt.run returns), and
// returns the wall clock. When the runtime timed the phase
// (runtime::time_phases: --phase-timeline), the report's timeline is kept
// too, part by part (timeline()).
class cws_phase_clock {
 public:
  template <class RunPhase>
  double run(RunPhase&& run_phase) {
    static_assert(std::is_same_v<std::invoke_result_t<RunPhase&>, const cws::run_report&>,
                  "cws_phase_clock::run: the phase must return what rt.run returns (a reference, not a copy)");
    const cws::run_report* report = nullptr;
    const double outer = seconds_of([&] { report = &run_phase(); });
    wall_s_ += report->wall_s;
    outside_s_ += outer - report->wall_s;
    ++phases_;
    if (report->timeline) timeline_.add(*report->timeline);
    return outer;
  }
  // Means per phase since the last reset: the phases' own wall_s, and the
  // rest of rt.run (fork, join, after-phase work).
  double wall_s() const noexcept { return phases_ ? wall_s_ / phases_ : 0.0; }
  double outside_wall_s() const noexcept { return phases_ ? outside_s_ / phases_ : 0.0; }
  unsigned phases() const noexcept { return phases_; }
  // The parts of the timed phases since the last reset (none unless the runtime timed them).
  const timeline_figures& timeline() const noexcept { return timeline_; }
  void reset() {
    wall_s_ = 0, outside_s_ = 0, phases_ = 0;
    timeline_ = {};
  }

 private:
  double wall_s_ = 0, outside_s_ = 0;
  unsigned phases_ = 0;
  timeline_figures timeline_;
};

// How the runs of several variants are ordered (common/rounds.hpp).
enum class run_order {
  sequential,   // all runs of one variant, then the next
  interleaved,  // rounds of one run of every variant
};
const char* to_string(run_order o) noexcept;  // "sequential", "interleaved"

struct run_plan {
  unsigned warmup = 1;  // runs executed first and thrown away (page faults, thread start-up, caches)
  unsigned runs = 5;    // measured runs
  run_order order = run_order::interleaved;  // measure_variants only; measure() runs one variant
};

// Collects one sample series per named phase for one variant, in first-use order.
class phase_timer {
 public:
  explicit phase_timer(std::string variant) : variant_(std::move(variant)) {}

  // Runs f; during measured runs, adds its seconds to the series `phase` and
  // brackets it with the likwid region "<variant>_<phase>". Returns the seconds.
  template <class F>
  double time(std::string_view phase, F&& f) {
    return time_mean(phase, 1, std::forward<F>(f));
  }
  // Same, but runs f `reps` times as one block and records the mean seconds
  // per repetition, so that short kernels can be averaged.
  template <class F>
  double time_mean(std::string_view phase, unsigned reps, F&& f) {
    return record(phase, [&] {
      return seconds_of([&] {
               for (unsigned i = 0; i < reps; ++i) f();
             }) /
             reps;
    });
  }
  // Same, but each call of f returns the seconds that count for that
  // repetition (block_loops::run: the wall clock around that one call), and
  // their mean is recorded: what the caller does between the calls (e.g.
  // swapping buffers) stays out. Returns the mean.
  template <class F>
  double time_reported(std::string_view phase, unsigned reps, F&& f) {
    return record(phase, [&] {
      double sum = 0;
      for (unsigned i = 0; i < reps; ++i) sum += f();
      return reps ? sum / reps : 0.0;
    });
  }
  bool recording() const noexcept { return recording_; }
  void set_recording(bool on) noexcept { recording_ = on; }

  const std::string& variant() const noexcept { return variant_; }
  // The series of `phase`; throws std::out_of_range when it was never recorded.
  const samples& operator[](std::string_view phase) const;

 private:
  samples& series(std::string_view phase);
  // Brackets measure() (which returns seconds) with the likwid region
  // "<variant>_<phase>" and records its result during measured runs.
  template <class Measure>
  double record(std::string_view phase, Measure&& measure) {
    std::optional<likwid::region> marker;
    if (recording_) marker.emplace(variant_ + "_" + std::string(phase));
    const double seconds = measure();
    marker.reset();
    if (recording_) series(phase).add(seconds);
    return seconds;
  }

  std::string variant_;
  bool recording_ = true;
  std::vector<std::pair<std::string, samples>> phases_;
};

// Calls one_run(timer) plan.warmup times unrecorded, then plan.runs times recorded.
template <class F>
phase_timer measure(std::string variant, const run_plan& plan, F&& one_run) {
  phase_timer timer(std::move(variant));
  timer.set_recording(false);
  for (unsigned i = 0; i < plan.warmup; ++i) one_run(timer);
  timer.set_recording(true);
  for (unsigned i = 0; i < plan.runs; ++i) one_run(timer);
  return timer;
}

}  // namespace cws_apps
