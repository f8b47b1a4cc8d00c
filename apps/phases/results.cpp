#include "phases/results.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>

#include "common/variant_runner.hpp"

namespace phases {

namespace {

using cws_apps::json;

std::string env_or_unset(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string("unset");
}

std::vector<unsigned> calls_per_run(const variant_set& set) {
  std::vector<unsigned> calls;
  for (const size_case& s : set.sizes()) calls.push_back(s.calls);
  return calls;
}

std::vector<unsigned> gap_cycles_per_run(const variant_set& set) {
  std::vector<unsigned> cycles;
  for (const double g : set.gaps_ms()) cycles.push_back(cycles_for(g * 1e-3));
  return cycles;
}

// The cws breakdown: one row per cws variant and size, a column per part (timeline_figures.hpp).
cws_apps::table breakdown_table() {
  cws_apps::table t{"cws rt.run broken down, us (median over as many timed extra calls; phase_timeline)",
                    json::array(),
                    {{"variant", "variant"}, {"size", "size"}}};
  for (const auto& [title, key] : cws_apps::timeline_figures::table_parts) t.columns.push_back({title, key, 1, 2});
  return t;
}

// The gaps of variant v: its JSON list, and its row of the gaps table.
json gaps_json(const variant_set& set, const variant& v, json& gap_row) {
  json per_gap = json::array();
  for (std::size_t g = 0; g < set.gaps_ms().size(); ++g) {
    const double gap_ms = set.gaps_ms()[g], gap_s = gap_ms * 1e-3;
    const cws_apps::samples& c = v.gap_cpu[g];
    per_gap.push_back({{"gap_ms", gap_ms},
                       {"cycles", cycles_for(gap_s)},
                       {"runs", c.size()},
                       {"cpu_pct_of_gap", 100 * c.median()},
                       {"cpu_pct_of_gap_min", 100 * c.min()},
                       {"cpu_s_per_gap", c.median() * gap_s},
                       {"phase_pct_of_gap", 100 * v.gap_phase[g].median()}});
    gap_row[fmt::format("{}ms", gap_ms)] = 100 * c.median();
  }
  return per_gap;
}

}  // namespace

double run_conditions::current_load() {
  double load[1] = {0};
  return ::getloadavg(load, 1) == 1 ? load[0] : -1.0;
}

run_conditions run_conditions::at_start(double load, const cws::runtime& rt) {
  return {load, env_or_unset("OMP_WAIT_POLICY"), env_or_unset("GOMP_SPINCOUNT"), rt.config().blocktime_us};
}

json run_params(const variant_set& set, const options& o, const cws_apps::common_options& common,
                const std::vector<std::string>& policies, const run_conditions& c) {
  return cws_apps::with_plan_params({{"sizes_kib", o.sizes_kib},
                                     {"blocks", set.blocks()},
                                     {"kernel", "a[i] = a[i] * 0.5 + b[i]"},
                                     {"calls_per_run", calls_per_run(set)},
                                     {"iters", common.iters}},
                                    common.plan,
                                    {{"policies", policies},
                                     {"gaps_ms", set.gaps_ms()},
                                     {"gap_kib", o.gap_kib},
                                     {"touches", o.declare_touches},
                                     {"skew_pct", o.skew_pct},
                                     {"gap_wait", "busy"},
                                     {"gap_cycles", gap_cycles_per_run(set)},
                                     {"cws_blocktime_us", c.cws_blocktime_us},
                                     {"omp_wait_policy", c.omp_wait_policy},
                                     {"gomp_spincount", c.gomp_spincount},
                                     {"load_average", c.load_average}});
}

results add_results(cws_apps::report& out, const variant_set& set, const std::vector<cws_apps::phase_timer>& timers) {
  const std::vector<size_case>& sizes = set.sizes();
  cws_apps::table times{"us per phase", json::array(), {{"variant", "variant"}}};
  cws_apps::table ratios{"time / omp-static time (lower is better)", json::array(), {{"variant", "variant"}}};
  cws_apps::table gaps{
      "CPU of the runtime's threads during a serial gap, % of the gap", json::array(), {{"variant", "variant"}}};
  cws_apps::table parts = breakdown_table();
  for (const size_case& s : sizes) {
    times.columns.push_back({s.label, s.label, 1, 1});
    ratios.columns.push_back({s.label, s.label, 1, 2});
  }
  for (const double g : set.gaps_ms()) gaps.columns.push_back({fmt::format("{}ms", g), fmt::format("{}ms", g), 1, 1});
  times.columns.push_back({"ok", "verified"});

  const cws_apps::phase_timer& omp = timers.back();  // omp-static is the last variant
  results r;
  for (std::size_t i = 0; i < set.variants().size(); ++i) {
    const variant& v = set.variants()[i];
    const bool cws_variant = v.loops->runs_cws_phases();
    json& e = out.add(v.name);
    if (cws_variant) e["policy"] = v.policy;
    json per_size = json::array();
    json time_row = {{"variant", v.name}}, ratio_row = {{"variant", v.name}};
    bool ok = true;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      const size_case& s = sizes[k];
      const cws_apps::samples& t = timers[i][s.label];
      const double omp_median = omp[s.label].median();
      const json ratio = omp_median > 0 ? json(t.median() / omp_median) : json(nullptr);
      json p = {{"size", s.label},
                {"kib", s.kib},
                {"elements", s.elements},
                {"calls_per_run", s.calls},
                {"median_s", t.median()},
                {"min_s", t.min()},
                {"runs", t.size()},
                {"us_per_phase", t.median() * 1e6},
                {"ratio_vs_omp_static", ratio},
                {"checksum", v.checksums[k]},
                {"verified", static_cast<bool>(v.verified[k])}};
      if (cws_variant) {
        cws_apps::put_phase_breakdown(p, v.clocks[k]);
        p["timeline"] = v.timelines[k].to_json();
        json row = p["timeline"];
        row["variant"] = v.name;
        row["size"] = s.label;
        parts.rows.push_back(std::move(row));
      }
      per_size.push_back(std::move(p));
      time_row[s.label] = t.median() * 1e6;
      ratio_row[s.label] = ratio;
      ok = ok && v.verified[k];
    }
    e["phases"] = std::move(per_size);
    json gap_row = {{"variant", v.name}};
    if (!set.gaps_ms().empty()) e["gaps"] = gaps_json(set, v, gap_row);
    e["verified"] = ok;
    time_row["verified"] = ok;
    r.all_verified = r.all_verified && ok;
    times.rows.push_back(std::move(time_row));
    ratios.rows.push_back(std::move(ratio_row));
    gaps.rows.push_back(std::move(gap_row));
  }
  r.tables = {times, ratios, parts};
  if (!set.gaps_ms().empty()) r.tables.push_back(gaps);
  return r;
}

std::vector<std::string> table_notes(const variant_set& set, const options& o, const cws_apps::run_plan& plan,
                                     const run_conditions& c) {
  const std::vector<unsigned> calls = calls_per_run(set);
  std::vector<std::string> notes = {
      fmt::format("a phase: one call of the loop (rt.run, tbb::parallel_for in the arena, the OpenMP region) over "
                  "{} leaves of a[i] = a[i] * 0.5 + b[i], a and b pre-faulted (empty: the leaves hold nothing);",
                  set.blocks()),
      fmt::format("us: the wall clock around each call, mean of a run's calls ({} for the smallest size, at least 3 "
                  "for the largest), median over {} runs (+{} warm-up), interleaved; one untimed call per size first;",
                  calls.empty() ? 0u : calls.front(), plan.runs, plan.warmup),
      "ok: every leaf ran once per call and the checksum equals the serial loop's (3 calls of each size);",
      fmt::format("load average at start: {:.2f} (other processes stretch the phases that wait for a preempted "
                  "thread)",
                  c.load_average)};
  if (o.skew_pct != 0 && set.blocks() > 1)
    notes.insert(notes.begin() + 1,
                 fmt::format("leaves of unequal work (--skew {}): leaf j of {} covers 1 + {:.2f} x j/{} shares of "
                             "the elements, leaves {} and up (a bisection's later half) {:.0f} % of them;",
                             o.skew_pct, set.blocks(), o.skew_pct / 100.0, set.blocks() - 1, set.blocks() / 2,
                             100.0 * (1.0 - work_before(set.blocks() / 2, set.blocks(), o.skew_pct / 100.0))));
  if (!set.gaps_ms().empty())
    notes.push_back(fmt::format(
        "gaps: a phase of {} KiB, then the caller busy-waits the gap, {} times per run; CPU of every other thread "
        "of the process (getrusage minus the caller's thread clock) over the gaps' wall time, median over runs; "
        "100 % = one core busy through every gap; includes those threads' part of the phases (JSON "
        "phase_pct_of_gap: the phases' wall time, same scale); cws blocktime {} us, OMP_WAIT_POLICY {}, "
        "GOMP_SPINCOUNT {}",
        o.gap_kib, fmt::join(gap_cycles_per_run(set), "/"), c.cws_blocktime_us, c.omp_wait_policy, c.gomp_spincount));
  return notes;
}

}  // namespace phases
