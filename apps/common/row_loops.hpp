#pragma once
// The variants of PufferFish's row benchmarks (cws-sor, cws-srad) and the
// loops that run them: every variant splits the same row range into leaves
// of `tile` rows and runs the same leaf code; only who splits and who runs
// the leaves differs.
//
//   runner::cws          cws_apps::hinted_for (PufferFish's regular or
//                        irregular recursion, a hint on every child) inside
//                        rt.run of the phase's schedule
//   runner::tbb_simple   tbb::parallel_for, simple_partitioner, grain = tile:
//                        the same binary splitter as the regular recursion
//                        (TBB halves a blocked_range at begin + size / 2
//                        while size > grain)
//   runner::tbb_affinity the same with one affinity_partitioner per phase,
//                        kept across runs (it replays the previous mapping)
//   runner::omp_static   #pragma omp parallel for schedule(static) over the
//                        blocks of `tile` rows (each thread one contiguous share)
//   runner::serial       body(lo, hi) on the calling thread
//
// Timing is the wall clock around the call the user makes (rt.run, the TBB
// call in the arena, the OpenMP region, the plain call); for cws the phase's
// own wall_s is kept apart as a breakdown (cws_phase_clock).

#include <algorithm>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cws/cws.hpp>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include "common/bench_env.hpp"
#include "common/hinted_recursion.hpp"
#include "common/timing.hpp"

namespace pufferfish {

enum class runner { serial, cws, tbb_simple, tbb_affinity, omp_static };

// One variant of the table below.
struct variant_kind {
  std::string name;
  runner how = runner::serial;
  std::string policy;       // cws: the policy of the kernel phases
  std::string init_policy;  // cws: the policy of the init phase
  cws::numa::placement placement = cws::numa::first_touch;
};

// serial; cws-hinted, cws-hinted-hpt (block_cyclic); cws-random-ft
// (first_touch), cws-random-il (interleaved); cws-evolve (first_touch, init
// under random, which never moves pages); cws-evolve-hinted (block_cyclic,
// init under hinted); tbb-simple, tbb-affinity, omp-static (first touch by
// their own init loop).
const std::vector<variant_kind>& variant_table();

// The names of variant_table(), comma-separated (for help texts).
std::string variant_names();

// The variants named in `names` (in the table's order; empty: all), keeping
// only the cws variants whose kernel policy is `policy` when it is not empty.
// Throws cws::error naming an unknown variant or policy, or when the two
// leave no variant.
std::vector<variant_kind> choose_variants(const std::vector<std::string>& names, const std::string& policy);

// The variant's kernel policy replays recorded trees (evolve, evolve-hinted),
// so its second kernel phase may follow the first one's template.
bool learns_trees(const variant_kind& v) noexcept;

// "regular" / "irregular".
const char* to_string(cws_apps::recursion r) noexcept;

// The hint of a child over rows [lo, hi) of `a`, an array of rows of `cols`
// elements: all of those rows.
template <class T>
auto rows_hint(const cws::numa::array<T>& a, std::size_t cols) {
  return [&a, cols](std::size_t lo, std::size_t hi) { return cws::hint(a, lo * cols, hi * cols); };
}

class row_loops {
 public:
  // `schedules`: one per phase for the cws runner (nullptr otherwise; only
  // the count matters).
  row_loops(cws_apps::bench_env& env, runner how, cws_apps::recursion shape, std::size_t tile,
            std::vector<cws::schedule*> schedules)
      : env_(env),
        how_(how),
        shape_(shape),
        tile_(std::max<std::size_t>(tile, 1)),
        schedules_(std::move(schedules)),
        affinity_(std::make_unique<tbb::affinity_partitioner[]>(schedules_.size())),
        clocks_(schedules_.size()) {
    if (how_ == runner::cws)
      for (const cws::schedule* s : schedules_)
        if (s == nullptr) throw std::logic_error("row_loops: the cws runner needs a schedule per phase");
  }

  // Runs loop `phase` once over rows [lo, hi): body(a, b) on leaves of at most
  // `tile` rows; hint_of(a, b) is the hint of a cws child over [a, b).
  // Returns the wall-clock seconds of the call.
  template <class HintOf, class Body>
  double run(std::size_t phase, std::size_t lo, std::size_t hi, const HintOf& hint_of, const Body& body) {
    const std::size_t tile = tile_;
    auto tbb_body = [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); };
    switch (how_) {
      case runner::serial:
        return cws_apps::seconds_of([&] { body(lo, hi); });
      case runner::cws:
        return clocks_.at(phase).run([&]() -> const cws::run_report& {
          return env_.rt().run(*schedules_.at(phase),
                               [&] { cws_apps::hinted_for(shape_, lo, hi, tile, hint_of, body); });
        });
      case runner::tbb_simple:
        return cws_apps::seconds_of([&] {
          env_.in_tbb([&] {
            tbb::parallel_for(tbb::blocked_range<std::size_t>(lo, hi, tile), tbb_body, tbb::simple_partitioner());
          });
        });
      case runner::tbb_affinity: {
        tbb::affinity_partitioner& affinity = affinity_[phase];
        return cws_apps::seconds_of([&] {
          env_.in_tbb([&] { tbb::parallel_for(tbb::blocked_range<std::size_t>(lo, hi, tile), tbb_body, affinity); });
        });
      }
      case runner::omp_static: {
        const std::size_t blocks = hi > lo ? (hi - lo + tile - 1) / tile : 0;
        return cws_apps::seconds_of([&] {
#pragma omp parallel for schedule(static)
          for (std::size_t k = 0; k < blocks; ++k) body(lo + k * tile, std::min(hi, lo + (k + 1) * tile));
        });
      }
    }
    return 0;
  }

  // Call at the start of every run: the clocks then cover the measured runs only.
  void begin_run(const cws_apps::phase_timer& t) {
    if (t.recording() && !measuring_) {
      for (cws_apps::cws_phase_clock& c : clocks_) c.reset();
      measuring_ = true;
    }
  }
  const cws_apps::cws_phase_clock& clock(std::size_t phase) const { return clocks_.at(phase); }
  runner how() const noexcept { return how_; }
  bool runs_cws_phases() const noexcept { return how_ == runner::cws; }

 private:
  cws_apps::bench_env& env_;
  runner how_;
  cws_apps::recursion shape_;
  std::size_t tile_;
  std::vector<cws::schedule*> schedules_;
  std::unique_ptr<tbb::affinity_partitioner[]> affinity_;  // one per phase (not movable, hence the array)
  std::vector<cws_apps::cws_phase_clock> clocks_;
  bool measuring_ = false;
};

}  // namespace pufferfish
