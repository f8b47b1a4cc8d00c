// cws-cilksort: PufferFish's CilkSort benchmark. Sorts n 64-bit integers with
// Frigo's cilksort (recursion.hpp: 4-way mergesort, parallel merges, cutoffs
// 1024) under every variant (cilksort/variants.hpp, measured by
// common/variant_runner.hpp), the PufferFish hints on every spawn. A run
// writes the input (untimed, the same blocks in every variant), sorts it
// (timed) and checks it: non-decreasing, with the generator's multiset
// digest. --runs repeats the one-shot sort on the same input (or a new one
// with --vary-input), so a replaying policy meets the same data-dependent
// tree again, or a different one.

#include <string>
#include <vector>

#include "cilksort/cws_figures.hpp"
#include "cilksort/results.hpp"
#include "cilksort/variants.hpp"
#include "common/bounded_option.hpp"
#include "common/locality_tally.hpp"
#include "common/variant_runner.hpp"

int main(int argc, char** argv) {
  CLI::App app{"CilkSort (PufferFish, Frigo's cilksort): cws hinted and random policies vs TBB vs OpenMP tasks",
               "cws-cilksort"};
  cws_apps::common_options opt;
  cilksort::problem p;
  bool paper_size = false, quiet = false;
  std::vector<std::string> chosen = cilksort::variant_names();
  const std::size_t most = std::size_t{1} << 34;  // values, and so the largest cut-off that means anything
  cws_apps::add_bounded_option(app, "--size", p.n, "Values (64-bit) to sort", std::size_t{1}, most);
  app.add_flag("--paper-size", paper_size, "Sort 2^30 values (8 GiB per array), as the paper; use --order sequential")
      ->excludes("--size");
  app.add_option("--seed", p.input.seed, "Seed of the input generator")->capture_default_str();
  app.add_option("--value-range", p.input.range,
                 "0: values over the whole 64-bit range; k: values in [0, k) (k much smaller than --size: mostly "
                 "duplicates)")
      ->capture_default_str();
  app.add_flag("--vary-input", p.vary_input,
               "A new input (seed + sort number) for every sort instead of the same one, so a replayed template "
               "meets a different tree");
  cws_apps::add_bounded_option(app, "--quick-size", p.quick_size,
                               "Ranges shorter than this are sorted serially (std::sort); PufferFish: 1024",
                               std::size_t{4}, most);
  cws_apps::add_bounded_option(
      app, "--merge-size", p.merge_size,
      "Merges whose shorter run is shorter than this are serial (std::merge); PufferFish: 1024", std::size_t{1}, most);
  cws_apps::add_checked_option(app, "--merge-hints", p.hints_name,
                               "Hints of a merge task: pieces (its two input runs and its output range, three hints "
                               "whose pages find_place counts per node) or envelope (one range from the lowest to the "
                               "highest input index, as the PufferFish port)",
                               CLI::IsMember({"pieces", "envelope"}));
  cws_apps::add_variants_option(app, chosen, "Comma-separated variants to run (default: all)", false);
  app.add_flag("--corrupt-output", p.corrupt_output,
               "Test only: damage every sorted output before it is checked (the run must then fail, exit 1)");
  app.add_flag("-q,--quiet", quiet, "No per-sort lines of the cws variants, only the table");
  cws_apps::add_common_options(app, opt);
  cws_apps::add_phase_timeline_option(app, opt);
  app.remove_option(app.get_option("--policy"));  // the variants name their policies
  app.get_option("--iters")->description(
      "Sorts per measured run, each on a freshly written input; a sample is their mean");
  cws_apps::add_order_option(app, opt,
                             "interleaved: 2 arrays of --size values per variant (1 for std-sort and "
                             "tbb-parallel-sort; 704 MiB for all 11 at the default size); sequential: one variant's");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& help) {
    return app.exit(help);
  } catch (const CLI::ParseError& e) {  // one line "cws-cilksort: error: ...", exit code 2, like a cws error
    return cws_apps::report_error(app.get_name(), e.what(), 2);
  }
  return cws_apps::guarded(app.get_name(), [&]() -> int {
    if (paper_size) p.n = std::size_t{1} << 30;
    p.iters = opt.iters;
    cws_apps::bench_env env(opt);
    cws_apps::locality_tally tally(env.rt());
    p.cut_input(env.workers());
    std::vector<cilksort::variant> variants = cilksort::make_variants(env.rt(), chosen);
    cilksort::expected_digests expected(p.n);
    cws_apps::report out("cilksort", env, cilksort::params(p, opt, variants, expected.of(p.input), env.rt()));
    std::vector<cilksort::sort_lines> line_blocks;  // of the cws variants
    cws_apps::variant_runner runner(env, opt, out, app.get_name());
    runner.measure(
        variants,
        {.prepare = [&](cilksort::variant& v) { cilksort::prepare(v, env, p, opt.plan); },
         .one_run = [&](cilksort::variant& v, cws_apps::phase_timer& t) { cilksort::one_run(v, env, p, expected, t); },
         .finish =
             [&](cilksort::variant& v, const cws_apps::phase_timer& t, cws_apps::json& e,
                 std::vector<std::string>& wrong) {
               cilksort::put_entry(e, v, t);
               if (!v.failure.empty()) wrong.push_back(v.name + ": " + v.failure);  // checked by one_run
               if (v.is_cws())
                 line_blocks.push_back(cilksort::put_cws_figures(e, v, tally));
               cilksort::release(v);
             }});
    runner.add_ratios(cilksort::ratios());
    if (!opt.json && !quiet) cilksort::print_sort_lines(line_blocks);
    cilksort::print_table(out, p, opt, env.rt());
    return cws_apps::report_failures(app.get_name(), runner.failures(), " variant(s) failed");
  });
}
