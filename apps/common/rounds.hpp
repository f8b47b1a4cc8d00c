#pragma once
// The timing loop over all variants of an app (cws, TBB, OpenMP, ...), whose
// ratios are read off one run of the app.
//
// Measured one after the other (run_order::sequential), a burst of noise on
// a loaded machine lands on one variant's whole block of runs and skews its
// median, and with it every ratio against it. Interleaved (the default), each
// variant is set up first, then every round runs one run of every variant,
// so a burst spreads over all of them. The order within a round changes from
// round to round (round_order), so no variant always runs right after the
// same one. After every setup and every run, in both orders,
// measure_variants waits until their threads are idle (settle.hpp), outside
// the timing: TBB's and OpenMP's threads spin for a while after a loop
// (libgomp's for milliseconds), and would otherwise share a core with the
// next run's first phases.
//
// The price: all variants' buffers are allocated at the same time;
// sequential needs one variant's buffers at a time (when `finish` releases
// them).

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/timing.hpp"

namespace cws_apps {

// One variant for measure_variants. Its state (buffers, loop objects, the
// pointers a run swaps) lives in the caller's objects that the functions
// refer to, and must persist from prepare to finish.
struct timed_variant {
  std::string name;
  std::function<void()> prepare;              // optional: allocations, pre-faulting, untimed first touch
  std::function<void(phase_timer&)> one_run;  // one run, warm-up (timer not recording) or measured
  // Optional: after its last run, with its timings: verification, report, buffers released.
  std::function<void(const phase_timer&)> finish;
};

// Runs the variants as plan.order says, plan.warmup unrecorded and plan.runs
// recorded runs each, and returns one phase_timer per variant, in the order
// of `variants`. sequential: per variant prepare, warm-ups, runs, finish.
// interleaved: every prepare; plan.warmup rounds, then plan.runs rounds, each
// with one run of every variant in round_order; every finish. Both call the
// finishes in the order of `variants`.
std::vector<phase_timer> measure_variants(const std::vector<timed_variant>& variants, const run_plan& plan);

// The same over an app's own variant objects (each with a `name`), which
// hold each variant's state: prepare(v), one_run(v, timer), finish(v,
// timer). The vector must not change size meanwhile.
template <class Variant, class Prepare, class OneRun, class Finish>
std::vector<phase_timer> measure_variants(std::vector<Variant>& variants, const run_plan& plan, const Prepare& prepare,
                                          const OneRun& one_run, const Finish& finish) {
  std::vector<timed_variant> timed;
  timed.reserve(variants.size());
  for (Variant& v : variants) {
    Variant* const p = &v;
    timed.push_back({v.name, [p, &prepare] { prepare(*p); }, [p, &one_run](phase_timer& t) { one_run(*p, t); },
                     [p, &finish](const phase_timer& t) { finish(*p, t); }});
  }
  return measure_variants(timed, plan);
}

// The variant indices of round `round` (0-based) of `count` variants: row
// round mod count of a Williams design (0, 1, count-1, 2, count-2, ... plus
// the round number, mod count), reversed in every other block of `count`
// rounds when count is odd. Each round starts with another variant, and over
// count rounds (2 x count when odd) every variant runs right after every
// other one equally often.
std::vector<std::size_t> round_order(std::size_t count, unsigned round);

}  // namespace cws_apps
