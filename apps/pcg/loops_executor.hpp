#pragma once
// The executor of one process (solver.hpp) on top of the apps' block loops
// (common/block_loops.hpp): every kernel a loop over the blocks with one of
// the loop flavours (serial, cws in the kernel's own schedule, TBB with the
// kernel's own affinity_partitioner or a static one, OpenMP static). For cws
// it also counts what the phases ran as, per solve: the learning (relws)
// phases and CG iterations, the replays (stows), the random ones.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/block_loops.hpp"
#include "pcg/solver.hpp"

namespace pcg {

// What the phases of one solve ran as (cws flavours only).
struct phase_tally {
  unsigned phases = 0;
  unsigned relws = 0, stows = 0, stuws = 0, random = 0, no_template = 0, diverged = 0, user = 0;
  unsigned released = 0;  // strict replays that stopped waiting for a late thief (CWS_REPLAY_GRACE_US)
  unsigned relws_iterations = 0;  // CG iterations (spmv phases) with at least one relws phase
};

// Every count of a phase_tally with its name in cws-pcg's JSON, in the order printed.
inline constexpr std::pair<const char*, unsigned phase_tally::*> tally_names[] = {
    {"phases", &phase_tally::phases},
    {"relws_phases", &phase_tally::relws},
    {"relws_iterations", &phase_tally::relws_iterations},
    {"stows_phases", &phase_tally::stows},
    {"stuws_phases", &phase_tally::stuws},
    {"random_phases", &phase_tally::random},
    {"no_template_phases", &phase_tally::no_template},
    {"diverged_phases", &phase_tally::diverged},
    {"released_phases", &phase_tally::released},
    {"user_phases", &phase_tally::user}};

class loops_executor final : public executor {
 public:
  // `schedules`: one per kernel for the cws flavours, empty otherwise.
  // `spmv`: the kernel of the phase that starts a CG iteration (for relws_iterations).
  loops_executor(cws_apps::block_loops& loops, std::vector<cws::schedule*> schedules, std::size_t spmv)
      : loops_(loops), schedules_(std::move(schedules)), spmv_(spmv) {}

  void run(std::size_t kernel, const block_body& body) override {
    loops_.run(kernel, body);
    if (!loops_.runs_cws_phases()) return;
    if (kernel == spmv_) ++iteration_;
    const cws::run_report* r = schedules_.at(kernel)->last_report();
    if (r == nullptr) return;
    ++tally_.phases;
    for (const auto& [as, count] : counters)
      if (as == r->ran_as) ++(tally_.*count);
    if (r->ran_as == cws::ran_as::relws && last_relws_iteration_ != iteration_)
      ++tally_.relws_iterations, last_relws_iteration_ = iteration_;
  }
  bool declares_touches() const noexcept override { return loops_.runs_cws_phases(); }

  // Starts counting a new solve; returns the tally of the previous one.
  phase_tally begin_solve() {
    phase_tally t = tally_;
    tally_ = {};
    iteration_ = 0;
    last_relws_iteration_ = ~std::uint64_t{0};
    return t;
  }
  const phase_tally& tally() const noexcept { return tally_; }

 private:
  // The count of phase_tally each outcome adds to (ran_as::other and
  // ran_as::hinted count in `phases` only: pcg's loops carry no hints).
  static constexpr std::pair<cws::ran_as, unsigned phase_tally::*> counters[] = {
      {cws::ran_as::relws, &phase_tally::relws},
      {cws::ran_as::stows, &phase_tally::stows},
      {cws::ran_as::stuws, &phase_tally::stuws},
      {cws::ran_as::random, &phase_tally::random},
      {cws::ran_as::random_no_template, &phase_tally::no_template},
      {cws::ran_as::random_diverged, &phase_tally::diverged},
      {cws::ran_as::random_released, &phase_tally::released},
      {cws::ran_as::user, &phase_tally::user}};

  cws_apps::block_loops& loops_;
  std::vector<cws::schedule*> schedules_;
  std::size_t spmv_;
  phase_tally tally_;
  std::uint64_t iteration_ = 0, last_relws_iteration_ = ~std::uint64_t{0};
};

}  // namespace pcg
