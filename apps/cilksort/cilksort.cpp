// cws-cilksort: PufferFish's CilkSort benchmark, done right. Sorts n 64-bit
// integers with Frigo's cilksort (recursion.hpp: 4-way mergesort, parallel
// divide-and-conquer merges, cutoffs 1024) under every runtime, with the
// PufferFish hints on every spawn, and checks every sorted output (order and
// multiset digest against the generator's) on every run of every variant.
//
// A run writes the input (untimed; a pure function of seed and index, over
// the same blocks in every variant), sorts it (timed), checks it. The sort
// is one-shot: --runs repeats it on a fresh copy of the same input (or a new
// one each time with --vary-input), so a replaying policy (evolve) meets the
// same data-dependent tree again, or a different one.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "cilksort/cws_figures.hpp"
#include "cilksort/variants.hpp"
#include "common/bench_env.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"

namespace {

constexpr std::size_t page_values = 4096 / sizeof(cilksort::value);

std::vector<std::string> variant_names() {
  std::vector<std::string> names;
  for (const cilksort::variant_spec& s : cilksort::all_variants()) names.emplace_back(s.name);
  return names;
}

// Parses like cws_apps::run_main, except that a bad command line is one
// line "cws-cilksort: error: ..." and exit code 2, like a cws error.
template <class Body>
int run_main(CLI::App& app, int argc, char** argv, Body&& body) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return cws_apps::report_error(app.get_name(), e.what(), 2);
  }
  return cws_apps::guarded(app.get_name(), std::forward<Body>(body));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"CilkSort (PufferFish, Frigo's cilksort): cws hinted and random policies vs TBB vs OpenMP tasks",
               "cws-cilksort"};
  cws_apps::common_options opt;
  cilksort::problem p;
  p.n = std::size_t{1} << 22;
  bool paper_size = false, quiet = false;
  std::string hints = "pieces";
  std::vector<std::string> chosen = variant_names();
  app.add_option("--size", p.n, "Values (64-bit) to sort")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 34))
      ->capture_default_str();
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
  app.add_option("--quick-size", p.quick_size,
                 "Ranges shorter than this are sorted serially (std::sort); PufferFish: 1024")
      ->check(CLI::Range(std::size_t{4}, std::size_t{1} << 34))
      ->capture_default_str();
  app.add_option("--merge-size", p.merge_size,
                 "Merges whose shorter run is shorter than this are serial (std::merge); PufferFish: 1024")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 34))
      ->capture_default_str();
  app.add_option("--merge-hints", hints,
                 "Hints of a merge task: pieces (its two input runs and its output range, three hints whose pages "
                 "find_place counts per node) or envelope (one range from the lowest to the highest input index, as "
                 "the PufferFish port)")
      ->check(CLI::IsMember({"pieces", "envelope"}))
      ->capture_default_str();
  app.add_option("--variants", chosen, "Comma-separated variants to run (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(variant_names()));
  app.add_flag("--corrupt-output", p.corrupt_output,
               "Test only: damage every sorted output before it is checked (the run must then fail, exit 1)");
  app.add_flag("-q,--quiet", quiet, "No per-sort lines of the cws variants, only the table");
  cws_apps::add_common_options(app, opt);
  app.remove_option(app.get_option("--policy"));  // the variants name their policies
  app.get_option("--iters")->description(
      "Sorts per measured run, each on a freshly written input; a sample is their mean");
  cws_apps::add_order_option(app, opt,
                             "interleaved: 2 arrays of --size values per variant (1 for std-sort and "
                             "tbb-parallel-sort; 704 MiB for all 11 at the default size); sequential: one variant's");

  return run_main(app, argc, argv, [&]() -> int {
    if (paper_size) p.n = std::size_t{1} << 30;
    p.iters = opt.iters;
    p.hints = hints == "envelope" ? cilksort::merge_hints::envelope : cilksort::merge_hints::pieces;
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();
    cws_apps::locality_tally tally(rt);
    // The input writer's blocks: 16 per worker, in whole pages.
    const std::size_t per_block = (p.n + 16 * std::size_t{env.workers()} - 1) / (16 * std::size_t{env.workers()});
    p.block = std::max<std::size_t>(1, (per_block + page_values - 1) / page_values) * page_values;

    // All schedules exist before anything runs: an unknown policy fails at once (exit 2).
    std::vector<cilksort::variant> variants;
    for (const cilksort::variant_spec& s : cilksort::all_variants()) {
      if (std::find(chosen.begin(), chosen.end(), s.name) == chosen.end()) continue;
      cilksort::variant v{.spec = s, .name = std::string(s.name)};
      if (v.is_cws()) {
        const std::string suffix = v.name.substr(4);
        v.sort_schedule = &rt.schedule("cilksort/" + suffix, s.policy);
        // The input writer of the block placements runs hinted (each block on
        // its home node, as PufferFish's initializer); the others at random
        // (a first-touch array's pages go where random stealing puts them).
        v.init_schedule =
            &rt.schedule("cilksort-init/" + suffix,
                         s.placement == cws::numa::block_cyclic ? cws::policy::hinted : cws::policy::random);
      }
      variants.push_back(std::move(v));
    }

    cilksort::expected_digests expected(p.n);
    const cilksort::digest& first = expected.of(p.input);
    const double bytes = static_cast<double>(p.n * sizeof(cilksort::value));
    std::vector<std::string> names;
    for (const cilksort::variant& v : variants) names.push_back(v.name);
    cws_apps::report out(
        "cilksort", env,
        {{"size", p.n},
         {"bytes_per_array", bytes},
         {"seed", p.input.seed},
         {"value_range", p.input.range},
         {"vary_input", p.vary_input},
         {"quick_size", p.quick_size},
         {"merge_size", p.merge_size},
         {"merge_hints", hints},
         {"input_block", p.block},
         {"input_blocks", p.blocks()},
         {"iters", opt.iters},
         {"runs", opt.plan.runs},
         {"warmup", opt.plan.warmup},
         {"order", cws_apps::to_string(opt.plan.order)},
         {"variants", names},
         {"corrupt_output", p.corrupt_output},
         {"input_digest",
          {{"count", first.count}, {"sum", first.sum}, {"xor", first.xor_all}, {"hashed_sum", first.mixed_sum}}},
         {"page_homes", rt.page_homes().name()}});

    std::vector<std::pair<std::string, std::vector<cws_apps::iteration_line>>> line_blocks;
    const auto prepare = [&](cilksort::variant& v) { cilksort::prepare(v, env, p); };
    const auto run = [&](cilksort::variant& v, cws_apps::phase_timer& t) { cilksort::one_run(v, env, p, expected, t); };
    const auto finish = [&](cilksort::variant& v, const cws_apps::phase_timer& timer) {
      cws_apps::json& e = out.add(v.name);
      cws_apps::put_timing(e, timer["sort"]);  // median_s / min_s: one sort
      cws_apps::put_timing(e, timer["init"], "init_");
      e["sorts_checked"] = v.checked;
      e["verified"] = v.failure.empty();
      if (!v.failure.empty()) e["verify_error"] = v.failure;
      if (v.is_cws()) {
        auto lines = cilksort::sort_lines(rt, tally, v, opt.plan, opt.iters);
        cilksort::put_cws_figures(e, v, tally, lines);
        line_blocks.emplace_back(
            fmt::format("{}: schedule \"{}\" (policy {}, arrays {}), one line per sort, warm-up first", v.name,
                        v.sort_schedule->name(), v.spec.policy, cws::numa::to_string(v.spec.placement)),
            std::move(lines));
      }
      v.a.reset();
      v.t.reset();
    };
    cws_apps::measure_variants(variants, opt.plan, prepare, run, finish);
    out.add_ratio("ratio_vs_std_sort", "median_s", "std-sort");
    out.add_ratio("ratio_vs_serial", "median_s", "serial");
    out.add_ratio("ratio_vs_random_ft", "median_s", "cws-random-ft");
    out.add_ratio("ratio_vs_tbb", "median_s", "tbb-task-group");

    env.save_trace();
    if (!opt.json && !quiet)
      for (const auto& [title, lines] : line_blocks) {
        cilksort::print_sort_lines(title, lines);
        fmt::print("\n");
      }
    out.print(opt.json,
              fmt::format("cws-cilksort: {} int64 ({:.1f} MiB per array), {} input{}, cutoffs {}/{}, {} merge hints, "
                          "{} sort{} per run, {} runs (+{} warm-up)",
                          p.n, bytes / (1 << 20),
                          p.input.range ? fmt::format("values in [0, {})", p.input.range) : "64-bit random",
                          p.vary_input ? " (new for every sort)" : "", p.quick_size, p.merge_size, hints, opt.iters,
                          opt.iters == 1 ? "" : "s", opt.plan.runs, opt.plan.warmup),
              {{"variant", "variant"},
               {"ms", "median_s", 1e3, 2},
               {"min ms", "min_s", 1e3, 2},
               {"vs std", "ratio_vs_std_sort", 1, 2},
               {"vs serial", "ratio_vs_serial", 1, 2},
               {"vs rnd-ft", "ratio_vs_random_ft", 1, 2},
               {"vs tbb", "ratio_vs_tbb", 1, 2},
               {"tasks", "tasks", 1, 0},
               {"steals", "steals", 1, 1},
               {"leaf", "hinted_leaf", 1, 0},
               {"node", "hinted_node", 1, 0},
               {"root", "hinted_root", 1, 0},
               {"het %", "het_share", 100, 1},
               {"place st", "place_steals", 1, 1},
               {"local %", "local_share", 100, 1},
               {"div", "diverged_runs"},
               {"ok", "verified"}},
              {"ms: median over runs of the wall clock around one sort (rt.run, the TBB call, the OpenMP region, the "
               "plain call); writing the input and checking the output are outside it; 'vs' columns are time ratios "
               "(lower is better);",
               "tasks .. place st: means per measured sort; leaf / node / root: hinted spawns find_place sent to the "
               "spawner's leaf, another node's place, the root; het %: share of them HET ran inline;",
               fmt::format("local %: mean over the measured sorts of the share of the declared bytes (the leaves' "
                           "hints) on a page homed on the toucher's node (page homes: {}); div: diverged sorts, "
                           "warm-up included;",
                           rt.page_homes().name()),
               "ok: every sorted output non-decreasing with the input's multiset digest (count, sum, xor, hashed "
               "sum)"});

    std::vector<const cilksort::variant*> failed;
    for (const cilksort::variant& v : variants)
      if (!v.failure.empty()) failed.push_back(&v);
    if (failed.empty()) return 0;
    std::string line = fmt::format("{}: {}", failed.front()->name, failed.front()->failure);
    if (failed.size() > 1) line += fmt::format(" (and {} more variant(s) failed)", failed.size() - 1);
    cws_apps::report_error(app.get_name(), line.c_str(), 1);
    return 1;
  });
}
