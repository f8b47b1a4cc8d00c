// cws-fdtd: PolyBench's fdtd-2d (2D finite-difference time domain), one of
// the SC14 iterative benchmarks. Three nx x ny fields of doubles (ex, ey,
// hz); an init phase writes all three (their first touch), then every time
// step is two phases over the same row blocks (fdtd/fields.hpp says why two
// are needed and enough): the e phase updates ey and ex from hz, the h phase
// updates hz from ex and ey. Each phase is a recursive bisection over blocks
// of rows (cws::parallel_for_range, grain = block rows), so its schedule is a
// steal tree, and the same two trees recur every step: what the replaying
// policies exploit.
//
// Variants: cws under each policy of --policies, each with its own schedules
// "fdtd-init/<name>", "fdtd-e/<name>" and "fdtd-h/<name>". Under a replaying
// policy the h phase replays the e phase's template (schedule::follow; both
// split the same rows the same way, and a block's h update reads what its e
// update wrote), unless --h-own-template. Under `user` every loop uses
// parallel_for_range_owned (block i on worker floor(i P / blocks), the
// OpenMP-static ownership). With random also cws-random-interleave (fields
// interleaved over the nodes), with stows also cws-stows-follow-init (both
// step phases replay init's template: schedule follows data); then tbb-auto,
// tbb-affinity (one affinity_partitioner per loop, kept across steps and
// runs), tbb-static, omp-static and serial. Every variant's fields must equal
// those of the plain serial program (fdtd/reference.cpp) bit for bit.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/bench_env.hpp"
#include "common/block_loops.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"
#include "fdtd/fields.hpp"
#include "fdtd/reference.hpp"
#include "fdtd/step_report.hpp"

namespace {

// The three fields of one variant, first touched by the variant's own init
// loop in an untimed phase before the runs.
struct field_arrays {
  cws::numa::array<double> ex, ey, hz;
  field_arrays(std::size_t cells, cws::numa::placement where)
      : ex(cws::numa::allocate<double>(cells, where)),
        ey(cws::numa::allocate<double>(cells, where)),
        hz(cws::numa::allocate<double>(cells, where)) {}
};

struct variant {
  std::string name;
  cws_apps::loop_flavour loop;
  std::string policy{};                              // cws variants only
  cws::schedule* schedules[fdtd::phase_count] = {};  // cws variants only: init, e, h
  cws::numa::placement placement = cws::numa::first_touch;
  std::unique_ptr<cws_apps::block_loops> loops{};
  std::optional<field_arrays> arrays{};
  fdtd::fields view{};
  cws_apps::samples e_samples{}, h_samples{};  // per run: the mean seconds of one e / h phase
  fdtd::run_maps maps{};                       // cws variants: the schedules' iterations of the timed runs
};

// What a leaf of rows [lo, hi) touches, declared by the cws variants
// (touch.hpp), as the kernels of fields.cpp read and write them.
void touch_rows(const double* a, const fdtd::fields& f, std::size_t lo, std::size_t hi) {
  if (lo < hi) cws::touch(a + lo * f.ny, (hi - lo) * f.ny * sizeof(double));
}
void touch_init(const fdtd::fields& f, std::size_t lo, std::size_t hi) {
  for (const double* a : {f.ex, f.ey, f.hz}) touch_rows(a, f, lo, hi);
}
// e: writes ey and ex of rows [lo, hi); reads hz of rows lo-1 (not for row 0) .. hi-1.
void touch_e(const fdtd::fields& f, std::size_t lo, std::size_t hi) {
  touch_rows(f.ey, f, lo, hi);
  touch_rows(f.ex, f, lo, hi);
  touch_rows(f.hz, f, lo == 0 ? 0 : lo - 1, hi);
}
// h: writes hz and reads ex of rows [lo, h), reads ey of rows [lo, h + 1),
// where h = min(hi, nx - 1) (the last row of hz is never written).
void touch_h(const fdtd::fields& f, std::size_t lo, std::size_t hi) {
  hi = std::min(hi, f.nx - 1);
  if (lo >= hi) return;
  touch_rows(f.hz, f, lo, hi);
  touch_rows(f.ex, f, lo, hi);
  touch_rows(f.ey, f, lo, hi + 1);
}

double run_init(variant& v) {
  const fdtd::fields f = v.view;
  const bool declare = v.loops->runs_cws_phases();
  return v.loops->run(fdtd::init_phase, [=](std::size_t lo, std::size_t hi) {
    if (declare) touch_init(f, lo, hi);
    fdtd::init_rows(f, lo, hi);
  });
}
double run_e(variant& v, unsigned t) {
  const fdtd::fields f = v.view;
  const bool declare = v.loops->runs_cws_phases();
  const double time = static_cast<double>(t);
  return v.loops->run(fdtd::e_phase, [=](std::size_t lo, std::size_t hi) {
    if (declare) touch_e(f, lo, hi);
    fdtd::e_rows(f, lo, hi, time);
  });
}
double run_h(variant& v) {
  const fdtd::fields f = v.view;
  const bool declare = v.loops->runs_cws_phases();
  return v.loops->run(fdtd::h_phase, [=](std::size_t lo, std::size_t hi) {
    if (declare) touch_h(f, lo, hi);
    fdtd::h_rows(f, lo, hi);
  });
}

// "ex: 12 value(s) differ ..., first at row 3 column 4 (x instead of y)", or "" when equal.
std::string compare_field(const char* name, const double* got, const std::vector<double>& want, std::size_t ny) {
  std::size_t count = 0;
  const std::size_t first = fdtd::first_difference(got, want.data(), want.size(), count);
  if (count == 0) return "";
  return fmt::format("{}: {} value(s) differ from the serial program, first at row {} column {} ({} instead of {})",
                     name, count, first / ny, first % ny, got[first], want[first]);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"PolyBench fdtd-2d (SC14): cws under each policy vs TBB vs OpenMP static", "cws-fdtd"};
  cws_apps::common_options opt;
  opt.iters = 20;
  std::size_t nx = 2048, ny = 2048, block = 0;
  bool follow_init = false, h_own = false, quiet = false, all_iterations = false;
  std::string evolve_init = "random";
  app.add_option("--nx", nx, "Rows of each field")
      ->check(CLI::Range(std::size_t{2}, std::size_t{1} << 20))
      ->capture_default_str();
  app.add_option("--ny", ny, "Columns of each field")
      ->check(CLI::Range(std::size_t{2}, std::size_t{1} << 20))
      ->capture_default_str();
  app.add_option("--block", block, "Rows per leaf block of the cws, TBB and OpenMP loops (0: nx / (16 x workers))")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20))
      ->capture_default_str();
  app.add_flag("--follow-init", follow_init,
               "Under replaying policies, both step phases replay the init phase's template (schedule follows data)");
  app.add_flag("--h-own-template", h_own,
               "Under replaying policies, the h phase replays its own template instead of the e phase's");
  app.add_option("--evolve-init", evolve_init,
                 "Policy of the init schedule of the cws-evolve variant (random: it does not move pages; evolve: "
                 "it relocalizes them to init's own tree after each of its relws runs)")
      ->capture_default_str();
  app.add_flag(
      "--verbose-iterations", all_iterations,
      "Print the iteration lines of every run the schedule store still holds (CWS_HISTORY), not only the first");
  app.add_flag("-q,--quiet", quiet, "No iteration lines, only the table");
  cws_apps::add_common_options(app, opt);
  const cws_apps::policies_option policies_opt(app, opt, {"random", "stows", "stuws", "relws", "evolve", "user"},
                                               "Comma-separated cws policies, one cws variant each");
  cws_apps::add_order_option(app, opt,
                             "interleaved: 3 fields of nx x ny doubles per variant (13 variants with the default "
                             "policies: 1.2 GiB at 2048 x 2048); sequential: 3 fields at a time; both keep the "
                             "serial program's 3 fields for the verification");
  app.get_option("--iters")->description("Time steps per run (PolyBench's tmax); a sample is their mean");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const std::vector<std::string> policies = policies_opt.chosen();
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();
    cws_apps::locality_tally tally(rt);
    const unsigned workers = env.workers();
    if (block == 0) block = std::max<std::size_t>(1, nx / (16 * std::size_t{workers}));
    block = std::min(block, nx);
    const std::size_t blocks = (nx + block - 1) / block;
    const std::size_t cells = nx * ny;

    // All schedules are created before anything runs, so an unknown policy fails at once (exit 2).
    std::vector<variant> variants;
    variants.push_back({.name = "serial", .loop = cws_apps::loop_flavour::serial});
    auto add_cws = [&](const std::string& p, const std::string& suffix, cws::numa::placement where,
                       const std::string& init_policy, bool steps_follow_init) {
      using cws_apps::loop_flavour;
      variant v{.name = "cws-" + suffix,
                .loop = p == cws::policy::user ? loop_flavour::cws_owned : loop_flavour::cws,
                .policy = p,
                .placement = where};
      v.schedules[fdtd::init_phase] = &rt.schedule("fdtd-init/" + suffix, init_policy);
      v.schedules[fdtd::e_phase] = &rt.schedule("fdtd-e/" + suffix, p);
      v.schedules[fdtd::h_phase] = &rt.schedule("fdtd-h/" + suffix, p);
      if (cws_apps::replays(p)) {
        if (steps_follow_init) {
          v.schedules[fdtd::e_phase]->follow(v.schedules[fdtd::init_phase]->name());
          v.schedules[fdtd::h_phase]->follow(v.schedules[fdtd::init_phase]->name());
        } else if (!h_own) {
          v.schedules[fdtd::h_phase]->follow(v.schedules[fdtd::e_phase]->name());
        }
      }
      variants.push_back(std::move(v));
    };
    for (const std::string& p : policies) {
      // As in cws-heat: an init under evolve would move the pages to init's
      // tree after each of its relws runs, away from where the steps'
      // converged template runs them; so evolve's init runs under --evolve-init.
      const bool follow = follow_init && cws_apps::replays(p);
      add_cws(p, p, cws::numa::first_touch, p == cws::policy::evolve && !follow ? evolve_init : p, follow);
      if (p == cws::policy::random) add_cws(p, p + "-interleave", cws::numa::interleaved, p, false);
      if (p == cws::policy::stows && !follow_init) add_cws(p, p + "-follow-init", cws::numa::first_touch, p, true);
    }
    for (auto [name, flavour] : {std::pair{"tbb-auto", cws_apps::loop_flavour::tbb_auto},
                                 {"tbb-affinity", cws_apps::loop_flavour::tbb_affinity},
                                 {"tbb-static", cws_apps::loop_flavour::tbb_static},
                                 {"omp-static", cws_apps::loop_flavour::omp_static}})
      variants.push_back({.name = name, .loop = flavour});
    for (variant& v : variants)
      v.loops = std::make_unique<cws_apps::block_loops>(
          env, v.loop, nx, block, std::vector<cws::schedule*>(std::begin(v.schedules), std::end(v.schedules)));

    // The serial program's fields, untimed, before anything is measured.
    const fdtd::reference_fields expected = fdtd::reference_run(nx, ny, opt.iters);
    const double field_bytes = static_cast<double>(cells * sizeof(double));
    cws_apps::report out("fdtd", env,
                         {{"nx", nx},
                          {"ny", ny},
                          {"tmax", opt.iters},
                          {"block_rows", block},
                          {"blocks", blocks},
                          {"iters", opt.iters},
                          {"runs", opt.plan.runs},
                          {"warmup", opt.plan.warmup},
                          {"order", cws_apps::to_string(opt.plan.order)},
                          {"policies", policies},
                          {"follow_init", follow_init},
                          {"h_own_template", h_own},
                          {"evolve_init", evolve_init},
                          {"bytes_per_step", 9 * field_bytes},
                          {"checksums",
                           {{"ex", fdtd::sum(expected.ex.data(), cells)},
                            {"ey", fdtd::sum(expected.ey.data(), cells)},
                            {"hz", fdtd::sum(expected.hz.data(), cells)}}},
                          {"page_homes", rt.page_homes().name()}});

    std::vector<std::string> wrong;
    std::vector<fdtd::iteration_block> iteration_blocks;
    const auto prepare = [&](variant& v) {
      v.arrays.emplace(cells, v.placement);
      v.view = {v.arrays->ex.data(), v.arrays->ey.data(), v.arrays->hz.data(), nx, ny};
      run_init(v);
      if (v.loops->runs_cws_phases()) v.maps = fdtd::run_maps_from(v.schedules, opt.iters, opt.plan);
    };
    const auto one_run = [&](variant& v, cws_apps::phase_timer& t) {
      v.loops->begin_run(t);
      t.time_reported("init", 1, [&] { return run_init(v); });
      double e_sum = 0, h_sum = 0;
      unsigned step = 0;
      t.time_reported("step", opt.iters, [&] {
        const double e = run_e(v, step++);
        const double h = run_h(v);
        e_sum += e, h_sum += h;
        return e + h;
      });
      if (t.recording()) v.e_samples.add(e_sum / opt.iters), v.h_samples.add(h_sum / opt.iters);
    };
    const auto finish = [&](variant& v, const cws_apps::phase_timer& timer) {
      cws_apps::json& e = out.add(v.name);
      cws_apps::put_timing(e, timer["step"]);  // median_s / min_s: one time step (e + h phase)
      cws_apps::put_timing(e, timer["init"], "init_");
      e["e_median_s"] = v.e_samples.median();
      e["h_median_s"] = v.h_samples.median();
      e["gbps"] = 9 * field_bytes / timer["step"].median() / 1e9;
      bool ok = true;
      for (const std::string& w :
           {compare_field("ex", v.view.ex, expected.ex, ny), compare_field("ey", v.view.ey, expected.ey, ny),
            compare_field("hz", v.view.hz, expected.hz, ny)})
        if (!w.empty()) ok = false, wrong.push_back(v.name + ": " + w);
      e["verified"] = ok;
      if (v.loops->runs_cws_phases()) {
        e["policy"] = v.policy;
        fdtd::report_schedules(rt, tally, v.schedules, v.maps, *v.loops, e, v.name, iteration_blocks);
      }
      v.arrays.reset();
    };
    cws_apps::measure_variants(variants, opt.plan, prepare, one_run, finish);
    out.add_ratio("ratio_vs_omp_static", "median_s", "omp-static");
    out.add_ratio("ratio_vs_cws_random", "median_s", "cws-random");
    out.add_ratio("ratio_vs_serial", "median_s", "serial");

    env.save_trace();
    if (!opt.json && !quiet) fdtd::print_iteration_blocks(iteration_blocks, all_iterations);
    out.print(opt.json,
              fmt::format("cws-fdtd: fdtd-2d, 3 fields of {} x {} doubles ({:.0f} MiB each), blocks of {} rows ({} "
                          "blocks), {} time steps per run (2 phases each), {} runs (+{} warm-up)",
                          nx, ny, field_bytes / (1 << 20), block, blocks, opt.iters, opt.plan.runs, opt.plan.warmup),
              {{"variant", "variant"},
               {"ms/step", "median_s", 1e3, 3},
               {"min ms", "min_s", 1e3, 3},
               {"e ms", "e_median_s", 1e3, 3},
               {"h ms", "h_median_s", 1e3, 3},
               {"init ms", "init_median_s", 1e3, 2},
               {"GB/s", "gbps", 1, 2},
               {"vs omp", "ratio_vs_omp_static", 1, 2},
               {"vs random", "ratio_vs_cws_random", 1, 2},
               {"desig/ph", "designated_per_iter", 1, 1},
               {"extra/ph", "extra_steals_per_iter", 1, 1},
               {"dist %", "mean_distance", 100, 1},
               {"replayed %", "replayed_share", 100, 0},
               {"div", "diverged_iterations"},
               {"local %", "local_share", 100, 1},
               {"last %", "local_share_last", 100, 1},
               {"moved", "pages_moved"},
               {"reloc ms", "relocalization_s", 1e3, 2},
               {"ok", "verified"}},
              {"ms/step: median over runs of the mean time of one time step, the wall clock around the calls of its "
               "two phases (rt.run, tbb::parallel_for, the OpenMP region); e ms / h ms: each phase alone;",
               "GB/s counts 9 field transfers per step (e: ey, ex, hz read, ey, ex written; h: ex, ey, hz read, hz "
               "written); 'vs' columns are time ratios (lower is better);",
               "desig/ph .. div: means over the measured runs' e and h phases (schedule store; recorder for random): "
               "steals designated, extra, schedule distance to the phase's previous run,",
               "share that replayed a template, diverged phases;",
               fmt::format("local %: mean over the measured e and h phases of the share of declared bytes on a page "
                           "homed on the toucher's node (page homes: {}); last %: the last measured h phase;",
                           rt.page_homes().name()),
               "moved / reloc ms: pages moved and time spent by the relocalizations after the measured runs' "
               "phases (evolve's), inside ms/step (rt.run makes them)"});
    if (!wrong.empty()) {
      for (const std::string& w : wrong) cws_apps::report_error(app.get_name(), w.c_str(), 1);
      return 1;
    }
    return 0;
  });
}
