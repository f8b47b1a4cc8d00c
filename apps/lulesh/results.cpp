#include "lulesh/results.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "common/hinted_counts.hpp"
#include "common/variant_runner.hpp"

namespace lulesh {

namespace {

using cws_apps::json;

double ratio(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}

// The cws figures of a variant: per-run counts, hinted counters, locality, pages moved, what the phases ran as.
void put_cws(json& e, const cws_totals& t, unsigned runs) {
  const double r = runs == 0 ? 1.0 : runs;
  const cws::worker_stats& w = t.work;
  e["phases_per_run"] = static_cast<double>(t.phases) / r;
  e["phase_wall_s"] = t.phase_wall_s / r;
  if (t.timeline.calls() > 0) e["phase_timeline"] = t.timeline.to_json();
  e["tasks_per_run"] = static_cast<double>(w.tasks) / r;
  e["steals_per_run"] = static_cast<double>(w.steals) / r;
  e["failed_steals_per_run"] = static_cast<double>(w.failed_steals) / r;
  e["elided_per_run"] = static_cast<double>(w.elided) / r;
  e["idle_s_per_run"] = w.idle_s / r;
  cws_apps::put_hinted_counts(e, w, [](std::uint64_t total) { return total; });
  e["local_share"] = t.locality_phases == 0 ? json(nullptr) : json(ratio(t.local_bytes, t.touched_bytes));
  e["local_share_min"] = t.locality_phases == 0 ? json(nullptr) : json(t.min_share);
  e["locality_phases"] = t.locality_phases;
  json per_loop = json::object();
  for (std::size_t i = first_cycle_loop; i < loop_count; ++i)
    if (t.loop_touched[i] != 0) per_loop[site(loop_id(i)).name] = ratio(t.loop_local[i], t.loop_touched[i]);
  e["loop_local_share"] = per_loop;
  e["touched_bytes"] = t.touched_bytes;
  e["unknown_bytes"] = t.unknown_bytes;
  e["relocalizations"] = t.relocalizations;
  e["pages_moved"] = t.pages_moved;
  e["relocalization_s"] = t.relocalization_s;
  e["ran_as"] = t.ran_as.by_token();
  e["converged_share"] = t.phases == 0 ? json(nullptr) : json(ratio(t.converged_phases, t.phases));
}

}  // namespace

json params(const problem& p, const cws_apps::run_plan& plan, cws::runtime& rt) {
  const domain probe_shape(1, cws::numa::first_touch);  // for the array count only
  json params = {{"size", p.edge},
                 {"elements", p.elements()},
                 {"nodes", p.nodes()},
                 {"recursion", p.recursion_name},
                 {"factor", p.grain.factor},
                 {"tile", p.grain.tile},
                 {"element_grain", p.grain(p.elements())},
                 {"node_grain", p.grain(p.nodes())},
                 {"max_cycles", p.max_cycles},
                 {"initial", p.initial_name},
                 {"loops_per_cycle", loop_count - first_cycle_loop},
                 {"arrays", probe_shape.array_count()}};
  params.update(cws_apps::plan_params(plan));
  params["page_homes"] = rt.page_homes().name();
  return params;
}

void put_entry(json& e, const variant& v, const outcome& serial, bool verified, const cws_apps::samples& run,
               unsigned runs) {
  const outcome& last = v.outcomes.back();
  e["policy"] = v.kind == flavour::cws ? json(v.policy) : json(nullptr);
  e["init_policy"] = v.kind == flavour::cws ? json(v.init_policy) : json(nullptr);
  e["placement"] = cws::numa::to_string(v.placement);
  if (v.follow) e["leaders"] = {site(element_leader).name, site(node_leader).name};
  e["verified"] = verified;
  e.update(json{{"cycles", last.cycles},
                {"final_time", last.final_time},
                {"origin_energy", last.origin_energy},
                {"symmetry",
                 {{"max_abs_diff", last.sym.max_abs_diff},
                  {"total_abs_diff", last.sym.total_abs_diff},
                  {"max_rel_diff", last.sym.max_rel_diff}}}});
  e["origin_energy_equals_serial"] = last.origin_energy == serial.origin_energy;
  cws_apps::put_timing(e, run);
  e["ms_per_cycle"] = last.cycles > 0 ? run.median() * 1e3 / static_cast<double>(last.cycles) : 0.0;
  if (v.cws) put_cws(e, v.cws->totals(), runs);
}

void print_summary(std::size_t edge, const outcome& serial) {
  fmt::print("Run completed (serial):\n   Problem size        =  {}\n   Iteration count     =  {}\n", edge,
             serial.cycles);
  fmt::print("   Final Origin Energy =  {:12.6e}\n   Testing Plane 0 of Energy Array:\n", serial.origin_energy);
  fmt::print("        MaxAbsDiff   = {:12.6e}\n        TotalAbsDiff = {:12.6e}\n        MaxRelDiff   = {:12.6e}\n\n",
             serial.sym.max_abs_diff, serial.sym.total_abs_diff, serial.sym.max_rel_diff);
}

void print_table(const cws_apps::report& out, bool as_json, const problem& p, const outcome& serial, cws::runtime& rt) {
  const auto published = published_reference(p.edge, p.start());
  out.print(as_json,
            fmt::format("cws-lulesh ({}): Sedov blast, {}^3 elements, {} cycles per run, {} loops per cycle, grain "
                        "{} elements / {} nodes",
                        p.bench(), p.edge, serial.cycles, loop_count - first_cycle_loop, p.grain(p.elements()),
                        p.grain(p.nodes())),
            {{"variant", "variant"},
             {"placement", "placement"},
             {"median s", "median_s", 1, 3},
             {"min s", "min_s", 1, 3},
             {"ms/cycle", "ms_per_cycle", 1, 3},
             {"vs serial", "vs_serial", 1, 2},
             {"vs rnd-ft", "vs_random_ft", 1, 2},
             {"local %", "local_share", 100, 1},
             {"het %", "het_share", 100, 1},
             {"steals/run", "steals_per_run", 1, 0},
             {"ok", "verified"}},
            {"median/min s: one run, from the blast to the stop time (or --cycles), the wall clock around the whole "
             "simulation (every loop's rt.run, TBB or OpenMP call, and the serial time-step updates); setup outside",
             "ok: every measured run has the serial run's cycle count and, bit for bit, its final origin energy, and "
             "plane 0 symmetric to 1e-8 relative",
             published && p.max_cycles == 0
                 ? fmt::format("LULESH 2.0 publishes {} cycles and origin energy {:.6e} for size {}: checked",
                               published->cycles, published->origin_energy, p.edge)
                 : std::string("no published LULESH result for this size and start (published: 2.0 start, sizes 5, 10, "
                               "30, 45, 50, 70, 90, to the stop time)"),
             "local %: bytes of the hinted ranges on the worker's own node over all of them (page homes: " +
                 rt.page_homes().name() + "); het %: hinted spawns run inline by HET over all hinted spawns"});
}

}  // namespace lulesh
