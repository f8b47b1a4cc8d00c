#pragma once
// What a parallel runtime burns while the program runs serially between two
// phases: its threads keep spinning for a while after a phase (cws helpers
// for CWS_BLOCKTIME, libgomp's for GOMP_SPINCOUNT, TBB's workers before they
// leave the arena), which costs nothing on an idle machine and a core on a
// shared one.
//
// Measured from the process's CPU time (getrusage RUSAGE_SELF) minus the
// calling thread's own (CLOCK_THREAD_CPUTIME_ID): what every other thread of
// the process used, i.e. the runtimes' threads. The caller busy-waits
// through each gap (a serial computation between two phases; sleeping would
// also stretch the gap by the timer slack), so its own CPU is the gap and
// is taken out.

#include <chrono>

namespace phases {

// CPU seconds used so far by the whole process and by the calling thread.
struct cpu_times {
  double process_s = 0;
  double caller_s = 0;
};
cpu_times cpu_now();

// Spins on the steady clock for `seconds` (the serial gap).
void busy_wait(double seconds);

// What one measurement of gaps found, summed over its cycles.
struct gap_cycles {
  unsigned cycles = 0;
  double others_cpu_s = 0;  // CPU of the process's other threads, over the whole cycles
  double phase_s = 0;       // wall time of the phases (the caller's calls)
  double gap_s = 0;         // wall time of the gaps (at least cycles x the gap asked for)

  // The others' CPU as a share of the gaps' wall time (1 = one core busy
  // through every gap). It also holds their part of the phases themselves,
  // at most (workers - 1) x phase_share(): small for empty phases on an
  // idle machine, large when a preempted thread stretched the phases.
  double cpu_share_of_gap() const noexcept { return gap_s > 0 ? others_cpu_s / gap_s : 0.0; }
  double phase_share() const noexcept { return gap_s > 0 ? phase_s / gap_s : 0.0; }
};

// Runs `cycles` times: phase(), then a busy-waited gap of `gap_s` on the
// caller. The CPU times are read at the ends only: the other threads' clocks
// advance at scheduler ticks while they run, so reading them around every
// gap alone would be off by up to a tick each time.
template <class Phase>
gap_cycles measure_gaps(unsigned cycles, double gap_s, Phase&& phase) {
  gap_cycles out;
  out.cycles = cycles;
  const cpu_times from = cpu_now();
  for (unsigned c = 0; c < cycles; ++c) {
    const auto t0 = std::chrono::steady_clock::now();
    phase();
    const auto t1 = std::chrono::steady_clock::now();
    busy_wait(gap_s);
    out.phase_s += std::chrono::duration<double>(t1 - t0).count();
    out.gap_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  }
  const cpu_times to = cpu_now();
  out.others_cpu_s = (to.process_s - from.process_s) - (to.caller_s - from.caller_s);
  return out;
}

}  // namespace phases
