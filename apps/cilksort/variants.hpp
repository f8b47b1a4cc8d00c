#pragma once
// The variants of cws-cilksort and what one run of each does: write the
// input (untimed, in parallel with the variant's own runtime, over the same
// blocks for every variant), sort it (timed: the wall clock around the call
// the user makes), and check the result.
//
//   std-sort           std::sort of the whole array (the reference time)
//   serial             the cilksort recursion with no spawns (serial elision)
//   cws-hinted         policy hinted (PufferFish), arrays block_cyclic
//   cws-hinted-hpt     policy hinted-hpt (HClib's HPT_DA), block_cyclic
//   cws-random-ft      policy random, first touch (HClib/Cilk FT)
//   cws-random-il      policy random, interleaved (numactl -i)
//   cws-evolve         policy evolve, first touch
//   cws-evolve-hinted  policy evolve-hinted (first template: a hinted run), block_cyclic
//   tbb-task-group     the recursion with tbb::task_group
//   tbb-parallel-sort  tbb::parallel_sort (TBB's own algorithm, for scale)
//   omp-tasks          the recursion with OpenMP tasks (cilksort has no
//                      `parallel for` form, so no omp-static)

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cws/cws.hpp>

#include "cilksort/input.hpp"
#include "cilksort/recursion.hpp"
#include "common/bench_env.hpp"
#include "common/iteration_lines.hpp"
#include "common/timing.hpp"

namespace cilksort {

enum class flavour { std_sort, serial, cws, tbb_task_group, tbb_parallel_sort, omp_tasks };

struct variant_spec {
  std::string_view name;
  flavour how;
  std::string_view policy{};  // cws only
  cws::numa::placement placement = cws::numa::first_touch;
};

// Every variant, in output order, and their names (--variants).
const std::vector<variant_spec>& all_variants();
std::vector<std::string> variant_names();

// The counters (cws::worker_stats) of the measured sorts of a cws variant,
// summed over workers and sorts.
struct sort_counters {
  std::uint64_t sorts = 0;
  cws::worker_stats work{};
  void add(const cws::phase_stats& s);
};

// The problem every variant solves.
struct problem {
  std::size_t n = std::size_t{1} << 22;
  generator input;  // run r (0-based, warm-up first), repetition k: seed input.seed + r * iters + k when vary
  bool vary_input = false;
  unsigned iters = 1;
  std::size_t block = 512;  // elements per block of the input writer
  std::size_t quick_size = 1024, merge_size = 1024;
  std::string hints_name = "pieces";  // --merge-hints: pieces or envelope
  bool corrupt_output = false;        // test-only: damage every sorted output before the check

  std::size_t blocks() const noexcept { return (n + block - 1) / block; }
  merge_hints hints() const noexcept { return hints_name == "envelope" ? merge_hints::envelope : merge_hints::pieces; }
  // Cuts the input writer's work into 16 blocks per worker, in whole pages.
  void cut_input(unsigned workers) noexcept;
  generator input_of(unsigned run, unsigned rep) const noexcept {
    return vary_input ? generator{input.seed + std::uint64_t{run} * iters + rep, input.range} : input;
  }
};

struct variant {
  variant_spec spec;
  std::string name;
  cws::schedule* sort_schedule = nullptr;  // cws only
  cws::schedule* init_schedule = nullptr;  // cws only
  std::optional<cws::numa::array<value>> a{}, t{};
  cws_apps::cws_phase_clock clock{};  // cws: the sorts' breakdown (measured runs)
  bool measuring = false;
  std::optional<cws_apps::line_log> sort_lines{};  // cws: the sorts' lines, kept as they run
  sort_counters counters{};                        // cws: measured sorts
  unsigned runs_done = 0;
  unsigned checked = 0;   // sorted outputs checked
  std::string failure{};  // the first failed check ("" while none failed)

  bool is_cws() const noexcept { return spec.how == flavour::cws; }
  bool needs_scratch() const noexcept {
    return spec.how != flavour::std_sort && spec.how != flavour::tbb_parallel_sort;
  }
};

// The chosen variants, in output order; the cws ones with their sort and
// init schedules, created here so that an unknown policy throws before
// anything runs.
std::vector<variant> make_variants(cws::runtime& rt, const std::vector<std::string>& chosen);

// Allocates the variant's arrays (pre-faulted when their placement binds
// pages; first touched by the first input write otherwise) and writes the
// first input, untimed. For cws variants also notes where their schedules
// stand.
void prepare(cilksort::variant& v, cws_apps::bench_env& env, const problem& p, const cws_apps::run_plan& plan);

// Releases the variant's arrays (before the next variant's, in the
// sequential order).
void release(cilksort::variant& v) noexcept;

// Writes input g into the variant's array with its own runtime, over the
// problem's blocks (and zeroes the scratch array, its first touch, when
// `touch_scratch`); returns the wall-clock seconds of the call.
double write_input(cilksort::variant& v, cws_apps::bench_env& env, const problem& p, const generator& g,
                   bool touch_scratch);

// Sorts the variant's array once; returns the wall-clock seconds of the
// call (rt.run, the TBB call in the arena, the OpenMP region, the plain
// call). `measured`: add the cws run's counters and breakdown.
double sort_once(cilksort::variant& v, cws_apps::bench_env& env, const problem& p, bool measured);

// The digest each input must still have once sorted, computed once per seed
// from the generator (not from any variant's array).
class expected_digests {
 public:
  explicit expected_digests(std::size_t n) : n_(n) {}
  const digest& of(const generator& g);

 private:
  std::size_t n_;
  std::map<std::uint64_t, digest> by_seed_;
};

// One run: for each repetition, the input (untimed), the sort (timed as
// "sort"; a sample is the mean over the repetitions), the check.
void one_run(cilksort::variant& v, cws_apps::bench_env& env, const problem& p, expected_digests& expected,
             cws_apps::phase_timer& t);

}  // namespace cilksort
