#pragma once
// The variants of cws-lulesh and what each keeps from its first run to its
// last:
//
//   serial             every loop one plain call: the reference
//   cws-hinted .. cws-evolve-hinted
//                      PufferFish's cws variants (common/hinted_variants.hpp),
//                      every loop its own schedule "<bench>/<variant>/<loop>";
//                      the setup loops under the variant's policy, except
//                      evolve's, which run under random (it never moves pages)
//   cws-evolve-follow  schedule follows data: one leader loop per extent
//                      learns under evolve and declares every array of its
//                      extent; the other loops over the same items replay its
//                      template (stows)
//   tbb                simple_partitioner, the same grain
//   omp-static         schedule(static) over the same blocks
//
// A variant's mesh is made by prepare() in its own placement and written by
// its own setup loops before every run, outside the timed region.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cws/cws.hpp>

#include "common/bench_env.hpp"
#include "common/hinted_recursion.hpp"
#include "common/timing.hpp"
#include "lulesh/domain.hpp"
#include "lulesh/runners.hpp"
#include "lulesh/simulation.hpp"

namespace lulesh {

// The options of a run.
struct problem {
  std::size_t edge = 16;                   // elements per edge of the cube
  std::string recursion_name = "regular";  // or "irregular" (lulesh-ir)
  std::string initial_name = "2.0";        // or "1.0"
  grain_rule grain;
  std::int64_t max_cycles = 0;  // 0: to the stop time

  cws_apps::recursion shape() const noexcept;
  initial_conditions start() const noexcept;
  std::string bench() const;  // "lulesh" or "lulesh-ir"
  std::size_t elements() const noexcept { return edge * edge * edge; }
  std::size_t nodes() const noexcept { return (edge + 1) * (edge + 1) * (edge + 1); }
};

enum class flavour { serial, cws, tbb, omp };

struct variant {
  std::string name;
  flavour kind = flavour::serial;
  std::string policy{};       // cws: the loops' policy
  std::string init_policy{};  // cws: the setup loops' policy
  cws::numa::placement placement = cws::numa::first_touch;
  bool follow = false;  // cws: the loops follow their extent's leader (schedule follows data)
  std::unique_ptr<loop_runner> loops{};
  cws_runner* cws = nullptr;  // loops, when kind == cws
  // From prepare to the variant's last run:
  std::unique_ptr<domain> dom{};
  std::vector<outcome> outcomes{};  // of the measured runs
};

// The leaders of cws-evolve-follow: the first loop of a cycle over each extent.
inline constexpr loop_id element_leader = loop_id::stress_init;
inline constexpr loop_id node_leader = loop_id::stress_gather;

// The variants --variants chooses from (serial always runs).
std::vector<std::string> variant_names();

// serial, then the chosen variants in the order above, each with its loop
// runner; the cws ones with their schedules, created here so that an
// unknown policy throws before anything runs.
std::vector<variant> make_variants(cws_apps::bench_env& env, const problem& p, const std::vector<std::string>& chosen);

// The variant's mesh, in its placement (the leaders of a following variant
// declare every array of their extent).
void prepare(variant& v, const problem& p);

// One run: the setup (untimed), then the simulation timed as "run"; a
// measured run's outcome is kept.
void one_run(variant& v, const problem& p, cws_apps::phase_timer& t);

}  // namespace lulesh
