#pragma once
// The variants of cws-prefix and what one run of each does, on the common
// variant runner (common/variant_runner.hpp). A run is three passes over the
// same blocks, each a recursive bisection over the block indices:
//
//   init    a[i] = initial_value(i): the first touch of the pages
//   reduce  sums[k] = the sum of block k
//           (serial, between the two: offsets = exclusive scan of the sums)
//   scan    block k scanned in place, starting from offsets[k]
//
// Variants: serial (std::inclusive_scan), cws under each policy of
// --policies (random; stows, stuws, relws with the passes following init;
// evolve: the reduce schedule evolves and moves the pages, the scan replays
// it under stuws; user: block k on worker floor(k P / blocks) in every pass),
// tbb-auto, tbb-affinity (one affinity_partitioner per pass, kept across
// runs), tbb-static, omp-static. The cws leaves write their worker into an
// audit (pass_log.hpp): every pass's run report and audit make the cws
// figures, and the table.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/variant_runner.hpp"
#include "prefix/pass_log.hpp"

namespace prefix {

struct options {
  cws_apps::common_options common;
  std::size_t n = std::size_t{1} << 25;  // SC14: 256 MB
  std::size_t block = 0;                 // 0: size / 512 rounded up to whole 4 KiB pages
  std::size_t mismatch_grain = 1;        // blocks per leaf of the cws reduce and scan passes
  bool follow_init = true;
  std::string evolve_init = "random";
};

struct variant {
  std::string name;
  cws_apps::loop_flavour loop;
  std::string policy{};              // cws variants only
  cws::schedule* schedules[3] = {};  // cws variants only: init, reduce, scan
  bool follows_init = false;         // reduce and scan replay init's template
  // What persists across the runs, from the variant's set-up to its report:
  std::unique_ptr<cws_apps::block_loops> init_loop{}, scan_loops{};  // scan_loops: phase 0 reduce, 1 scan
  std::optional<cws::numa::array<std::int64_t>> data{};
  std::vector<std::int64_t> sums{}, offsets{};
  block_audit audit{};
  std::vector<pass_entry> passes{};
  unsigned runs_done = 0;

  bool runs_cws() const noexcept { return init_loop->runs_cws_phases(); }
};

class scan_suite {
 public:
  // Settles the default block and creates every variant, its schedules and
  // its loops, so an unknown policy fails before anything runs.
  scan_suite(cws_apps::bench_env& env, options& o, const std::vector<std::string>& policies);

  std::vector<variant>& variants() noexcept { return variants_; }
  // The run's params: size, blocks, flags, bytes per prefix sum, page homes.
  cws_apps::json params() const;

  // The variant's array, first touched by its own init pass, untimed: its
  // workers are the blocks' first touchers (the audit's reference).
  void prepare(variant& v);
  // One run: the init pass, then the prefix sum (reduce, offsets, scan),
  // timed as one call sequence: the wall clock around all of it.
  void one_run(variant& v, cws_apps::phase_timer& t);
  // The timings (median_s: the prefix sum) and GB/s.
  void put_timings(const variant& v, const cws_apps::phase_timer& t, cws_apps::json& e) const;
  // The figures of a cws variant: schedules, passes, locality, and the
  // follow check, which adds a note to `notes` when the replay failed.
  void report_cws(const variant& v, cws_apps::json& e, std::vector<std::string>& notes) const;
  // The ratios, the table and its notes, the mismatches: the exit code.
  int conclude(cws_apps::variant_runner& runner) const;

 private:
  double run_pass(variant& v, pass_id p);
  void log_pass(variant& v, pass_id p, std::optional<unsigned> run, bool measured) const;

  cws_apps::bench_env& env_;
  const options& opt_;
  std::vector<std::string> policies_;
  std::size_t blocks_ = 0;
  double bytes_ = 0;                // of the array
  cws_apps::locality_tally tally_;  // an observer of the runtime: the suite cannot be copied
  std::vector<variant> variants_;
};

}  // namespace prefix
