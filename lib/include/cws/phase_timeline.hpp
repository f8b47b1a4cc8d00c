#pragma once
// cws::phase_timeline — where the time of one rt.run went, for runs made
// while the runtime times its phases (runtime::time_phases). Off by default:
// each clock read costs tens of nanoseconds, as much as a part of an empty
// phase it would measure.
//
// It is measured by clock reads at the phase's boundaries only: on the
// calling thread where rt.run passes from one step to the next, and on each
// helper where it enters its steal loop and where a segment it stole begins
// and ends (reads the steal loop makes anyway for worker_stats::idle_s). Nothing
// is read per task. The parts, in order:
//
//   rt.run called
//     setup_s      policy begin_phase, observers' on_phase_begin, the root task
//   helpers woken
//     fork_s       until the last helper that joined the phase entered its
//                  steal loop (helpers that came after it closed skip it)
//     first_steal  (helpers woken -> the first stolen segment began; none: no steal)
//     leaves_s     helpers woken -> the last stolen segment ended (or the root
//                  returned, if that came first): the phase's work
//     join_s       last stolen segment ended -> the root returned on the caller
//     helpers_out_s root returned -> every joined helper left its steal loop (each
//                  worker sorts its declared touches as it leaves: the
//                  caller's and the helpers' at once)
//   caller resumes (phase_stats::wall_s = fork_s + leaves_s + join_s + helpers_out_s)
//     collect_s    per-worker statistics, declared touches, balance
//     locality_s   the locality report of the declared touches
//     observers_s  observers' on_phase_end (the steal-tree recorder, trace stream)
//     policy_s     the policy's end_phase
//     relocalize_s the relocalization check (and relocalization, when the policy asks)
//   rt.run returns (total_s: from the call)

#include <cstdint>
#include <optional>

namespace cws {

struct phase_timeline {
  double setup_s = 0;
  double fork_s = 0;
  std::optional<double> first_steal_s;  // from the wake; empty when no helper stole
  double leaves_s = 0;
  double join_s = 0;
  double helpers_out_s = 0;
  double collect_s = 0;
  double locality_s = 0;
  double observers_s = 0;
  double policy_s = 0;
  double relocalize_s = 0;
  double total_s = 0;
  // Distinct pages the locality report went over in this run: 0 when the
  // phase declared no touches, or when the previous run's report was reused
  // (same touches, no page moved since; data_placement.hpp).
  std::uint64_t locality_pages = 0;

  // The parts of rt.run after the helpers were back (collect_s .. relocalize_s).
  double after_phase_s() const noexcept { return collect_s + locality_s + observers_s + policy_s + relocalize_s; }
  friend bool operator==(const phase_timeline&, const phase_timeline&) = default;
};

}  // namespace cws
