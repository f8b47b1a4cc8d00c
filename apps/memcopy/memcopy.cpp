// cws-memcopy: the SC14 motivating example. Two arrays are initialized in
// parallel (phase "init") and then copied in parallel (phase "copy"). Under
// random work stealing the copy runs on other workers than the ones that
// first-touched the pages; OpenMP static gives both loops the same
// iteration -> thread mapping. The variants (memcopy/copy_suite.hpp)
// separate the effects of page placement, of loop scheduling and of moving
// the pages; the table shows the copy's local share, the pages moved and the
// relocalization time per variant.
//
// The variants run in interleaved rounds by default (common/rounds.hpp):
// every variant's arrays are set up first and live until its report, so the
// runs of the others come between two runs of one variant. They touch other
// arrays only: evolve's relocalized pages stay where it put them.

#include <cstddef>
#include <string>
#include <vector>

#include "common/bounded_option.hpp"
#include "common/suite_hooks.hpp"
#include "memcopy/copy_suite.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Parallel init + copy of two arrays (SC14 memcopy): cws vs TBB vs OpenMP static", "cws-memcopy"};
  memcopy::options o;
  cws_apps::add_bounded_option(app, "--mb", o.mib, "Size of each array in MiB", std::size_t{1}, std::size_t{1} << 20);
  // Large leaves matter here: glibc's memset/memcpy switch to non-temporal
  // stores only for large blocks, and OpenMP static hands each thread one block.
  cws_apps::add_bounded_option(app, "--grain", o.grain,
                               "Elements per leaf of the cws, TBB and OpenMP loops (0: elements / (2 x workers))",
                               std::size_t{0}, std::size_t{1} << 40);
  cws_apps::add_evolve_init_option(app, o.evolve_init);
  const CLI::Option* follow_opt =
      app.add_flag("--follow-init,!--no-follow-init", o.follow_init,
                   "Schedule follows data: the copy phase replays the steal tree recorded by the init phase "
                   "(schedule::follow), so each block is copied where init first-touched it. Default: on for "
                   "stows, stuws and relws; off for evolve (whose copy gets its own schedule and relocalized "
                   "pages), random and user");
  cws_apps::add_common_options(app, o.common);
  cws_apps::add_phase_timeline_option(app, o.common);
  const cws_apps::policies_option policies(
      app, o.common, {"random", "stows", "evolve"},
      "Comma-separated cws policies: random gives cws-random-firsttouch, -prefault and -interleave; evolve gives "
      "cws-evolve (own copy schedule, pages relocalized by evolve); any other policy P gives cws-P (copy follows "
      "init for stows, stuws, relws)");
  cws_apps::add_order_option(app, o.common,
                             "interleaved: 2 arrays of --mb per variant (8 variants with the default policies: "
                             "4 GiB at --mb 256); sequential: 2 arrays");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    cws_apps::bench_env env(o.common);
    o.follow_given = follow_opt->count() > 0;
    memcopy::copy_suite suite(env, o, policies.chosen());
    cws_apps::report out("memcopy", env, suite.params());
    cws_apps::variant_runner runner(env, o.common, out, app.get_name());
    // Untimed: a pattern in A, one more copy with the variant's own loop, compare.
    const auto verify = [&](memcopy::variant& v) {
      const std::size_t n = suite.elements();
      double* a = v.m.a.data();
      const double* b = v.m.b.data();
      for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<double>(i);
      suite.run_loop(v, memcopy::copy_phase);
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) ok = ok && b[i] == static_cast<double>(i);
      return ok;
    };
    runner.measure(suite.variants(),
                   cws_apps::suite_object_hooks(suite, [&](memcopy::variant& v, const cws_apps::phase_timer& t,
                                                           cws_apps::json& e, std::vector<std::string>& wrong) {
                     // The copy's breakdown, read before the verification's copy adds to it.
                     const cws_apps::cws_phase_clock copy_clock = v.loops->clock(memcopy::copy_phase);
                     const bool ok = verify(v);
                     if (!ok && wrong.empty()) wrong.push_back("a variant produced a wrong copy");
                     suite.put_figures(v, t, e);
                     e["verified"] = ok;
                     if (v.runs_cws()) suite.report_cws(v, e, copy_clock, runner.notes());
                     v.m = memcopy::arrays{};  // under --order sequential the next variant's arrays take their place
                   }));
    return suite.conclude(runner);
  });
}
