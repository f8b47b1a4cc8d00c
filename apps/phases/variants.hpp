#pragma once
// The variants of cws-phases and their runs: serial, cws under each policy,
// tbb-simple, tbb-static, tbb-affinity and omp-static, each with the same
// leaves (leaves.hpp) over the same two pre-faulted arrays.
//
// A run of a variant makes, for every size, one untimed call (the previous
// variant left its buffers in the caches and its own threads asleep; a
// program that uses one runtime pays neither) and then the size's timed
// calls, whose mean is the run's sample; then, for the CPU-in-gaps figure,
// phases of --gap-kib separated by busy-waited serial gaps (gap_cpu.hpp).
// After its runs: the breakdown of cws phases (as many timed extra calls,
// with runtime::time_phases on) and the verification.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/block_loops.hpp"
#include "common/rounds.hpp"
#include "phases/leaves.hpp"
#include "phases/sizes.hpp"
#include "common/timeline_figures.hpp"

namespace phases {

// The options of cws-phases beyond the common ones.
struct options {
  std::vector<std::size_t> sizes_kib{0, 1, 4, 16, 64, 256, 1024, 4096, 16384, 65536};
  std::vector<double> gaps_ms{0.1, 1, 10};
  std::size_t blocks = 0;  // 0: one leaf per worker
  std::size_t gap_kib = 64;
  bool no_gaps = false;
  bool declare_touches = false;
  unsigned skew_pct = 0;  // --skew: the last leaf this many % larger than the first (leaves.hpp)
};

// Calls made by the verification of each size: enough that a leaf run twice
// or skipped in any of them changes the checksum.
inline constexpr unsigned verify_calls = 3;

struct variant {
  std::string name;
  cws_apps::loop_flavour loop;
  std::string policy{};  // cws variants only
  std::unique_ptr<cws_apps::block_loops> loops{};
  std::vector<cws::schedule*> schedules{};  // cws variants: one per size, then the gaps'

  // Per gap length, one value per measured run (gap_cpu.hpp): the other
  // threads' CPU and the phases' wall time, as shares of the gaps' time.
  std::vector<cws_apps::samples> gap_cpu{}, gap_phase{};
  // After the runs (finish):
  std::vector<cws_apps::cws_phase_clock> clocks{};      // per size: wall_s breakdown of the measured cws phases
  std::vector<cws_apps::timeline_figures> timelines{};  // per size: the parts of timed extra calls (cws variants)
  std::vector<double> checksums{};
  std::vector<bool> verified{};
};

class variant_set {
 public:
  // Allocates and fills the arrays, computes the expected checksums, and
  // makes every variant with its schedules and loops: an unknown policy
  // throws here, before anything runs.
  variant_set(cws_apps::bench_env& env, const options& o, const std::vector<std::string>& policies, unsigned iters);
  variant_set(const variant_set&) = delete;
  variant_set& operator=(const variant_set&) = delete;

  // Runs every variant (interleaved rounds or one after the other, as `plan`
  // says), then its breakdown and verification; one timer per variant.
  std::vector<cws_apps::phase_timer> measure(const cws_apps::run_plan& plan);

  const std::vector<variant>& variants() const noexcept { return variants_; }
  const std::vector<size_case>& sizes() const noexcept { return sizes_; }
  const std::vector<double>& gaps_ms() const noexcept { return gaps_ms_; }  // empty with --no-gaps
  std::size_t blocks() const noexcept { return blocks_; }

 private:
  leaves leaves_of(const size_case& s, unsigned* visits = nullptr);
  void one_run(variant& v, cws_apps::phase_timer& t);
  void finish(variant& v);

  cws::runtime& rt_;
  std::size_t blocks_;
  std::vector<double> gaps_ms_;
  bool declare_touches_;
  double skew_;  // leaves::skew
  std::vector<size_case> sizes_;
  size_case gap_size_;
  std::size_t gap_phase_;  // the loop index of the gaps' phases
  std::size_t max_elements_;
  cws::numa::array<double> a_, b_;
  std::vector<double> expected_;  // per size: the serial loop's checksum after verify_calls phases
  std::vector<variant> variants_;
};

}  // namespace phases
