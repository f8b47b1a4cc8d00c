// cws-lulesh: LULESH's Sedov blast problem, PufferFish's lulesh / lulesh-ir
// benchmark. An edge^3 hexahedral mesh, run from the blast to the stop time
// (or --cycles cycles); every cycle is ~28 parallel loops over the elements
// or the nodes (lulesh/loops.hpp), each its own cws schedule, split by
// PufferFish's regular or irregular recursion with a hint at the loop's main
// array on every child (common/hinted_recursion.hpp).
//
// Variants: serial (the reference), cws-hinted and cws-hinted-hpt (arrays
// block-cyclic), cws-random-ft (first touch) and cws-random-il (interleaved),
// cws-evolve (first touch) and cws-evolve-hinted (block-cyclic), tbb
// (simple_partitioner, same grain) and omp-static (same blocks). A variant's
// arrays are written by its own setup loops before every run, outside the
// timed region; a run's time is the wall clock around the whole simulation.
//
// Every measured run is verified (lulesh/verification.hpp): same cycle count
// and bitwise the same final origin energy as the serial run, plane 0
// symmetric to 1e-8; the serial run also against LULESH 2.0's published
// values when the size is one it lists. Any failure: one line, exit 1.

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"
#include "lulesh/domain.hpp"
#include "lulesh/runners.hpp"
#include "lulesh/simulation.hpp"
#include "lulesh/verification.hpp"

namespace {

using cws_apps::json;

enum class flavour { serial, cws, tbb, omp };

struct variant {
  std::string name;
  flavour kind = flavour::serial;
  std::string policy{};       // cws: the loops' policy
  std::string init_policy{};  // cws: the setup loops' policy
  cws::numa::placement placement = cws::numa::first_touch;
  bool follow = false;  // cws: the loops follow their extent's leader (schedule follows data)
  // From prepare to finish:
  std::unique_ptr<lulesh::domain> dom{};
  std::unique_ptr<lulesh::loop_runner> loops{};
  lulesh::cws_runner* cws = nullptr;  // loops, when kind == cws
  std::vector<lulesh::outcome> outcomes{};
};

// The variant table: name, policy of its loops, policy of its setup loops, placement.
struct variant_spec {
  const char* name;
  flavour kind;
  const char* policy;
  const char* init_policy;
  cws::numa::placement placement;
  bool follow = false;
};
const variant_spec all_variants[] = {
    {"cws-hinted", flavour::cws, "hinted", "hinted", cws::numa::block_cyclic},
    {"cws-hinted-hpt", flavour::cws, "hinted-hpt", "hinted-hpt", cws::numa::block_cyclic},
    {"cws-random-ft", flavour::cws, "random", "random", cws::numa::first_touch},
    {"cws-random-il", flavour::cws, "random", "random", cws::numa::interleaved},
    // evolve relocalizes pages after the runs that become its templates; its
    // setup loops run under random, which never moves pages (as cws-heat does).
    {"cws-evolve", flavour::cws, "evolve", "random", cws::numa::first_touch},
    {"cws-evolve-hinted", flavour::cws, "evolve-hinted", "random", cws::numa::block_cyclic},
    // Schedule follows data: one loop per extent (the leader) learns under
    // evolve and declares every array of its extent, so evolve's
    // relocalizations move all of them to its tree; the other loops over the
    // same items (the same spawn tree) replay its template strictly (stows).
    {"cws-evolve-follow", flavour::cws, "evolve", "random", cws::numa::first_touch, true},
    {"tbb", flavour::tbb, "", "", cws::numa::first_touch},
    {"omp-static", flavour::omp, "", "", cws::numa::first_touch},
};

// The leaders of cws-evolve-follow: the first loop of a cycle over each extent.
constexpr lulesh::loop_id element_leader = lulesh::loop_id::stress_init;
constexpr lulesh::loop_id node_leader = lulesh::loop_id::stress_gather;

std::vector<std::string> variant_names() {
  std::vector<std::string> names;
  for (const variant_spec& s : all_variants) names.emplace_back(s.name);
  return names;
}

double ratio(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}

// The cws figures of a variant: per-run counts, hinted counters, locality, pages moved, what the phases ran as.
void put_cws(json& e, const lulesh::cws_totals& t, unsigned runs) {
  const double r = runs == 0 ? 1.0 : runs;
  const cws::worker_stats& w = t.work;
  e["phases_per_run"] = static_cast<double>(t.phases) / r;
  e["phase_wall_s"] = t.phase_wall_s / r;
  e["tasks_per_run"] = static_cast<double>(w.tasks) / r;
  e["steals_per_run"] = static_cast<double>(w.steals) / r;
  e["failed_steals_per_run"] = static_cast<double>(w.failed_steals) / r;
  e["elided_per_run"] = static_cast<double>(w.elided) / r;
  e["idle_s_per_run"] = w.idle_s / r;
  e["hinted_leaf"] = w.hinted_leaf;
  e["hinted_node"] = w.hinted_node;
  e["hinted_root"] = w.hinted_root;
  e["het_inlined"] = w.het_inlined;
  e["place_steals"] = w.place_steals;
  e["reclaimed"] = w.reclaimed;
  const std::uint64_t hinted = w.hinted_leaf + w.hinted_node + w.hinted_root;
  e["het_share"] = hinted == 0 ? json(nullptr) : json(ratio(w.het_inlined, hinted));
  e["local_share"] = t.locality_phases == 0 ? json(nullptr) : json(ratio(t.local_bytes, t.touched_bytes));
  e["local_share_min"] = t.locality_phases == 0 ? json(nullptr) : json(t.min_share);
  e["locality_phases"] = t.locality_phases;
  json per_loop = json::object();
  for (std::size_t i = lulesh::first_cycle_loop; i < lulesh::loop_count; ++i)
    if (t.loop_touched[i] != 0)
      per_loop[lulesh::site(lulesh::loop_id(i)).name] = ratio(t.loop_local[i], t.loop_touched[i]);
  e["loop_local_share"] = per_loop;
  e["touched_bytes"] = t.touched_bytes;
  e["unknown_bytes"] = t.unknown_bytes;
  e["relocalizations"] = t.relocalizations;
  e["pages_moved"] = t.pages_moved;
  e["relocalization_s"] = t.relocalization_s;
  e["ran_as"] = t.ran_as;
  e["converged_share"] = t.phases == 0 ? json(nullptr) : json(ratio(t.converged_phases, t.phases));
}

json outcome_json(const lulesh::outcome& o) {
  return {{"cycles", o.cycles},
          {"final_time", o.final_time},
          {"origin_energy", o.origin_energy},
          {"symmetry",
           {{"max_abs_diff", o.sym.max_abs_diff},
            {"total_abs_diff", o.sym.total_abs_diff},
            {"max_rel_diff", o.sym.max_rel_diff}}}};
}

// LULESH's closing lines for the serial run.
void print_lulesh_summary(std::size_t edge, const lulesh::outcome& o) {
  fmt::print("Run completed (serial):\n   Problem size        =  {}\n   Iteration count     =  {}\n", edge, o.cycles);
  fmt::print("   Final Origin Energy =  {:12.6e}\n   Testing Plane 0 of Energy Array:\n", o.origin_energy);
  fmt::print("        MaxAbsDiff   = {:12.6e}\n        TotalAbsDiff = {:12.6e}\n        MaxRelDiff   = {:12.6e}\n\n",
             o.sym.max_abs_diff, o.sym.total_abs_diff, o.sym.max_rel_diff);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"LULESH (Sedov blast), PufferFish's hinted loops: cws hinted/random/evolve vs TBB vs OpenMP static",
               "cws-lulesh"};
  cws_apps::common_options opt;
  opt.plan.runs = 3;
  std::size_t edge = 16;
  std::string shape_name = "regular", start_name = "2.0";
  lulesh::grain_rule grain;
  std::int64_t max_cycles = 0;
  std::vector<std::string> chosen = variant_names();
  app.add_option("-s,--size", edge, "Elements per edge of the cube (PufferFish's paper: 32; LULESH 2.0's default: 30)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{400}))
      ->capture_default_str();
  app.add_option("--recursion", shape_name,
                 "PufferFish's loop splitter: regular (binary; bench name lulesh) or irregular (2- and 4-way; "
                 "lulesh-ir)")
      ->check(CLI::IsMember({"regular", "irregular"}))
      ->capture_default_str();
  app.add_option("--factor", grain.factor, "PufferFish's grain: a loop over n items has leaves of n / (32 x factor)")
      ->check(CLI::Range(1u, 1u << 20))
      ->capture_default_str();
  app.add_option("--tile", grain.tile, "Fixed leaf size of every loop instead (0: use --factor)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--cycles", max_cycles, "Stop after this many cycles (0: run to the stop time, 1e-2 s)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))
      ->capture_default_str();
  app.add_option("--initial", start_name,
                 "Initial conditions: 2.0 (LULESH 2.0: blast energy scaled with the size, analytic first step; its "
                 "published results are checked) or 1.0 (LULESH 1.0 and PufferFish's port: the 45^3 energy, "
                 "first step 1e-7)")
      ->check(CLI::IsMember({"2.0", "1.0"}))
      ->capture_default_str();
  app.add_option("--variants", chosen, "Comma-separated variants to run besides serial (always run: the reference)")
      ->delimiter(',')
      ->check(CLI::IsMember(variant_names()))
      ->capture_default_str();
  cws_apps::add_common_options(app, opt);
  app.remove_option(app.get_option("--iters"));
  app.remove_option(app.get_option("--policy"));
  cws_apps::add_order_option(app, opt, "about 600 bytes per element per variant (8.5 MiB at -s 16, 19 MiB at -s 32)");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const auto shape = shape_name == "regular" ? cws_apps::recursion::regular : cws_apps::recursion::irregular;
    const auto start = start_name == "2.0" ? lulesh::initial_conditions::lulesh2 : lulesh::initial_conditions::lulesh1;
    const std::string bench = shape_name == "regular" ? "lulesh" : "lulesh-ir";
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();

    // The variants, each cws one with its own schedule per loop: created
    // before anything runs, so an unknown policy fails at once (exit 2).
    std::vector<variant> variants;
    variants.push_back({.name = "serial", .kind = flavour::serial});
    for (const variant_spec& s : all_variants) {
      if (std::find(chosen.begin(), chosen.end(), s.name) == chosen.end()) continue;
      variant v{.name = s.name,
                .kind = s.kind,
                .policy = s.policy,
                .init_policy = s.init_policy,
                .placement = s.placement,
                .follow = s.follow};
      if (v.kind == flavour::cws) {
        const auto name_of = [&](lulesh::loop_id id) {
          return fmt::format("{}/{}/{}", bench, v.name, lulesh::site(id).name);
        };
        std::vector<cws::schedule*> schedules;
        for (std::size_t i = 0; i < lulesh::loop_count; ++i) {
          const auto id = lulesh::loop_id(i);
          const bool setup = i < lulesh::first_cycle_loop;
          const lulesh::loop_id leader =
              lulesh::site(id).over == lulesh::extent::elements ? element_leader : node_leader;
          const bool follower = v.follow && !setup && id != leader;
          const std::string policy = setup ? v.init_policy : follower ? std::string(cws::policy::stows) : v.policy;
          schedules.push_back(&rt.schedule(name_of(id), policy));
          if (follower) schedules.back()->follow(name_of(leader));
        }
        auto runner = std::make_unique<lulesh::cws_runner>(rt, std::move(schedules), shape, grain);
        v.cws = runner.get();
        v.loops = std::move(runner);
      } else if (v.kind == flavour::tbb) {
        v.loops = std::make_unique<lulesh::tbb_runner>(env, grain);
      } else {
        v.loops = std::make_unique<lulesh::omp_runner>(grain);
      }
      variants.push_back(std::move(v));
    }
    variants.front().loops = std::make_unique<lulesh::serial_runner>();

    std::optional<lulesh::outcome> reference;  // the serial run's
    std::vector<std::string> wrong;
    const lulesh::domain probe_shape(1, cws::numa::first_touch);  // for the array count only
    cws_apps::report out(bench, env,
                         {{"size", edge},
                          {"elements", edge * edge * edge},
                          {"nodes", (edge + 1) * (edge + 1) * (edge + 1)},
                          {"recursion", shape_name},
                          {"factor", grain.factor},
                          {"tile", grain.tile},
                          {"element_grain", grain(edge * edge * edge)},
                          {"node_grain", grain((edge + 1) * (edge + 1) * (edge + 1))},
                          {"max_cycles", max_cycles},
                          {"initial", start_name},
                          {"loops_per_cycle", lulesh::loop_count - lulesh::first_cycle_loop},
                          {"arrays", probe_shape.array_count()},
                          {"runs", opt.plan.runs},
                          {"warmup", opt.plan.warmup},
                          {"order", cws_apps::to_string(opt.plan.order)},
                          {"page_homes", rt.page_homes().name()}});

    const auto prepare = [&](variant& v) {
      v.dom = std::make_unique<lulesh::domain>(edge, v.placement, start);
      if (v.follow)
        for (lulesh::loop_id leader : {element_leader, node_leader})
          v.cws->declare_for(leader, [d = v.dom.get()](lulesh::extent over, std::size_t lo, std::size_t hi) {
            d->declare_touches(over, lo, hi);
          });
    };
    const auto one_run = [&](variant& v, cws_apps::phase_timer& t) {
      v.dom->setup(*v.loops);  // untimed: the initial state, written by the variant's own loops
      lulesh::outcome o;
      if (v.cws) v.cws->set_measuring(t.recording());
      t.time("run", [&] { o = lulesh::simulate(*v.dom, *v.loops, max_cycles); });
      if (v.cws) v.cws->set_measuring(false);
      if (t.recording()) v.outcomes.push_back(o);
    };
    const auto finish = [&](variant& v, const cws_apps::phase_timer& t) {
      const lulesh::outcome& last = v.outcomes.back();
      if (v.kind == flavour::serial) {
        reference = last;
        if (auto why = lulesh::against_reference(last, edge, start, max_cycles == 0)) wrong.push_back(*why);
      }
      bool verified = true;
      for (std::size_t r = 0; r < v.outcomes.size(); ++r)
        if (auto why = lulesh::mismatch(v.outcomes[r], *reference)) {
          wrong.push_back(fmt::format("{}, run {}: {}", v.name, r + 1, *why));
          verified = false;
        }
      json& e = out.add(v.name);
      e["policy"] = v.kind == flavour::cws ? json(v.policy) : json(nullptr);
      e["init_policy"] = v.kind == flavour::cws ? json(v.init_policy) : json(nullptr);
      e["placement"] = cws::numa::to_string(v.placement);
      if (v.follow) e["leaders"] = {lulesh::site(element_leader).name, lulesh::site(node_leader).name};
      e["verified"] = verified;
      e.update(outcome_json(last));
      e["origin_energy_equals_serial"] = last.origin_energy == reference->origin_energy;
      cws_apps::put_timing(e, t["run"]);
      e["ms_per_cycle"] = last.cycles > 0 ? t["run"].median() * 1e3 / static_cast<double>(last.cycles) : 0.0;
      if (v.cws) put_cws(e, v.cws->totals(), opt.plan.runs);
      v.dom.reset();  // its memory, before the next variant's in the sequential order
    };
    cws_apps::measure_variants(variants, opt.plan, prepare, one_run, finish);
    env.save_trace();

    out.add_ratio("vs_serial", "median_s", "serial");
    out.add_ratio("vs_random_ft", "median_s", "cws-random-ft");
    if (!opt.json) print_lulesh_summary(edge, *reference);
    const auto published = lulesh::published_reference(edge, start);
    out.print(
        opt.json,
        fmt::format("cws-lulesh ({}): Sedov blast, {}^3 elements, {} cycles per run, {} loops per cycle, grain "
                    "{} elements / {} nodes",
                    bench, edge, reference->cycles, lulesh::loop_count - lulesh::first_cycle_loop,
                    grain(edge * edge * edge), grain((edge + 1) * (edge + 1) * (edge + 1))),
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
         published && max_cycles == 0
             ? fmt::format("LULESH 2.0 publishes {} cycles and origin energy {:.6e} for size {}: checked",
                           published->cycles, published->origin_energy, edge)
             : std::string("no published LULESH result for this size and start (published: 2.0 start, sizes 5, 10, "
                           "30, 45, 50, 70, 90, to the stop time)"),
         "local %: bytes of the hinted ranges on the worker's own node over all of them (page homes: " +
             rt.page_homes().name() + "); het %: hinted spawns run inline by HET over all hinted spawns"});
    if (!wrong.empty()) {
      const std::string more = wrong.size() > 1 ? fmt::format(" (and {} more)", wrong.size() - 1) : "";
      return cws_apps::report_error(app.get_name(), (wrong.front() + more).c_str(), 1);
    }
    return 0;
  });
}
