// cws-lulesh: LULESH's Sedov blast problem, PufferFish's lulesh / lulesh-ir
// benchmark. An edge^3 hexahedral mesh, run from the blast to the stop time
// (or --cycles cycles); every cycle is ~28 parallel loops over the elements
// or the nodes (lulesh/loops.hpp), each its own cws schedule, split by
// PufferFish's regular or irregular recursion with a hint at the loop's main
// array on every child (common/hinted_recursion.hpp).
//
// The variants (lulesh/variants.hpp): serial, PufferFish's cws variants,
// cws-evolve-follow, tbb and omp-static; measured by the common variant
// runner (common/variant_runner.hpp), reported by lulesh/results.hpp. A run's
// time is the wall clock around the whole simulation.
//
// Every measured run is verified (lulesh/verification.hpp): same cycle count
// and bitwise the same final origin energy as the serial run, plane 0
// symmetric to 1e-8; the serial run also against LULESH 2.0's published
// values when the size is one it lists. Any failure: one line, exit 1.

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "common/bounded_option.hpp"
#include "common/variant_runner.hpp"
#include "lulesh/results.hpp"
#include "lulesh/variants.hpp"
#include "lulesh/verification.hpp"

int main(int argc, char** argv) {
  CLI::App app{"LULESH (Sedov blast), PufferFish's hinted loops: cws hinted/random/evolve vs TBB vs OpenMP static",
               "cws-lulesh"};
  cws_apps::common_options opt;
  opt.plan.runs = 3;
  lulesh::problem p;
  std::vector<std::string> chosen = lulesh::variant_names();
  cws_apps::add_bounded_option(app, "-s,--size", p.edge,
                               "Elements per edge of the cube (PufferFish's paper: 32; LULESH 2.0's default: 30)",
                               std::size_t{1}, std::size_t{400});
  cws_apps::add_checked_option(
      app, "--recursion", p.recursion_name,
      "PufferFish's loop splitter: regular (binary; bench name lulesh) or irregular (2- and 4-way; lulesh-ir)",
      CLI::IsMember({"regular", "irregular"}));
  cws_apps::add_bounded_option(app, "--factor", p.grain.factor,
                               "PufferFish's grain: a loop over n items has leaves of n / (32 x factor)", 1u, 1u << 20);
  cws_apps::add_bounded_option(app, "--tile", p.grain.tile, "Fixed leaf size of every loop instead (0: use --factor)",
                               std::size_t{0}, std::size_t{1} << 30);
  cws_apps::add_bounded_option(app, "--cycles", p.max_cycles,
                               "Stop after this many cycles (0: run to the stop time, 1e-2 s)", std::int64_t{0},
                               std::int64_t{1} << 40);
  cws_apps::add_checked_option(app, "--initial", p.initial_name,
                               "Initial conditions: 2.0 (LULESH 2.0: blast energy scaled with the size, analytic "
                               "first step; its published results are checked) or 1.0 (LULESH 1.0 and PufferFish's "
                               "port: the 45^3 energy, first step 1e-7)",
                               CLI::IsMember({"2.0", "1.0"}));
  cws_apps::add_variants_option(app, chosen,
                                "Comma-separated variants to run besides serial (always run: the reference)", true);
  cws_apps::add_common_options(app, opt);
  cws_apps::add_phase_timeline_option(app, opt);
  app.remove_option(app.get_option("--iters"));
  app.remove_option(app.get_option("--policy"));
  cws_apps::add_order_option(app, opt, "about 600 bytes per element per variant (8.5 MiB at -s 16, 19 MiB at -s 32)");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    cws_apps::bench_env env(opt);
    std::vector<lulesh::variant> variants = lulesh::make_variants(env, p, chosen);
    cws_apps::report out(p.bench(), env, lulesh::params(p, opt.plan, env.rt()));
    std::optional<lulesh::outcome> reference;  // the serial run's, serial being the first variant finished
    const cws_apps::variant_hooks<lulesh::variant> hooks{
        .prepare = [&](lulesh::variant& v) { lulesh::prepare(v, p); },
        .one_run = [&](lulesh::variant& v, cws_apps::phase_timer& t) { lulesh::one_run(v, p, t); },
        .finish =
            [&](lulesh::variant& v, const cws_apps::phase_timer& t, cws_apps::json& e,
                std::vector<std::string>& wrong) {
              if (v.kind == lulesh::flavour::serial) {
                reference = v.outcomes.back();
                if (auto why = lulesh::against_reference(*reference, p.edge, p.start(), p.max_cycles == 0))
                  wrong.push_back(*why);
              }
              bool verified = true;
              for (std::size_t r = 0; r < v.outcomes.size(); ++r)
                if (auto why = lulesh::mismatch(v.outcomes[r], *reference)) {
                  wrong.push_back(fmt::format("{}, run {}: {}", v.name, r + 1, *why));
                  verified = false;
                }
              lulesh::put_entry(e, v, *reference, verified, t["run"], opt.plan.runs);
              v.dom.reset();  // its memory, before the next variant's in the sequential order
            }};
    cws_apps::variant_runner runner(env, opt, out, app.get_name());
    runner.measure(variants, hooks);
    runner.add_ratios({{"vs_serial", "median_s", "serial"}, {"vs_random_ft", "median_s", "cws-random-ft"}});
    if (!opt.json) lulesh::print_summary(p.edge, *reference);
    lulesh::print_table(out, opt.json, p, *reference, env.rt());
    return cws_apps::report_failures(app.get_name(), runner.failures());
  });
}
