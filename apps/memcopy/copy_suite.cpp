#include "memcopy/copy_suite.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

#include "common/table_columns.hpp"

namespace memcopy {

using cws_apps::json;
using cws_apps::loop_flavour;
namespace numa = cws::numa;
namespace col = cws_apps::columns;

copy_suite::copy_suite(cws_apps::bench_env& env, options& o, const std::vector<std::string>& policies)
    : env_(env),
      opt_(o),
      policies_(policies),
      n_(o.mib * (std::size_t{1} << 20) / sizeof(double)),
      bytes_(static_cast<double>(n_ * sizeof(double))),
      tally_(env.rt()) {
  if (o.grain == 0) o.grain = std::max<std::size_t>(1, n_ / (2 * std::size_t{env.workers()}));
  for (const std::string& p : policies_) {
    const bool follow =
        o.follow_given ? o.follow_init && cws_apps::replays(p) : cws_apps::replays(p) && p != cws::policy::evolve;
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
      add_cws("cws-evolve", numa::first_touch, pages_kind::once, p, o.evolve_init, false);
    } else {
      add_cws("cws-" + p, numa::first_touch, pages_kind::fresh, p, p, follow);
    }
  }
  for (auto [name, flavour] : {std::pair{"tbb-auto", loop_flavour::tbb_auto},
                               {"tbb-affinity", loop_flavour::tbb_affinity},
                               {"omp-static", loop_flavour::omp_static}})
    variants_.push_back({.name = name, .loop = flavour, .placement = numa::first_touch, .pages = pages_kind::prefault});
  for (variant& v : variants_)
    v.loops =
        std::make_unique<cws_apps::block_loops>(env, v.loop, n_, o.grain, std::vector{v.schedules[0], v.schedules[1]});
}

void copy_suite::add_cws(std::string name, numa::placement where, pages_kind pages, const std::string& policy,
                         const std::string& init_policy, bool follow) {
  cws::runtime& rt = env_.rt();
  variant v{.name = std::move(name),
            .loop = loop_flavour::cws,
            .placement = where,
            .pages = pages,
            .policy = policy,
            .init_policy = init_policy};
  v.schedules[init_phase] = &rt.schedule("init/" + v.name, init_policy);
  v.schedules[copy_phase] = &rt.schedule("copy/" + v.name, policy);
  // Both loops bisect [0, n) with the same grain, so init's tree fits the copy.
  if (follow) v.schedules[copy_phase]->follow(v.schedules[init_phase]->name());
  variants_.push_back(std::move(v));
}

json copy_suite::params() const {
  json p = {{"mb_per_array", opt_.mib}, {"elements", n_}, {"grain", opt_.grain}, {"policies", policies_}};
  p.update({{"evolve_init", opt_.evolve_init}, {"page_homes", env_.rt().page_homes().name()}});
  p["iters"] = opt_.common.iters;
  p.update(cws_apps::plan_params(opt_.common.plan));
  return p;
}

arrays copy_suite::allocate(const variant& v) const {
  arrays m{numa::allocate<double>(n_, v.placement), numa::allocate<double>(n_, v.placement)};
  if (v.pages == pages_kind::prefault) {
    numa::prefault_zero(m.a);
    numa::prefault_zero(m.b);
  }
  return m;
}

// The leaves of both loops touch a[lo, hi) and b[lo, hi); the cws ones say so.
double copy_suite::run_loop(variant& v, phase_id ph) {
  double* const a = v.m.a.data();
  double* const b = v.m.b.data();
  const bool declare = v.runs_cws();
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

void copy_suite::prepare(variant& v) {
  if (v.pages != pages_kind::fresh) {
    v.m = allocate(v);
    if (v.pages == pages_kind::once) run_loop(v, init_phase);  // first touch, untimed
  }
  if (!v.runs_cws()) return;
  v.first_init = v.schedules[init_phase]->iterations();
  v.first_copy = v.schedules[copy_phase]->iterations();
  // Every copy phase's line: the warm-up and measured runs', and the
  // verification's copy after them (one more run of the map).
  const cws_apps::run_plan& plan = opt_.common.plan;
  v.loops->keep_lines(copy_phase, {v.first_copy, opt_.common.iters, plan.warmup, plan.warmup + plan.runs + 1});
}

void copy_suite::one_run(variant& v, cws_apps::phase_timer& t) {
  v.loops->begin_run(t);
  if (v.pages == pages_kind::fresh) {
    v.m = arrays{};  // unmap the previous run's pages before mapping fresh ones
    v.m = allocate(v);
  }
  t.time_reported("init", 1, [&] { return run_loop(v, init_phase); });
  t.time_reported("copy", opt_.common.iters, [&] { return run_loop(v, copy_phase); });
}

void copy_suite::put_figures(const variant& v, const cws_apps::phase_timer& t, json& e) const {
  cws_apps::put_timing(e, t["copy"]);  // median_s / min_s: the copy phase
  cws_apps::put_timing(e, t["init"], "init_");
  cws_apps::put_timing(e, t["copy"], "copy_");
  e["init_gbps"] = 2 * bytes_ / t["init"].median() / 1e9;  // two arrays written
  e["gbps"] = 2 * bytes_ / t["copy"].median() / 1e9;       // one array read, one written
  e["placement"] = numa::to_string(v.placement);
  e["prefaulted"] = v.pages == pages_kind::prefault;
  // false e.g. on a synthetic topology, where the placement is intent only.
  e["kernel_placed"] = v.m.a.memory()->kernel_placed();
  e["pages"] = numa::to_string(v.placement) + (v.pages == pages_kind::fresh      ? ", fresh each run"
                                               : v.pages == pages_kind::prefault ? ", pre-faulted"
                                                                                 : ", placed once by init");
}

void copy_suite::report_cws(const variant& v, json& e, const cws_apps::cws_phase_clock& copy_clock,
                            std::vector<std::string>& notes) const {
  cws::runtime& rt = env_.rt();
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
      e["converged_at"] = last->converged && evolved != nullptr ? json(evolved->converged_at) : json(nullptr);
    }
  }
  // Locality of the measured runs' phases (warm-up and verification left
  // out): each variant has its own schedules, so their iterations count
  // only this variant's runs, whatever ran in between.
  const cws_apps::run_plan& plan = opt_.common.plan;
  const std::uint64_t per_run = opt_.common.iters;  // copy phases per run
  const std::uint64_t measured_copy = v.first_copy + std::uint64_t{plan.warmup} * per_run;
  const std::uint64_t copy_end = v.first_copy + std::uint64_t{plan.warmup + plan.runs} * per_run;
  const auto copy_sum = tally_.summarize(copy.name(), measured_copy, copy_end);
  const auto init_sum =
      tally_.summarize(init.name(), v.first_init + plan.warmup, v.first_init + plan.warmup + plan.runs);
  cws_apps::put_locality(e, copy_sum, "copy_local_share");
  e["init_local_share"] = cws_apps::share_or_null(init_sum);
  e["init_pages_moved"] = init_sum.pages_moved;
  cws_apps::put_phase_breakdown(e, copy_clock);  // of the copy, the headline
  e["copy_phases"] = copy_phases(v, measured_copy, copy_end);
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
}

// Every copy phase of the variant (warm-up, measured [measured, end),
// verification): what ran, its local share and what the relocalization
// after it moved.
json copy_suite::copy_phases(const variant& v, std::uint64_t measured, std::uint64_t end) const {
  const cws::schedule& copy = *v.schedules[copy_phase];
  const std::vector<cws_apps::iteration_line>& lines = v.loops->lines(copy_phase);  // by iteration
  auto line = lines.begin();
  json phases = json::array();
  for (std::uint64_t it = v.first_copy; it < copy.iterations(); ++it) {
    json p = {{"iteration", it}, {"measured", it >= measured && it < end}};
    while (line != lines.end() && line->report.phase.iteration < it) ++line;
    if (line != lines.end() && line->report.phase.iteration == it) {
      const cws::run_report& r = line->report;
      p["ran_as"] = r.label();
      p["ran_as_kind"] = cws::to_string(r.ran_as);
      p["designated"] = r.designated();
      p["extra_steals"] = r.extra_steals();
      p["taken_back"] = r.taken_back();
    }
    const cws_apps::locality_figures* l = tally_.locality_of(copy.name(), it);
    p["local_share"] = l ? json(l->share()) : json(nullptr);
    std::uint64_t moved = 0;
    const auto relocs = tally_.relocalizations_of(copy.name(), it);
    for (const auto* r : relocs) moved += r->pages_moved;
    p["pages_moved"] = relocs.empty() ? json(nullptr) : json(moved);
    phases.push_back(std::move(p));
  }
  return phases;
}

int copy_suite::conclude(cws_apps::variant_runner& runner) const {
  const cws_apps::common_options& c = opt_.common;
  return runner.conclude(
      {{"ratio_vs_omp_static", "gbps", "omp-static"}},
      fmt::format("cws-memcopy: 2 x {} MiB of doubles, grain {}, {} runs (+{} warm-up), {} copy(ies) per run, "
                  "policies {}",
                  opt_.mib, opt_.grain, c.plan.runs, c.plan.warmup, c.iters, fmt::join(policies_, ",")),
      {col::as_is("variant", "variant"), col::milliseconds("init ms", "init_median_s", 2),
       col::milliseconds("copy ms", "copy_median_s", 2), col::milliseconds("copy min ms", "copy_min_s", 2),
       col::fixed("copy GB/s", "gbps"), col::fixed("vs omp-static", "ratio_vs_omp_static"),
       col::percent("local %", "copy_local_share"), col::percent("last %", "copy_local_share_last"),
       col::as_is("moved", "pages_moved"), col::milliseconds("reloc ms", "relocalization_s", 2),
       col::as_is("pages", "pages"), col::as_is("copy ran as", "copy_ran_as"), col::as_is("ok", "verified")},
      {"medians over runs; copy GB/s counts bytes read + written (2 x array size); every time is the wall clock "
       "around the call (rt.run, tbb::parallel_for, the OpenMP region), fork, join and rt.run's after-phase work "
       "included (JSON phase_wall_s / outside_wall_s split a cws copy);",
       "'vs omp-static' is copy GB/s / omp-static copy GB/s (higher is better);",
       fmt::format("local %: mean over the measured copy phases of the share of declared bytes on a page homed on "
                   "the toucher's node (page homes: {}); last %: the last measured copy phase;",
                   env_.rt().page_homes().name()),
       "moved / reloc ms: pages moved and time spent by relocalizations of the copy schedule after measured runs "
       "(evolve's, automatic)"});
}

}  // namespace memcopy
