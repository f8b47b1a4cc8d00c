#pragma once
// The variants of cws-memcopy and what one run of each does, on the common
// variant runner (common/variant_runner.hpp). Two arrays are initialized in
// parallel (phase "init") and then copied in parallel (phase "copy"); the
// variants separate the effects of page placement (first touch, pre-faulted,
// interleaved), of loop scheduling and of moving the pages:
//
//   cws-random-firsttouch  fresh arrays every run, first touched by init (random)
//   cws-random-prefault    arrays faulted in once by the main thread
//   cws-random-interleave  arrays interleaved over the nodes
//   cws-stows              schedule follows data (SC14, DESIGN §5): the copy
//                          replays the steal tree init recorded (schedule::follow),
//                          so each block is copied by the worker that first touched it
//   cws-evolve             the copy has its own evolve schedule; evolve moves the
//                          pages to where that schedule runs them (relocalization)
//                          after each run that becomes its template
//   tbb-auto, tbb-affinity, omp-static on pre-faulted arrays
//
// The cws loops' leaves declare what they touch (cws::touch of a[lo, hi) and
// b[lo, hi)), so every cws phase gets a locality report and relocalization
// knows the pages.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/variant_runner.hpp"

namespace memcopy {

enum phase_id { init_phase = 0, copy_phase = 1 };

struct options {
  cws_apps::common_options common;
  std::size_t mib = 256;  // per array
  std::size_t grain = 0;  // 0: elements / (2 x workers)
  std::string evolve_init = "random";
  bool follow_init = false;
  bool follow_given = false;  // --follow-init or --no-follow-init on the command line
};

// When a variant's arrays are allocated and first written.
enum class pages_kind {
  fresh,     // a fresh allocation every run: the run's init phase does the first touch
  prefault,  // allocated once, faulted in by the main thread (prefault_zero) before the runs
  once,      // allocated once, first touched by one untimed init phase of the variant before the runs
};

struct arrays {
  cws::numa::array<double> a, b;
};

struct variant {
  std::string name;
  cws_apps::loop_flavour loop;
  cws::numa::placement placement;
  pages_kind pages;
  // cws variants only:
  std::string policy{};       // of the copy schedule
  std::string init_policy{};  // of the init schedule
  cws::schedule* schedules[2] = {};
  // What persists across the runs, from the variant's set-up to its report:
  std::unique_ptr<cws_apps::block_loops> loops{};
  arrays m{};
  std::uint64_t first_init = 0, first_copy = 0;  // schedule iterations before the first warm-up run

  bool runs_cws() const noexcept { return loops->runs_cws_phases(); }
};

class copy_suite {
 public:
  // Settles the default grain and creates every variant, its schedules and
  // its loops, so an unknown policy fails before anything runs.
  copy_suite(cws_apps::bench_env& env, options& o, const std::vector<std::string>& policies);

  std::vector<variant>& variants() noexcept { return variants_; }
  std::size_t elements() const noexcept { return n_; }
  // The run's params: sizes, policies, page homes, the run plan.
  cws_apps::json params() const;

  // Arrays placed once are allocated and first touched before the runs; the
  // schedules' iteration counts after that mark the first warm-up run.
  void prepare(variant& v);
  // One run: fresh arrays if the variant wants them, one init, --iters copies.
  void one_run(variant& v, cws_apps::phase_timer& t);
  // One run of the variant's init (A = B = 0) or copy (B = A) loop over its
  // current arrays; returns the seconds that count (block_loops::run).
  double run_loop(variant& v, phase_id ph);

  // The timings (median_s: the copy), GB/s and the pages' placement.
  void put_figures(const variant& v, const cws_apps::phase_timer& t, cws_apps::json& e) const;
  // The figures only cws variants have: schedules, locality, pages moved,
  // every copy phase; `copy_clock` is the copy's breakdown over the measured
  // runs. A copy that follows init is relocalized once more (untimed), with
  // a note to `notes`.
  void report_cws(const variant& v, cws_apps::json& e, const cws_apps::cws_phase_clock& copy_clock,
                  std::vector<std::string>& notes) const;
  // The ratio, the table and its notes, the mismatches: the exit code.
  int conclude(cws_apps::variant_runner& runner) const;

 private:
  void add_cws(std::string name, cws::numa::placement where, pages_kind pages, const std::string& policy,
               const std::string& init_policy, bool follow);
  arrays allocate(const variant& v) const;
  cws_apps::json copy_phases(const variant& v, std::uint64_t measured, std::uint64_t end) const;

  cws_apps::bench_env& env_;
  const options& opt_;
  std::vector<std::string> policies_;
  std::size_t n_ = 0;               // elements per array
  double bytes_ = 0;                // per array
  cws_apps::locality_tally tally_;  // an observer of the runtime: the suite cannot be copied
  std::vector<variant> variants_;
};

}  // namespace memcopy
