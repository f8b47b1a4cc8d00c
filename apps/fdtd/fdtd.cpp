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
//
// The variants, their timing, the cws figures (with two step phases: e_ and
// h_ prefixed), the iteration lines and the table are the common runner's
// (common/loop_suite.hpp); this file holds what is fdtd's own: its fields,
// what a leaf touches, its options and the check against the serial program.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/loop_suite.hpp"
#include "fdtd/fields.hpp"
#include "fdtd/reference.hpp"

namespace {

// The loops of a variant, in this order (block_loops phase index).
enum phase_id : std::size_t { init_phase = 0, e_phase = 1, h_phase = 2 };

// The three fields of one variant, first touched by the variant's own init
// loop in an untimed phase before the runs, and the per-run means of its
// two step phases.
struct field_arrays {
  cws::numa::array<double> ex, ey, hz;
  fdtd::fields view;
  cws_apps::samples e_samples{}, h_samples{};  // per run: the mean seconds of one e / h phase
  field_arrays(std::size_t nx, std::size_t ny, cws::numa::placement where)
      : ex(cws::numa::allocate<double>(nx * ny, where)),
        ey(cws::numa::allocate<double>(nx * ny, where)),
        hz(cws::numa::allocate<double>(nx * ny, where)),
        view{ex.data(), ey.data(), hz.data(), nx, ny} {}
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

// One run of loop `phase` over the variant's fields, each leaf declaring
// its touches first (cws variants); returns the seconds that count.
template <class Touch, class Kernel>
double run_rows(cws_apps::loop_variant& v, std::size_t phase, const fdtd::fields& f, Touch touch, Kernel kernel) {
  const bool declare = v.runs_cws();
  return v.loops->run(phase, [=](std::size_t lo, std::size_t hi) {
    if (declare) touch(f, lo, hi);
    kernel(f, lo, hi);
  });
}
double run_init(cws_apps::loop_variant& v, const fdtd::fields& f) {
  return run_rows(v, init_phase, f, touch_init, fdtd::init_rows);
}

// One run: the init phase, then `steps` time steps of an e and an h phase,
// each step timed as a whole and each phase kept apart (e ms, h ms).
void one_run(cws_apps::loop_variant& v, field_arrays& a, unsigned steps, cws_apps::phase_timer& t) {
  t.time_reported("init", 1, [&] { return run_init(v, a.view); });
  double e_sum = 0, h_sum = 0;
  unsigned step = 0;
  t.time_reported("step", steps, [&] {
    const double time = static_cast<double>(step++);
    const double e =
        run_rows(v, e_phase, a.view, touch_e,
                 [time](const fdtd::fields& f, std::size_t lo, std::size_t hi) { fdtd::e_rows(f, lo, hi, time); });
    const double h = run_rows(v, h_phase, a.view, touch_h, fdtd::h_rows);
    e_sum += e, h_sum += h;
    return e + h;
  });
  if (t.recording()) a.e_samples.add(e_sum / steps), a.h_samples.add(h_sum / steps);
}

// "ex: 12 value(s) differ ..., first at row 3 column 4 (x instead of y)", or "" when equal.
std::string compare_field(const char* name, const double* got, const std::vector<double>& want, std::size_t ny) {
  std::size_t count = 0;
  const std::size_t first = fdtd::first_difference(got, want.data(), want.size(), count);
  if (count == 0) return "";
  return fmt::format("{}: {} value(s) differ from the serial program, first at row {} column {} ({} instead of {})",
                     name, count, first / ny, first % ny, got[first], want[first]);
}

std::vector<std::string> notes(const std::string& page_homes) {
  return {
      "ms/step: median over runs of the mean time of one time step, the wall clock around the calls of its two "
      "phases (rt.run, tbb::parallel_for, the OpenMP region); e ms / h ms: each phase alone;",
      "GB/s counts 9 field transfers per step (e: ey, ex, hz read, ey, ex written; h: ex, ey, hz read, hz "
      "written); 'vs' columns are time ratios (lower is better);",
      "desig/ph .. div: means over the measured runs' e and h phases (schedule store; recorder for random): "
      "steals designated, extra, schedule distance to the phase's previous run,",
      "share that replayed a template, diverged phases;",
      fmt::format("local %: mean over the measured e and h phases of the share of declared bytes on a page "
                  "homed on the toucher's node (page homes: {}); last %: the last measured h phase;",
                  page_homes),
      "moved / reloc ms: pages moved and time spent by the relocalizations after the measured runs' phases "
      "(evolve's), inside ms/step (rt.run makes them)"};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"PolyBench fdtd-2d (SC14): cws under each policy vs TBB vs OpenMP static", "cws-fdtd"};
  cws_apps::suite_options opt;
  opt.common.iters = 20;
  std::size_t nx = 2048, ny = 2048, block = 0;
  bool h_own = false;
  app.add_option("--nx", nx, "Rows of each field")
      ->check(CLI::Range(std::size_t{2}, std::size_t{1} << 20))
      ->capture_default_str();
  app.add_option("--ny", ny, "Columns of each field")
      ->check(CLI::Range(std::size_t{2}, std::size_t{1} << 20))
      ->capture_default_str();
  app.add_option("--block", block, "Rows per leaf block of the cws, TBB and OpenMP loops (0: nx / (16 x workers))")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20))
      ->capture_default_str();
  app.add_flag("--h-own-template", h_own,
               "Under replaying policies, the h phase replays its own template instead of the e phase's");
  cws_apps::add_suite_options(
      app, opt, "Under replaying policies, both step phases replay the init phase's template (schedule follows data)",
      "interleaved: 3 fields of nx x ny doubles per variant (13 variants with the default policies: 1.2 GiB at 2048 "
      "x 2048); sequential: 3 fields at a time; both keep the serial program's 3 fields for the verification",
      "Time steps per run (PolyBench's tmax); a sample is their mean");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    cws_apps::bench_env env(opt.common);
    if (block == 0) block = std::max<std::size_t>(1, nx / (16 * std::size_t{env.workers()}));
    block = std::min(block, nx);
    const std::size_t blocks = (nx + block - 1) / block, cells = nx * ny;
    cws_apps::suite_spec spec{.app = "fdtd",
                              .phases = {"init", "e", "h"},
                              .baselines = cws_apps::standard_baselines(),
                              .n = nx,
                              .grain = block};
    // Under a replaying policy h replays e's template (both split the same rows
    // the same way, and a block's h update reads what its e update wrote).
    if (!h_own) spec.follows.emplace_back(h_phase, e_phase);
    cws_apps::loop_suite suite(env, opt, std::move(spec));

    // The serial program's fields, untimed, before anything is measured.
    const fdtd::reference_fields expected = fdtd::reference_run(nx, ny, opt.common.iters);
    const double field_bytes = static_cast<double>(cells * sizeof(double));
    const std::string homes = env.rt().page_homes().name();
    cws_apps::json params = suite.params({{"nx", nx},
                                          {"ny", ny},
                                          {"tmax", opt.common.iters},
                                          {"block_rows", block},
                                          {"blocks", blocks},
                                          {"h_own_template", h_own}});
    params.update({{"bytes_per_step", 9 * field_bytes},
                   {"checksums",
                    {{"ex", fdtd::sum(expected.ex.data(), cells)},
                     {"ey", fdtd::sum(expected.ey.data(), cells)},
                     {"hz", fdtd::sum(expected.hz.data(), cells)}}},
                   {"page_homes", homes}});
    cws_apps::report out("fdtd", env, params);
    std::vector<std::optional<field_arrays>> arrays(suite.variants().size());
    const cws_apps::suite_hooks hooks{
        .prepare = [&](cws_apps::loop_variant& v) { run_init(v, arrays[v.index].emplace(nx, ny, v.placement).view); },
        .one_run = [&](cws_apps::loop_variant& v,
                       cws_apps::phase_timer& t) { one_run(v, *arrays[v.index], opt.common.iters, t); },
        .finish =
            [&](cws_apps::loop_variant& v, const cws_apps::phase_timer& t, cws_apps::json& e,
                std::vector<std::string>& wrong) {
              const field_arrays& a = *arrays[v.index];
              e["e_median_s"] = a.e_samples.median();
              e["h_median_s"] = a.h_samples.median();
              e["gbps"] = 9 * field_bytes / t["step"].median() / 1e9;
              bool ok = true;
              for (const std::string& w :
                   {compare_field("ex", a.view.ex, expected.ex, ny), compare_field("ey", a.view.ey, expected.ey, ny),
                    compare_field("hz", a.view.hz, expected.hz, ny)})
                if (!w.empty()) ok = false, wrong.push_back(v.name + ": " + w);
              e["verified"] = ok;
              arrays[v.index].reset();
            }};
    return suite.run(
        out, hooks,
        fmt::format("cws-fdtd: fdtd-2d, 3 fields of {} x {} doubles ({:.0f} MiB each), blocks of {} rows ({} blocks), "
                    "{} time steps per run (2 phases each), {} runs (+{} warm-up)",
                    nx, ny, field_bytes / (1 << 20), block, blocks, opt.common.iters, opt.common.plan.runs,
                    opt.common.plan.warmup),
        cws_apps::standard_columns({.per = "ph",
                                    .split = {{"e ms", "e_median_s", 1e3, 3}, {"h ms", "h_median_s", 1e3, 3}},
                                    .taken_back = false}),
        notes(homes));
  });
}
