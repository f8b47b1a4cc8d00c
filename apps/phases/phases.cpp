// cws-phases: what one parallel phase costs, from an empty one to one that
// streams two 64 MiB arrays, and what the runtimes' threads burn while the
// program runs serially between phases. cws under each policy of
// --policies, TBB parallel_for with the simple, static and affinity
// partitioners, OpenMP schedule(static), and the serial loop.
//
// One phase = one call the user makes: rt.run(...) around
// cws::parallel_for_range, tbb::parallel_for inside the arena, the OpenMP
// `parallel for` region. Every variant splits the same range into the same
// `--blocks` leaves (default one per worker: the OpenMP static mapping) and
// runs the same leaf code (leaves.hpp, kernel.cpp), a[i] = a[i] * 0.5 + b[i]
// over the first n doubles of two pre-faulted arrays. The empty phase has the
// same leaves with nothing in them: fork and join only.
//
// Times are the wall clock around each single call, so fork, join and
// whatever the runtime does after the workers stopped all count, for every
// runtime alike: per size, a run's sample is the mean of its timed calls
// (sizes.hpp), the figure the median over runs; variants run in interleaved
// rounds (common/rounds.hpp). The runs, the gaps (gap_cpu.hpp) and the
// verification are variants.hpp's; the entries and tables results.hpp's.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/bounded_option.hpp"
#include "common/report.hpp"
#include "phases/results.hpp"
#include "phases/variants.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Cost of one parallel phase (empty to 64 MiB) and CPU burnt between phases: cws vs TBB vs OpenMP static",
               "cws-phases"};
  cws_apps::common_options opt;
  opt.iters = 200;
  phases::options o;
  cws_apps::add_checked_option(app, "--sizes", o.sizes_kib,
                               "Comma-separated phase sizes in KiB per array (0: the empty phase); a phase updates "
                               "that many bytes of a from as many of b",
                               CLI::Range(std::size_t{0}, std::size_t{1} << 22))
      ->delimiter(',');
  cws_apps::add_bounded_option(app, "--blocks", o.blocks,
                               "Leaves per phase, the same for every variant (0: one per worker, the OpenMP static "
                               "mapping)",
                               std::size_t{0}, std::size_t{1} << 16);
  cws_apps::add_checked_option(app, "--gaps-ms", o.gaps_ms,
                               "Comma-separated serial gaps (ms) between empty phases for the CPU-in-gaps figure; the "
                               "caller busy-waits through each",
                               CLI::Range(0.001, 1000.0))
      ->delimiter(',');
  cws_apps::add_bounded_option(app, "--gap-kib", o.gap_kib,
                               "Size of the phases between the gaps, KiB per array (0: empty phases); large enough by "
                               "default that every runtime hands leaves to its threads",
                               std::size_t{0}, std::size_t{1} << 22);
  cws_apps::add_bounded_option(app, "--skew", o.skew_pct,
                               "Leaves of unequal work: leaf j of B gets 1 + S/100 x j/(B-1) shares of the elements, "
                               "the last one S % more than the first (0: equal leaves); an equal count of leaves per "
                               "worker is then not an equal share of the work",
                               0u, 1000u);
  app.add_flag("--no-gaps", o.no_gaps, "Leave out the CPU-in-gaps figure");
  app.add_flag("--touches", o.declare_touches,
               "Every leaf declares the bytes of a and b it uses (cws::touch), so cws phases make a locality report "
               "(the other runtimes ignore the declaration)");
  cws_apps::add_common_options(app, opt);
  cws_apps::add_phase_timeline_option(app, opt);
  app.get_option("--iters")->description(
      "Timed calls per size and run (fewer for large sizes: about 256 MiB of the arrays per size and run, at "
      "least 3); a run's sample is their mean");
  const cws_apps::policies_option policies_opt(app, opt, {"random", "stows", "evolve"},
                                               "Comma-separated cws policies, one cws variant each");
  cws_apps::add_order_option(app, opt, "two arrays of the largest --sizes, shared by every variant, either way");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const std::vector<std::string> policies = policies_opt.chosen();
    const double load_at_start = phases::run_conditions::current_load();
    cws_apps::bench_env env(opt);
    const phases::run_conditions conditions = phases::run_conditions::at_start(load_at_start, env.rt());
    phases::variant_set set(env, o, policies, opt.iters);
    const std::vector<cws_apps::phase_timer> timers = set.measure(opt.plan);

    cws_apps::report out("phases", env, phases::run_params(set, o, opt, policies, conditions));
    const phases::results r = phases::add_results(out, set, timers);
    env.save_trace();
    out.print(opt.json,
              fmt::format("cws-phases: one parallel phase, {} leaves, sizes {} KiB per array, {} runs (+{} warm-up), "
                          "policies {}",
                          set.blocks(), fmt::join(o.sizes_kib, ","), opt.plan.runs, opt.plan.warmup,
                          fmt::join(policies, ",")),
              r.tables, phases::table_notes(set, o, opt.plan, conditions));
    if (!r.all_verified) return cws_apps::report_error(app.get_name(), "a variant computed a wrong checksum", 1);
    return 0;
  });
}
