#include "cilksort/results.hpp"

#include <fmt/format.h>

namespace cilksort {

namespace {

double bytes_per_array(const problem& p) { return static_cast<double>(p.n * sizeof(value)); }

}  // namespace

cws_apps::json params(const problem& p, const cws_apps::common_options& opt, const std::vector<variant>& variants,
                      const digest& first, cws::runtime& rt) {
  std::vector<std::string> names;
  for (const variant& v : variants) names.push_back(v.name);
  cws_apps::json params = {{"size", p.n},
                           {"bytes_per_array", bytes_per_array(p)},
                           {"seed", p.input.seed},
                           {"value_range", p.input.range},
                           {"vary_input", p.vary_input},
                           {"quick_size", p.quick_size},
                           {"merge_size", p.merge_size},
                           {"merge_hints", p.hints_name},
                           {"input_block", p.block},
                           {"input_blocks", p.blocks()},
                           {"iters", opt.iters}};
  params.update(cws_apps::plan_params(opt.plan));
  params["variants"] = names;
  params["corrupt_output"] = p.corrupt_output;
  params["input_digest"] = {
      {"count", first.count}, {"sum", first.sum}, {"xor", first.xor_all}, {"hashed_sum", first.mixed_sum}};
  params["page_homes"] = rt.page_homes().name();
  return params;
}

void put_entry(cws_apps::json& e, const variant& v, const cws_apps::phase_timer& t) {
  cws_apps::put_timing(e, t["sort"]);
  cws_apps::put_timing(e, t["init"], "init_");
  e["sorts_checked"] = v.checked;
  e["verified"] = v.failure.empty();
  if (!v.failure.empty()) e["verify_error"] = v.failure;
}

const std::vector<cws_apps::ratio_spec>& ratios() {
  static const std::vector<cws_apps::ratio_spec> r = {{"ratio_vs_std_sort", "median_s", "std-sort"},
                                                      {"ratio_vs_serial", "median_s", "serial"},
                                                      {"ratio_vs_random_ft", "median_s", "cws-random-ft"},
                                                      {"ratio_vs_tbb", "median_s", "tbb-task-group"}};
  return r;
}

void print_table(const cws_apps::report& out, const problem& p, const cws_apps::common_options& opt, cws::runtime& rt) {
  out.print(opt.json,
            fmt::format("cws-cilksort: {} int64 ({:.1f} MiB per array), {} input{}, cutoffs {}/{}, {} merge hints, "
                        "{} sort{} per run, {} runs (+{} warm-up)",
                        p.n, bytes_per_array(p) / (1 << 20),
                        p.input.range ? fmt::format("values in [0, {})", p.input.range) : "64-bit random",
                        p.vary_input ? " (new for every sort)" : "", p.quick_size, p.merge_size, p.hints_name,
                        opt.iters, opt.iters == 1 ? "" : "s", opt.plan.runs, opt.plan.warmup),
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
}

}  // namespace cilksort
