// cws-memcopy: the SC14 motivating example. Two arrays are initialized in
// parallel (phase "init") and then copied in parallel (phase "copy"). Under
// random work stealing the copy runs on other workers than the ones that
// first-touched the pages; OpenMP static gives both loops the same
// iteration -> thread mapping. The variants separate the effects of page
// placement (first touch, pre-faulted, interleaved) and of loop scheduling.
//
// Schedule follows data (SC14, DESIGN §5): under a replaying policy (stows,
// stuws, relws, evolve) the copy schedule follows the init schedule, i.e. it
// replays the steal tree recorded by init, so each block is copied by the
// worker that first touched it (--follow-init, on by default for those
// policies; --no-follow-init gives the copy its own template).

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/report.hpp"

namespace {

enum class loop_kind { cws, tbb_auto, tbb_affinity, omp_static };
enum phase_id { init_phase = 0, copy_phase = 1 };

struct variant {
  std::string name;
  loop_kind loop;
  cws::numa::placement placement;
  bool prefault;  // pages faulted in outside the timed region (else: fresh allocation each run)
};

// Runs body(i) for every i in [0, n) with the loop flavour of a variant.
class loop_runner {
 public:
  loop_runner(cws_apps::bench_env& env, const std::string& policy, std::size_t grain, bool follow_init)
      : env_(env), grain_(grain) {
    // Created up front so that an unknown policy fails before anything runs.
    schedules_[init_phase] = &env.rt().schedule("init", policy);
    schedules_[copy_phase] = &env.rt().schedule("copy", policy);
    // Both loops bisect [0, n) with the same grain, so init's tree fits the copy.
    if (follow_init) schedules_[copy_phase]->follow(schedules_[init_phase]->name());
  }

  template <class Body>
  void run(loop_kind kind, phase_id ph, std::size_t n, const Body& body) {
    auto range_body = [&body](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) body(i);
    };
    auto tbb_body = [&](const tbb::blocked_range<std::size_t>& r) { range_body(r.begin(), r.end()); };
    const tbb::blocked_range<std::size_t> all(0, n, grain_);
    switch (kind) {
      case loop_kind::cws:
        env_.rt().run(*schedules_[ph], [&] { cws::parallel_for_range(0, n, range_body, grain_); });
        break;
      case loop_kind::tbb_auto:
        env_.in_tbb([&] { tbb::parallel_for(all, tbb_body, tbb::auto_partitioner()); });
        break;
      case loop_kind::tbb_affinity:
        // One partitioner per loop, reused across runs: it replays the previous mapping.
        env_.in_tbb([&] { tbb::parallel_for(all, tbb_body, affinity_[ph]); });
        break;
      case loop_kind::omp_static:
#pragma omp parallel for schedule(static)
        for (std::size_t i = 0; i < n; ++i) body(i);
        break;
    }
  }

 private:
  cws_apps::bench_env& env_;
  std::size_t grain_;
  cws::schedule* schedules_[2] = {};
  tbb::affinity_partitioner affinity_[2];
};

// The policies that replay a template (schedule::follow is meaningful to them).
bool replays(const std::string& policy) {
  return policy == cws::policy::stows || policy == cws::policy::stuws || policy == cws::policy::relws ||
         policy == cws::policy::evolve;
}

struct arrays {
  cws::numa::array<double> a, b;
};

arrays allocate(std::size_t n, const variant& v) {
  arrays m{cws::numa::allocate<double>(n, v.placement), cws::numa::allocate<double>(n, v.placement)};
  if (v.prefault) {
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
  app.add_option("--mb", mib, "Size of each array in MiB")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  // Large leaves matter here: glibc's memset/memcpy switch to non-temporal
  // stores only for large blocks, and OpenMP static hands each thread one block.
  app.add_option("--grain", grain, "Elements per leaf of the cws and TBB loops (0: elements / (2 x workers))")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 40))
      ->capture_default_str();
  bool follow_init = false;
  CLI::Option* follow_opt =
      app.add_flag("--follow-init,!--no-follow-init", follow_init,
                   "Schedule follows data: the copy phase replays the steal tree recorded by the init phase "
                   "(schedule::follow), so each block is copied where init first-touched it. Default: on for "
                   "the replaying policies (stows, stuws, relws, evolve), off otherwise (no effect under random)");
  cws_apps::add_common_options(app, opt);

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    if (follow_opt->count() == 0) follow_init = replays(opt.policy);
    cws_apps::bench_env env(opt);
    const std::size_t n = mib * (std::size_t{1} << 20) / sizeof(double);
    if (grain == 0) grain = std::max<std::size_t>(1, n / (2 * std::size_t{env.workers()}));
    loop_runner loops(env, opt.policy, grain, follow_init);
    const double bytes = static_cast<double>(n * sizeof(double));
    const std::string cws_name = "cws-" + opt.policy;  // prefix of the cws variants
    namespace numa = cws::numa;
    const std::vector<variant> variants = {
        {cws_name + "-firsttouch", loop_kind::cws, numa::first_touch, false},
        {cws_name + "-prefault", loop_kind::cws, numa::first_touch, true},
        {cws_name + "-interleave", loop_kind::cws, numa::interleaved, true},
        {"tbb-auto", loop_kind::tbb_auto, numa::first_touch, true},
        {"tbb-affinity", loop_kind::tbb_affinity, numa::first_touch, true},
        {"omp-static", loop_kind::omp_static, numa::first_touch, true},
    };

    cws_apps::report out("memcopy", env, {{"mb_per_array", mib}, {"elements", n}, {"grain", grain},
                                          {"policy", opt.policy}, {"follow_init", follow_init},
                                          {"iters", opt.iters},
                                          {"runs", opt.plan.runs}, {"warmup", opt.plan.warmup}});
    bool all_ok = true;
    for (const variant& v : variants) {
      arrays m;
      if (v.prefault) m = allocate(n, v);
      double* a = nullptr;
      double* b = nullptr;
      auto timer = cws_apps::measure(v.name, opt.plan, [&](cws_apps::phase_timer& t) {
        if (!v.prefault) {
          m = arrays{};  // unmap the previous run's pages before mapping fresh ones
          m = allocate(n, v);
        }
        a = m.a.data();
        b = m.b.data();
        t.time("init", [&] { loops.run(v.loop, init_phase, n, [=](std::size_t i) { a[i] = 0, b[i] = 0; }); });
        t.time_mean("copy", opt.iters, [&] { loops.run(v.loop, copy_phase, n, [=](std::size_t i) { b[i] = a[i]; }); });
      });
      // Verification, untimed: a pattern in A, one more copy with the same loop, compare.
      for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<double>(i);
      loops.run(v.loop, copy_phase, n, [=](std::size_t i) { b[i] = a[i]; });
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
      e["prefaulted"] = v.prefault;
      // false e.g. on a synthetic topology, where the placement is intent only.
      e["kernel_placed"] = m.a.memory()->kernel_placed();
      e["pages"] = cws::numa::to_string(v.placement) + (v.prefault ? ", pre-faulted" : ", fresh each run");
      e["verified"] = ok;
      // What the last copy phase of this variant ran as (cws variants), e.g.
      // "stows" with the template "follows 'init': recorded run #0" when the copy follows init.
      if (v.loop == loop_kind::cws) {
        const auto* copy_state = cws::schedulers::store_of(env.rt()).find("copy");
        if (copy_state != nullptr && !copy_state->history.empty()) {
          e["copy_ran_as"] = copy_state->history.back().ran_as;
          e["copy_template_from"] = copy_state->history.back().template_from;
        } else {
          e["copy_ran_as"] = opt.policy;  // random keeps no history in the store: nothing is replayed
        }
      }
    }
    out.add_ratio("ratio_vs_omp_static", "gbps", "omp-static");

    env.save_trace();
    out.print(opt.json,
              fmt::format("cws-memcopy: 2 x {} MiB of doubles, grain {}, {} runs (+{} warm-up), {} copy(ies) per run, "
                          "policy {}{}",
                          mib, grain, opt.plan.runs, opt.plan.warmup, opt.iters, opt.policy,
                          follow_init ? " (copy follows init)" : ""),
              {{"variant", "variant"},
               {"init ms", "init_median_s", 1e3, 2},
               {"copy ms", "copy_median_s", 1e3, 2},
               {"copy min ms", "copy_min_s", 1e3, 2},
               {"copy GB/s", "gbps", 1, 2},
               {"vs omp-static", "ratio_vs_omp_static", 1, 2},
               {"pages", "pages"},
               {"copy ran as", "copy_ran_as"},
               {"ok", "verified"}},
              {"medians over runs; copy GB/s counts bytes read + written (2 x array size);",
               "'vs omp-static' is copy GB/s / omp-static copy GB/s (higher is better)"});
    if (!all_ok) return cws_apps::report_error(app.get_name(), "a variant produced a wrong copy", 1);
    return 0;
  });
}
