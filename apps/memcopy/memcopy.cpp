// cws-memcopy: the SC14 motivating example. Two arrays are initialized in
// parallel (phase "init") and then copied in parallel (phase "copy"). Under
// random work stealing the copy runs on other workers than the ones that
// first-touched the pages; OpenMP static gives both loops the same
// iteration -> thread mapping. The variants separate the effects of page
// placement (first touch, pre-faulted, interleaved), of loop scheduling and
// of moving the pages:
//
//   cws-random-firsttouch  fresh arrays every run, first touched by init (random)
//   cws-random-prefault    arrays faulted in once by the main thread
//   cws-random-interleave  arrays interleaved over the nodes
//   cws-stows              schedule follows data (SC14, DESIGN §5): the copy
//                          replays the steal tree init recorded (schedule::follow),
//                          so each block is copied by the worker that first touched it
//   cws-evolve             the copy has its own evolve schedule; evolve moves the
//                          pages to where that schedule runs them (relocalization)
//                          after each run that becomes its template
//
// The cws loops' leaves declare what they touch (cws::touch of a[lo, hi) and
// b[lo, hi)), so every cws phase gets a locality report and relocalization
// knows the pages; the table shows the copy's local share, the pages moved
// and the relocalization time per variant.
//
// The variants run in interleaved rounds by default (common/rounds.hpp):
// every variant's arrays are set up first and live until its report, so the
// runs of the others come between two runs of one variant. They touch other
// arrays only: evolve's relocalized pages stay where it put them.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/bench_env.hpp"
#include "common/block_loops.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"

namespace {

enum phase_id { init_phase = 0, copy_phase = 1 };

// When a variant's arrays are allocated and first written.
enum class pages_kind {
  fresh,     // a fresh allocation every run: the run's init phase does the first touch
  prefault,  // allocated once, faulted in by the main thread (prefault_zero) before the runs
  once,      // allocated once, first touched by one untimed init phase of the variant before the runs
};

struct arrays {
  cws::numa::array<double> a, b;
};

struct variant {
  std::string name;
  cws_apps::loop_flavour loop;
  cws::numa::placement placement;
  pages_kind pages;
  // cws variants only:
  std::string policy{};       // of the copy schedule
  std::string init_policy{};  // of the init schedule
  cws::schedule* schedules[2] = {};
  // What persists across the runs, from the variant's set-up to its report:
  std::unique_ptr<cws_apps::block_loops> loops{};
  arrays m{};
  std::uint64_t first_init = 0, first_copy = 0;  // schedule iterations before the first warm-up run
};

arrays allocate(std::size_t n, const variant& v) {
  arrays m{cws::numa::allocate<double>(n, v.placement), cws::numa::allocate<double>(n, v.placement)};
  if (v.pages == pages_kind::prefault) {
    cws::numa::prefault_zero(m.a);
    cws::numa::prefault_zero(m.b);
  }
  return m;
}

// One run of a variant's init (A = B = 0) or copy (B = A) loop over its
// current arrays; returns the seconds that count (block_loops::run). The
// leaves of both loops touch a[lo, hi) and b[lo, hi); the cws ones say so.
double run_loop(variant& v, phase_id ph) {
  double* const a = v.m.a.data();
  double* const b = v.m.b.data();
  const bool declare = v.loops->runs_cws_phases();
  const auto touch = [=](std::size_t lo, std::size_t hi) {
    if (!declare) return;
    cws::touch(a + lo, (hi - lo) * sizeof(double));
    cws::touch(b + lo, (hi - lo) * sizeof(double));
  };
  if (ph == init_phase)
    return v.loops->run(ph, [=](std::size_t lo, std::size_t hi) {
      touch(lo, hi);
      for (std::size_t i = lo; i < hi; ++i) a[i] = 0, b[i] = 0;
    });
  return v.loops->run(ph, [=](std::size_t lo, std::size_t hi) {
    touch(lo, hi);
    for (std::size_t i = lo; i < hi; ++i) b[i] = a[i];
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Parallel init + copy of two arrays (SC14 memcopy): cws vs TBB vs OpenMP static", "cws-memcopy"};
  cws_apps::common_options opt;
  std::size_t mib = 256;
  std::size_t grain = 0;  // 0: elements / (2 x workers)
  app.add_option("--mb", mib, "Size of each array in MiB")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  // Large leaves matter here: glibc's memset/memcpy switch to non-temporal
  // stores only for large blocks, and OpenMP static hands each thread one block.
  app.add_option("--grain", grain, "Elements per leaf of the cws, TBB and OpenMP loops (0: elements / (2 x workers))")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 40))
      ->capture_default_str();
  std::string evolve_init = "random";
  app.add_option("--evolve-init", evolve_init,
                 "Policy of the init schedule of the cws-evolve variant (random: it does not move pages; evolve: "
                 "it relocalizes them to init's own tree after each of its relws runs)")
      ->capture_default_str();
  bool follow_init = false;
  CLI::Option* follow_opt =
      app.add_flag("--follow-init,!--no-follow-init", follow_init,
                   "Schedule follows data: the copy phase replays the steal tree recorded by the init phase "
                   "(schedule::follow), so each block is copied where init first-touched it. Default: on for "
                   "stows, stuws and relws; off for evolve (whose copy gets its own schedule and relocalized "
                   "pages), random and user");
  cws_apps::add_common_options(app, opt);
  const cws_apps::policies_option policies_opt(
      app, opt, {"random", "stows", "evolve"},
      "Comma-separated cws policies: random gives cws-random-firsttouch, -prefault and -interleave; evolve gives "
      "cws-evolve (own copy schedule, pages relocalized by evolve); any other policy P gives cws-P (copy follows "
      "init for stows, stuws, relws)");
  cws_apps::add_order_option(app, opt,
                             "interleaved: 2 arrays of --mb per variant (8 variants with the default policies: "
                             "4 GiB at --mb 256); sequential: 2 arrays");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const std::vector<std::string> policies = policies_opt.chosen();
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();
    cws_apps::locality_tally tally(rt);
    const std::size_t n = mib * (std::size_t{1} << 20) / sizeof(double);
    if (grain == 0) grain = std::max<std::size_t>(1, n / (2 * std::size_t{env.workers()}));
    const double bytes = static_cast<double>(n * sizeof(double));
    namespace numa = cws::numa;

    // All schedules are created before anything runs, so an unknown policy fails at once (exit 2).
    std::vector<variant> variants;
    auto add_cws = [&](std::string name, numa::placement where, pages_kind pages, const std::string& policy,
                       const std::string& init_policy, bool follow) {
      variant v{.name = std::move(name),
                .loop = cws_apps::loop_flavour::cws,
                .placement = where,
                .pages = pages,
                .policy = policy,
                .init_policy = init_policy};
      v.schedules[init_phase] = &rt.schedule("init/" + v.name, init_policy);
      v.schedules[copy_phase] = &rt.schedule("copy/" + v.name, policy);
      // Both loops bisect [0, n) with the same grain, so init's tree fits the copy.
      if (follow) v.schedules[copy_phase]->follow(v.schedules[init_phase]->name());
      variants.push_back(std::move(v));
    };
    for (const std::string& p : policies) {
      const bool follow = follow_opt->count() > 0 ? follow_init && cws_apps::replays(p)
                                                  : cws_apps::replays(p) && p != cws::policy::evolve;
      if (p == cws::policy::random) {
        add_cws("cws-random-firsttouch", numa::first_touch, pages_kind::fresh, p, p, false);
        add_cws("cws-random-prefault", numa::first_touch, pages_kind::prefault, p, p, false);
        add_cws("cws-random-interleave", numa::interleaved, pages_kind::prefault, p, p, false);
      } else if (p == cws::policy::evolve && !follow) {
        // The copy's own evolve schedule; pages placed once by an untimed init
        // and then moved by evolve to where the copy runs them. The init loop
        // runs under --evolve-init (default random): as a second evolve
        // schedule over the same pages with another tree it would move them
        // back after each of its runs.
        add_cws("cws-evolve", numa::first_touch, pages_kind::once, p, evolve_init, false);
      } else {
        add_cws("cws-" + p, numa::first_touch, pages_kind::fresh, p, p, follow);
      }
    }
    using cws_apps::loop_flavour;
    for (auto [name, flavour] : {std::pair{"tbb-auto", loop_flavour::tbb_auto},
                                 {"tbb-affinity", loop_flavour::tbb_affinity},
                                 {"omp-static", loop_flavour::omp_static}})
      variants.push_back(
          {.name = name, .loop = flavour, .placement = numa::first_touch, .pages = pages_kind::prefault});
    for (variant& v : variants)
      v.loops =
          std::make_unique<cws_apps::block_loops>(env, v.loop, n, grain, std::vector{v.schedules[0], v.schedules[1]});

    const std::string page_homes = rt.page_homes().name();
    cws_apps::report out("memcopy", env,
                         {{"mb_per_array", mib},
                          {"elements", n},
                          {"grain", grain},
                          {"policies", policies},
                          {"evolve_init", evolve_init},
                          {"page_homes", page_homes},
                          {"iters", opt.iters},
                          {"runs", opt.plan.runs},
                          {"warmup", opt.plan.warmup},
                          {"order", cws_apps::to_string(opt.plan.order)}});
    bool all_ok = true;
    std::vector<std::string> notes;
    const std::uint64_t per_run = opt.iters;  // copy phases per run
    // Arrays placed once are allocated and first touched before the runs;
    // the schedules' iteration counts after that mark the first warm-up run.
    const auto prepare = [&](variant& v) {
      if (v.pages != pages_kind::fresh) {
        v.m = allocate(n, v);
        if (v.pages == pages_kind::once) run_loop(v, init_phase);  // first touch, untimed
      }
      if (!v.loops->runs_cws_phases()) return;
      v.first_init = v.schedules[init_phase]->iterations();
      v.first_copy = v.schedules[copy_phase]->iterations();
    };
    const auto one_run = [&](variant& v, cws_apps::phase_timer& t) {
      v.loops->begin_run(t);
      if (v.pages == pages_kind::fresh) {
        v.m = arrays{};  // unmap the previous run's pages before mapping fresh ones
        v.m = allocate(n, v);
      }
      t.time_reported("init", 1, [&] { return run_loop(v, init_phase); });
      t.time_reported("copy", opt.iters, [&] { return run_loop(v, copy_phase); });
    };
    // The figures only cws variants have: schedules, locality, pages moved.
    const auto report_cws = [&](variant& v, cws_apps::json& e, const cws_apps::cws_phase_clock& copy_clock) {
      const cws::schedule& init = *v.schedules[init_phase];
      const cws::schedule& copy = *v.schedules[copy_phase];
      e["policy"] = v.policy;
      e["schedules"] = {{"init", init.name()}, {"copy", copy.name()}};
      e["init_policy"] = v.init_policy;
      e["copy_follows"] = copy.follows();
      // What the last copy phase of this variant ran as (its typed report),
      // e.g. "stows" with the template "follows 'init/cws-stows': recorded
      // run #0" when the copy follows init.
      if (const cws::run_report* last = copy.last_report()) {
        e["copy_ran_as"] = last->label();
        e["copy_ran_as_kind"] = cws::to_string(last->ran_as);
        e["copy_template_from"] = last->template_from;
        if (v.policy == cws::policy::evolve) {
          e["converged"] = last->converged;
          const auto* evolved = cws::schedulers::store_of(rt).find(copy.name());
          e["converged_at"] =
              last->converged && evolved != nullptr ? cws_apps::json(evolved->converged_at) : cws_apps::json(nullptr);
        }
      }
      const auto* store_state = cws::schedulers::store_of(rt).find(copy.name());
      // Locality of the measured runs' phases (warm-up and verification left
      // out): each variant has its own schedules, so their iterations count
      // only this variant's runs, whatever ran in between.
      const std::uint64_t measured_copy = v.first_copy + std::uint64_t{opt.plan.warmup} * per_run;
      const std::uint64_t copy_end = v.first_copy + std::uint64_t{opt.plan.warmup + opt.plan.runs} * per_run;
      const auto copy_sum = tally.summarize(copy.name(), measured_copy, copy_end);
      const auto init_sum =
          tally.summarize(init.name(), v.first_init + opt.plan.warmup, v.first_init + opt.plan.warmup + opt.plan.runs);
      cws_apps::put_locality(e, copy_sum, "copy_local_share");
      e["init_local_share"] = init_sum.reported ? cws_apps::json(init_sum.mean_share) : cws_apps::json(nullptr);
      e["init_pages_moved"] = init_sum.pages_moved;
      cws_apps::put_phase_breakdown(e, copy_clock);  // of the copy, the headline
      // Every copy phase of the variant (warm-up, measured, verification): what
      // ran, its local share and what the relocalization after it moved.
      cws_apps::json phases = cws_apps::json::array();
      for (std::uint64_t it = v.first_copy; it < copy.iterations(); ++it) {
        cws_apps::json p = {{"iteration", it}, {"measured", it >= measured_copy && it < copy_end}};
        if (store_state != nullptr)
          for (const auto& r : store_state->history)
            if (r.iteration == it) {
              p["ran_as"] = r.label();
              p["ran_as_kind"] = cws::to_string(r.ran_as);
              p["designated"] = r.designated;
              p["extra_steals"] = r.extra_steals;
              p["taken_back"] = r.taken_back;
            }
        const cws::locality_report* l = tally.locality_of(copy.name(), it);
        p["local_share"] = l ? cws_apps::json(l->share()) : cws_apps::json(nullptr);
        std::uint64_t moved = 0;
        const auto relocs = tally.relocalizations_of(copy.name(), it);
        for (const auto* r : relocs) moved += r->pages_moved;
        p["pages_moved"] = relocs.empty() ? cws_apps::json(nullptr) : cws_apps::json(moved);
        phases.push_back(std::move(p));
      }
      e["copy_phases"] = std::move(phases);
      if (copy.follows().empty()) return;
      // Schedule follows data: the copy ran where init put the pages, so
      // relocalizing after it should find nothing to move. Untimed; the
      // arrays are still mapped.
      const cws::relocalization_report& r = rt.relocalize(*v.schedules[copy_phase]);
      e["follow_init_relocalize_pages_moved"] = r.pages_moved;
      e["follow_init_relocalize_pages_examined"] = r.pages_examined;
      e["follow_init_relocalize_s"] = r.seconds;
      notes.push_back(
          fmt::format("{}: rt.relocalize(\"{}\") after the runs (untimed) moved {} of {} pages in "
                      "{:.2f} ms ({}; schedule follows data: expected 0)",
                      v.name, copy.name(), r.pages_moved, r.pages_examined, r.seconds * 1e3, r.backend));
    };
    // After the variant's last run: verification, its report, its arrays released.
    const auto finish = [&](variant& v, const cws_apps::phase_timer& timer) {
      const cws_apps::cws_phase_clock copy_clock = v.loops->clock(copy_phase);  // before the verification adds to it
      // Verification, untimed: a pattern in A, one more copy with the same loop, compare.
      double* a = v.m.a.data();
      const double* b = v.m.b.data();
      for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<double>(i);
      run_loop(v, copy_phase);
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) ok = ok && b[i] == static_cast<double>(i);
      all_ok = all_ok && ok;

      cws_apps::json& e = out.add(v.name);
      cws_apps::put_timing(e, timer["copy"]);  // median_s / min_s: the copy phase
      cws_apps::put_timing(e, timer["init"], "init_");
      cws_apps::put_timing(e, timer["copy"], "copy_");
      e["init_gbps"] = 2 * bytes / timer["init"].median() / 1e9;  // two arrays written
      e["gbps"] = 2 * bytes / timer["copy"].median() / 1e9;       // one array read, one written
      e["placement"] = cws::numa::to_string(v.placement);
      e["prefaulted"] = v.pages == pages_kind::prefault;
      // false e.g. on a synthetic topology, where the placement is intent only.
      e["kernel_placed"] = v.m.a.memory()->kernel_placed();
      e["pages"] = cws::numa::to_string(v.placement) + (v.pages == pages_kind::fresh      ? ", fresh each run"
                                                        : v.pages == pages_kind::prefault ? ", pre-faulted"
                                                                                          : ", placed once by init");
      e["verified"] = ok;
      if (v.loops->runs_cws_phases()) report_cws(v, e, copy_clock);
      v.m = arrays{};  // under --order sequential the next variant's arrays take their place
    };
    cws_apps::measure_variants(variants, opt.plan, prepare, one_run, finish);
    out.add_ratio("ratio_vs_omp_static", "gbps", "omp-static");

    env.save_trace();
    std::vector<std::string> all_notes = {
        "medians over runs; copy GB/s counts bytes read + written (2 x array size); every time is the wall clock "
        "around the call (rt.run, tbb::parallel_for, the OpenMP region), fork, join and rt.run's after-phase work "
        "included (JSON phase_wall_s / outside_wall_s split a cws copy);",
        "'vs omp-static' is copy GB/s / omp-static copy GB/s (higher is better);",
        fmt::format("local %: mean over the measured copy phases of the share of declared bytes on a page homed on "
                    "the toucher's node (page homes: {}); last %: the last measured copy phase;",
                    page_homes),
        "moved / reloc ms: pages moved and time spent by relocalizations of the copy schedule after measured runs "
        "(evolve's, automatic)"};
    all_notes.insert(all_notes.end(), notes.begin(), notes.end());
    out.print(opt.json,
              fmt::format("cws-memcopy: 2 x {} MiB of doubles, grain {}, {} runs (+{} warm-up), {} copy(ies) per run, "
                          "policies {}",
                          mib, grain, opt.plan.runs, opt.plan.warmup, opt.iters, fmt::join(policies, ",")),
              {{"variant", "variant"},
               {"init ms", "init_median_s", 1e3, 2},
               {"copy ms", "copy_median_s", 1e3, 2},
               {"copy min ms", "copy_min_s", 1e3, 2},
               {"copy GB/s", "gbps", 1, 2},
               {"vs omp-static", "ratio_vs_omp_static", 1, 2},
               {"local %", "copy_local_share", 100, 1},
               {"last %", "copy_local_share_last", 100, 1},
               {"moved", "pages_moved"},
               {"reloc ms", "relocalization_s", 1e3, 2},
               {"pages", "pages"},
               {"copy ran as", "copy_ran_as"},
               {"ok", "verified"}},
              all_notes);
    if (!all_ok) return cws_apps::report_error(app.get_name(), "a variant produced a wrong copy", 1);
    return 0;
  });
}
