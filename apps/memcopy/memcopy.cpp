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

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"

namespace {

enum class loop_kind { cws, tbb_auto, tbb_affinity, omp_static };
enum phase_id { init_phase = 0, copy_phase = 1 };

// When a variant's arrays are allocated and first written.
enum class pages_kind {
  fresh,     // a fresh allocation every run: the run's init phase does the first touch
  prefault,  // allocated once, faulted in by the main thread (prefault_zero) before the runs
  once,      // allocated once, first touched by one untimed init phase of the variant before the runs
};

struct variant {
  std::string name;
  loop_kind loop;
  cws::numa::placement placement;
  pages_kind pages;
  // cws variants only:
  std::string policy;       // of the copy schedule
  std::string init_policy;  // of the init schedule
  bool follow_init = false; // the copy replays init's template
  cws::schedule* schedules[2] = {};
};

// Runs the leaves body(lo, hi) over [0, n) with the loop flavour of a variant
// and returns the seconds that count: a cws phase's wall_s (the locality
// report and any relocalization happen after the workers stopped and are
// left out), the wall-clock time of the loop for the others.
class loop_runner {
 public:
  loop_runner(cws_apps::bench_env& env, std::size_t grain) : env_(env), grain_(grain) {}

  template <class Body>
  double run(const variant& v, phase_id ph, std::size_t n, const Body& body) {
    auto tbb_body = [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); };
    const tbb::blocked_range<std::size_t> all(0, n, grain_);
    switch (v.loop) {
      case loop_kind::cws:
        return clock_.run([&] {
          return env_.rt().run(*v.schedules[ph], [&] { cws::parallel_for_range(0, n, body, grain_); }).wall_s;
        });
      case loop_kind::tbb_auto:
        return cws_apps::seconds_of(
            [&] { env_.in_tbb([&] { tbb::parallel_for(all, tbb_body, tbb::auto_partitioner()); }); });
      case loop_kind::tbb_affinity:
        // One partitioner per loop, reused across runs: it replays the previous mapping.
        return cws_apps::seconds_of([&] { env_.in_tbb([&] { tbb::parallel_for(all, tbb_body, affinity_[ph]); }); });
      case loop_kind::omp_static: {
        const std::size_t blocks = (n + grain_ - 1) / grain_, grain = grain_;
        return cws_apps::seconds_of([&] {
#pragma omp parallel for schedule(static)
          for (std::size_t k = 0; k < blocks; ++k) body(k * grain, std::min(n, (k + 1) * grain));
        });
      }
    }
    return 0;
  }

  // The cws phases' time outside their wall_s (cws_apps::cws_phase_clock).
  cws_apps::cws_phase_clock& clock() noexcept { return clock_; }

 private:
  cws_apps::bench_env& env_;
  std::size_t grain_;
  tbb::affinity_partitioner affinity_[2];
  cws_apps::cws_phase_clock clock_;
};

struct arrays {
  cws::numa::array<double> a, b;
};

arrays allocate(std::size_t n, const variant& v) {
  arrays m{cws::numa::allocate<double>(n, v.placement), cws::numa::allocate<double>(n, v.placement)};
  if (v.pages == pages_kind::prefault) {
    cws::numa::prefault_zero(m.a);
    cws::numa::prefault_zero(m.b);
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Parallel init + copy of two arrays (SC14 memcopy): cws vs TBB vs OpenMP static", "cws-memcopy"};
  cws_apps::common_options opt;
  std::size_t mib = 256;
  std::size_t grain = 0;  // 0: elements / (2 x workers)
  std::vector<std::string> policies = {"random", "stows", "evolve"};
  app.add_option("--mb", mib, "Size of each array in MiB")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  // Large leaves matter here: glibc's memset/memcpy switch to non-temporal
  // stores only for large blocks, and OpenMP static hands each thread one block.
  app.add_option("--grain", grain, "Elements per leaf of the cws, TBB and OpenMP loops (0: elements / (2 x workers))")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 40))
      ->capture_default_str();
  CLI::Option* policies_opt =
      app.add_option("--policies", policies,
                     "Comma-separated cws policies: random gives cws-random-firsttouch, -prefault and -interleave; "
                     "evolve gives cws-evolve (own copy schedule, pages relocalized by evolve); any other policy "
                     "P gives cws-P (copy follows init for stows, stuws, relws)")
          ->delimiter(',')
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
  CLI::Option* policy_opt = app.get_option("--policy");
  policy_opt->description("A single cws policy (same as --policies POLICY)");
  policy_opt->excludes(policies_opt);

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    if (policy_opt->count() > 0) policies = {opt.policy};
    {  // drop repeated names, keep the order
      std::vector<std::string> unique;
      for (const auto& p : policies)
        if (std::find(unique.begin(), unique.end(), p) == unique.end()) unique.push_back(p);
      policies = std::move(unique);
    }
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();
    cws_apps::locality_tally tally(rt);
    const std::size_t n = mib * (std::size_t{1} << 20) / sizeof(double);
    if (grain == 0) grain = std::max<std::size_t>(1, n / (2 * std::size_t{env.workers()}));
    loop_runner loops(env, grain);
    const double bytes = static_cast<double>(n * sizeof(double));
    namespace numa = cws::numa;

    // All schedules are created before anything runs, so an unknown policy fails at once (exit 2).
    std::vector<variant> variants;
    auto add_cws = [&](std::string name, numa::placement where, pages_kind pages, const std::string& policy,
                       const std::string& init_policy, bool follow) {
      variant v{std::move(name), loop_kind::cws, where, pages, policy, init_policy, follow, {}};
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
    variants.push_back({"tbb-auto", loop_kind::tbb_auto, numa::first_touch, pages_kind::prefault, "", "", false, {}});
    variants.push_back(
        {"tbb-affinity", loop_kind::tbb_affinity, numa::first_touch, pages_kind::prefault, "", "", false, {}});
    variants.push_back(
        {"omp-static", loop_kind::omp_static, numa::first_touch, pages_kind::prefault, "", "", false, {}});

    const std::string page_homes = rt.page_homes().name();
    cws_apps::report out("memcopy", env, {{"mb_per_array", mib}, {"elements", n}, {"grain", grain},
                                          {"policies", policies}, {"evolve_init", evolve_init},
                                          {"page_homes", page_homes},
                                          {"iters", opt.iters},
                                          {"runs", opt.plan.runs}, {"warmup", opt.plan.warmup}});
    bool all_ok = true;
    std::vector<std::string> notes;
    for (const variant& v : variants) {
      const bool is_cws = v.loop == loop_kind::cws;
      arrays m;
      double* a = nullptr;
      double* b = nullptr;
      // The leaves: both loops touch a[lo, hi) and b[lo, hi); the cws ones say so.
      const auto touch = [&](std::size_t lo, std::size_t hi) {
        if (!is_cws) return;
        cws::touch(a + lo, (hi - lo) * sizeof(double));
        cws::touch(b + lo, (hi - lo) * sizeof(double));
      };
      const auto init_body = [&](std::size_t lo, std::size_t hi) {
        touch(lo, hi);
        double* pa = a;
        double* pb = b;
        for (std::size_t i = lo; i < hi; ++i) pa[i] = 0, pb[i] = 0;
      };
      const auto copy_body = [&](std::size_t lo, std::size_t hi) {
        touch(lo, hi);
        const double* pa = a;
        double* pb = b;
        for (std::size_t i = lo; i < hi; ++i) pb[i] = pa[i];
      };
      if (v.pages != pages_kind::fresh) {
        m = allocate(n, v);
        a = m.a.data();
        b = m.b.data();
        if (v.pages == pages_kind::once) loops.run(v, init_phase, n, init_body);  // first touch, untimed
      }
      const std::uint64_t first_init = is_cws ? v.schedules[init_phase]->iterations() : 0;
      const std::uint64_t first_copy = is_cws ? v.schedules[copy_phase]->iterations() : 0;
      bool counting = false;
      auto timer = cws_apps::measure(v.name, opt.plan, [&](cws_apps::phase_timer& t) {
        if (t.recording() && !counting) loops.clock().reset(), counting = true;
        if (v.pages == pages_kind::fresh) {
          m = arrays{};  // unmap the previous run's pages before mapping fresh ones
          m = allocate(n, v);
          a = m.a.data();
          b = m.b.data();
        }
        t.time_reported("init", 1, [&] { return loops.run(v, init_phase, n, init_body); });
        t.time_reported("copy", opt.iters, [&] { return loops.run(v, copy_phase, n, copy_body); });
      });
      const double after_phase_s = loops.clock().after_phase_s();
      // Verification, untimed: a pattern in A, one more copy with the same loop, compare.
      for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<double>(i);
      loops.run(v, copy_phase, n, copy_body);
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
      e["kernel_placed"] = m.a.memory()->kernel_placed();
      e["pages"] = cws::numa::to_string(v.placement) + (v.pages == pages_kind::fresh      ? ", fresh each run"
                                                        : v.pages == pages_kind::prefault ? ", pre-faulted"
                                                                                          : ", placed once by init");
      e["verified"] = ok;
      if (!is_cws) continue;

      const cws::schedule& init = *v.schedules[init_phase];
      const cws::schedule& copy = *v.schedules[copy_phase];
      e["policy"] = v.policy;
      e["schedules"] = {{"init", init.name()}, {"copy", copy.name()}};
      e["init_policy"] = v.init_policy;
      e["copy_follows"] = copy.follows();
      // What the last copy phase of this variant ran as, e.g. "stows" with the
      // template "follows 'init/cws-stows': recorded run #0" when the copy follows init.
      if (const auto* s = cws::schedulers::store_of(rt).find(copy.name()); s != nullptr && !s->history.empty()) {
        e["copy_ran_as"] = s->history.back().ran_as;
        e["copy_template_from"] = s->history.back().template_from;
        if (v.policy == cws::policy::evolve) {
          e["converged"] = s->converged;
          e["converged_at"] = s->converged ? cws_apps::json(s->converged_at) : cws_apps::json(nullptr);
        }
      } else {
        e["copy_ran_as"] = v.policy;  // random keeps no history in the store: nothing is replayed
      }
      // Locality of the measured runs' phases (warm-up and verification left out).
      const std::uint64_t per_run = opt.iters;
      const auto copy_sum = tally.summarize(copy.name(), first_copy + std::uint64_t{opt.plan.warmup} * per_run,
                                            first_copy + std::uint64_t{opt.plan.warmup + opt.plan.runs} * per_run);
      const auto init_sum = tally.summarize(init.name(), first_init + opt.plan.warmup,
                                            first_init + opt.plan.warmup + opt.plan.runs);
      cws_apps::put_locality(e, copy_sum, "copy_local_share");
      e["init_local_share"] = init_sum.reported ? cws_apps::json(init_sum.mean_share) : cws_apps::json(nullptr);
      e["init_pages_moved"] = init_sum.pages_moved;
      e["after_phase_s"] = after_phase_s;
      // Every copy phase of the variant (warm-up, measured, verification): what
      // ran, its local share and what the relocalization after it moved.
      cws_apps::json phases = cws_apps::json::array();
      const auto* store_state = cws::schedulers::store_of(rt).find(copy.name());
      for (std::uint64_t it = first_copy; it < copy.iterations(); ++it) {
        cws_apps::json p = {{"iteration", it},
                            {"measured", it >= first_copy + std::uint64_t{opt.plan.warmup} * per_run &&
                                             it < first_copy + std::uint64_t{opt.plan.warmup + opt.plan.runs} * per_run}};
        if (store_state != nullptr)
          for (const auto& r : store_state->history)
            if (r.iteration == it) {
              p["ran_as"] = r.ran_as;
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
      if (!copy.follows().empty()) {
        // Schedule follows data: the copy ran where init put the pages, so
        // relocalizing after it should find nothing to move. Untimed.
        const cws::relocalization_report& r = rt.relocalize(*v.schedules[copy_phase]);
        e["follow_init_relocalize_pages_moved"] = r.pages_moved;
        e["follow_init_relocalize_pages_examined"] = r.pages_examined;
        e["follow_init_relocalize_s"] = r.seconds;
        notes.push_back(fmt::format("{}: rt.relocalize(\"{}\") after the runs (untimed) moved {} of {} pages in "
                                    "{:.2f} ms ({}; schedule follows data: expected 0)",
                                    v.name, copy.name(), r.pages_moved, r.pages_examined, r.seconds * 1e3,
                                    r.backend));
      }
    }
    out.add_ratio("ratio_vs_omp_static", "gbps", "omp-static");

    env.save_trace();
    std::vector<std::string> all_notes = {
        "medians over runs; copy GB/s counts bytes read + written (2 x array size); cws times are the phases' "
        "wall_s (locality report and relocalization come after it);",
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
