// cws-phases: what one parallel phase costs, from an empty one to one that
// streams two 64 MiB arrays, and what the runtimes' threads burn while the
// program runs serially between phases. cws under each policy of
// --policies, TBB parallel_for with the simple, static and affinity
// partitioners, OpenMP schedule(static), and the serial loop.
//
// One phase = one call the user makes: rt.run(...) around
// cws::parallel_for_range, tbb::parallel_for inside the arena, the OpenMP
// `parallel for` region. Every variant splits the same range into the same
// `--blocks` leaves (default one per worker: the OpenMP static mapping) and
// runs the same leaf code (kernel.cpp), a[i] = a[i] * 0.5 + b[i] over the
// first n doubles of two pre-faulted arrays. The empty phase has the same
// leaves with nothing in them: fork and join only.
//
// Times are the wall clock around each single call, so fork, join and
// whatever the runtime does after the workers stopped all count, for every
// runtime alike. A run of a variant makes, for every size, one untimed call
// (the previous variant left its buffers in the caches and its own threads
// asleep; a program that uses one runtime pays neither) and then `calls`
// timed ones; the run's sample is their mean, the figure the median over
// runs. Variants run in interleaved rounds (common/rounds.hpp).
//
// The gaps (gap_cpu.hpp): after its sizes, each run of a variant makes
// phases of --gap-kib separated by a busy-waited serial gap of each
// --gaps-ms, and measures the CPU time every other thread of the process
// used, as a share of the gaps' time.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/bench_env.hpp"
#include "common/block_loops.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"
#include "phases/gap_cpu.hpp"
#include "phases/kernel.hpp"
#include "phases/timeline_figures.hpp"

namespace {

struct size_case {
  std::size_t kib = 0;       // bytes of each array / 1024; 0: the empty phase
  std::size_t elements = 0;  // doubles of each array the phase covers
  std::string label;         // "empty", "1KiB", "64MiB": table column, timer series, schedule name
  unsigned calls = 0;        // timed calls per run
};

std::string label_of(std::size_t kib) {
  if (kib == 0) return "empty";
  return kib % 1024 == 0 ? fmt::format("{}MiB", kib / 1024) : fmt::format("{}KiB", kib);
}

// Timed calls per run: about 256 MiB of the two arrays per size and run, so a
// run of a large size takes tens of milliseconds, not seconds; at least 3,
// at most `most` (--iters).
unsigned calls_for(std::size_t kib, unsigned most) {
  if (kib == 0) return most;
  constexpr std::size_t budget_kib = 256 * 1024;
  return static_cast<unsigned>(std::clamp<std::size_t>(budget_kib / (2 * kib), std::min(3u, most), std::size_t{most}));
}

// Phases per gap length and run: about 100 ms of gaps, at least 5, so that
// the CPU clocks' tick granularity at both ends (gap_cpu.hpp) stays small.
unsigned cycles_for(double gap_s) { return std::max(5u, static_cast<unsigned>(0.1 / gap_s)); }

// The leaves of one phase over the first n doubles of a and b: leaf j of
// `blocks` is [j n / blocks, (j + 1) n / blocks). `visits`, during the
// verification only, counts the runs of each leaf.
struct leaves {
  double* a;
  const double* b;
  std::size_t n, blocks;
  bool declare = false;  // --touches: each leaf declares the bytes of a and b it uses (cws::touch)
  unsigned* visits = nullptr;

  void operator()(std::size_t lo, std::size_t hi) const {
    for (std::size_t j = lo; j < hi; ++j) {
      const std::size_t first = j * n / blocks, last = (j + 1) * n / blocks;
      phases::scale_add(a, b, first, last);
      if (declare) {  // a no-op outside a cws phase
        cws::touch(a + first, (last - first) * sizeof(double));
        cws::touch(b + first, (last - first) * sizeof(double));
      }
      if (visits != nullptr) ++visits[j];
    }
  }
};

// Calls made by the verification of each size: enough that a leaf run twice
// or skipped in any of them changes the checksum.
constexpr unsigned verify_calls = 3;

struct variant {
  std::string name;
  cws_apps::loop_flavour loop;
  std::string policy{};  // cws variants only
  std::unique_ptr<cws_apps::block_loops> loops{};
  std::vector<cws::schedule*> schedules{};  // cws variants: one per size, then the gaps'

  // Per gap length, one value per measured run (gap_cpu.hpp): the other
  // threads' CPU and the phases' wall time, as shares of the gaps' time.
  std::vector<cws_apps::samples> gap_cpu{}, gap_phase{};
  // After the runs (finish):
  std::vector<cws_apps::cws_phase_clock> clocks{};  // per size: wall_s breakdown of the measured cws phases
  std::vector<phases::timeline_figures> timelines{};  // per size: the parts of timed extra calls (cws variants)
  std::vector<double> checksums{};
  std::vector<bool> verified{};
};

// The 1-minute load average when the app started: a machine shared with
// other work stretches phases that wait for a preempted thread.
double load_average() {
  double load[1] = {0};
  return ::getloadavg(load, 1) == 1 ? load[0] : -1.0;
}

std::string env_or_unset(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string("unset");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Cost of one parallel phase (empty to 64 MiB) and CPU burnt between phases: cws vs TBB vs OpenMP static",
               "cws-phases"};
  cws_apps::common_options opt;
  opt.iters = 200;
  std::vector<std::size_t> sizes_kib{0, 1, 4, 16, 64, 256, 1024, 4096, 16384, 65536};
  std::vector<double> gaps_ms{0.1, 1, 10};
  std::size_t blocks = 0;
  std::size_t gap_kib = 64;
  bool no_gaps = false;
  bool declare_touches = false;
  app.add_option("--sizes", sizes_kib,
                 "Comma-separated phase sizes in KiB per array (0: the empty phase); a phase updates that many "
                 "bytes of a from as many of b")
      ->delimiter(',')
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 22))
      ->capture_default_str();
  app.add_option("--blocks", blocks,
                 "Leaves per phase, the same for every variant (0: one per worker, the OpenMP static mapping)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 16))
      ->capture_default_str();
  app.add_option("--gaps-ms", gaps_ms,
                 "Comma-separated serial gaps (ms) between empty phases for the CPU-in-gaps figure; the caller "
                 "busy-waits through each")
      ->delimiter(',')
      ->check(CLI::Range(0.001, 1000.0))
      ->capture_default_str();
  app.add_option("--gap-kib", gap_kib,
                 "Size of the phases between the gaps, KiB per array (0: empty phases); large enough by default that "
                 "every runtime hands leaves to its threads")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 22))
      ->capture_default_str();
  app.add_flag("--no-gaps", no_gaps, "Leave out the CPU-in-gaps figure");
  app.add_flag("--touches", declare_touches,
               "Every leaf declares the bytes of a and b it uses (cws::touch), so cws phases make a locality report "
               "(the other runtimes ignore the declaration)");
  cws_apps::add_common_options(app, opt);
  app.get_option("--iters")->description(
      "Timed calls per size and run (fewer for large sizes: about 256 MiB of the arrays per size and run, at "
      "least 3); a run's sample is their mean");
  const cws_apps::policies_option policies_opt(app, opt, {"random", "stows", "evolve"},
                                               "Comma-separated cws policies, one cws variant each");
  cws_apps::add_order_option(app, opt, "two arrays of the largest --sizes, shared by every variant, either way");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const std::vector<std::string> policies = policies_opt.chosen();
    const double load_at_start = load_average();
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();
    if (blocks == 0) blocks = env.workers();
    if (no_gaps) gaps_ms.clear();

    std::vector<size_case> sizes;
    for (const std::size_t kib : sizes_kib)
      if (std::none_of(sizes.begin(), sizes.end(), [&](const size_case& s) { return s.kib == kib; }))
        sizes.push_back({kib, kib * 1024 / sizeof(double), label_of(kib), calls_for(kib, opt.iters)});
    const std::size_t gap_phase = sizes.size();  // the loop index of the gaps' empty phases
    const size_case gap_size{gap_kib, gap_kib * 1024 / sizeof(double), "gaps", 0};
    std::size_t max_elements = std::max<std::size_t>(1, gap_size.elements);
    for (const size_case& s : sizes) max_elements = std::max(max_elements, s.elements);

    // Both arrays faulted in and filled before anything is timed.
    auto a = cws::numa::allocate<double>(max_elements, cws::numa::first_touch);
    auto b = cws::numa::allocate<double>(max_elements, cws::numa::first_touch);
    cws::numa::prefault_zero(a);
    cws::numa::prefault_zero(b);
    const auto leaves_of = [&](const size_case& s, unsigned* visits = nullptr) {
      return leaves{a.data(), b.data(), s.elements, blocks, declare_touches, visits};
    };
    // The checksum of every size after verify_calls phases, computed by one
    // serial loop over the whole range: what every variant must match exactly.
    std::vector<double> expected;
    for (const size_case& s : sizes) {
      phases::fill(a.data(), b.data(), s.elements);
      for (unsigned c = 0; c < verify_calls; ++c) phases::scale_add(a.data(), b.data(), 0, s.elements);
      expected.push_back(phases::checksum(a.data(), s.elements));
    }
    phases::fill(a.data(), b.data(), max_elements);

    // All schedules are created before anything runs, so an unknown policy fails at once (exit 2).
    using cws_apps::loop_flavour;
    std::vector<variant> variants;
    variants.push_back({.name = "serial", .loop = loop_flavour::serial});
    for (const std::string& p : policies)
      variants.push_back({.name = "cws-" + p,
                          .loop = p == cws::policy::user ? loop_flavour::cws_owned : loop_flavour::cws,
                          .policy = p});
    for (auto [name, flavour] : {std::pair{"tbb-simple", loop_flavour::tbb_simple},
                                 {"tbb-static", loop_flavour::tbb_static},
                                 {"tbb-affinity", loop_flavour::tbb_affinity},
                                 {"omp-static", loop_flavour::omp_static}})
      variants.push_back({.name = name, .loop = flavour});
    for (variant& v : variants) {
      // cws: one schedule per size (a template fits one loop shape) and one
      // for the gaps; TBB affinity: one partitioner per size, kept across runs.
      std::vector<cws::schedule*> schedules(sizes.size() + 1, nullptr);
      if (cws_apps::runs_cws_phases(v.loop)) {
        for (std::size_t k = 0; k < sizes.size(); ++k)
          schedules[k] = &rt.schedule("phases/" + v.policy + "/" + sizes[k].label, v.policy);
        schedules[gap_phase] = &rt.schedule("phases/" + v.policy + "/gaps", v.policy);
      }
      // The loops run over the leaves: `blocks` indices, one per leaf.
      v.schedules = schedules;
      v.loops = std::make_unique<cws_apps::block_loops>(env, v.loop, blocks, 1, std::move(schedules));
      v.gap_cpu.resize(gaps_ms.size());
      v.gap_phase.resize(gaps_ms.size());
    }

    const auto one_run = [&](variant& v, cws_apps::phase_timer& t) {
      v.loops->begin_run(t);
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        const leaves body = leaves_of(sizes[k]);
        v.loops->run(k, body);  // untimed: caches and threads as this variant left them
        t.time_reported(sizes[k].label, sizes[k].calls, [&] { return v.loops->run(k, body); });
      }
      if (gaps_ms.empty()) return;
      // Whatever another variant's threads still did has stopped long ago
      // (this variant's sizes ran since); a short pause makes sure of it even
      // with small --sizes.
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      const leaves between = leaves_of(gap_size);
      for (std::size_t g = 0; g < gaps_ms.size(); ++g) {
        const double gap_s = gaps_ms[g] * 1e-3;
        const phases::gap_cycles m =
            phases::measure_gaps(cycles_for(gap_s), gap_s, [&] { v.loops->run(gap_phase, between); });
        if (!t.recording()) continue;
        v.gap_cpu[g].add(m.cpu_share_of_gap());
        v.gap_phase[g].add(m.phase_share());
      }
    };
    // After the runs: the breakdown of the measured cws phases, then the
    // verification (untimed): from the initial contents, verify_calls phases
    // of each size; every leaf must run once per call and the checksum must
    // equal the serial loop's.
    const auto finish = [&](variant& v, const cws_apps::phase_timer&) {
      for (std::size_t k = 0; k < sizes.size(); ++k) v.clocks.push_back(v.loops->clock(k));
      if (v.loops->runs_cws_phases()) {  // the breakdown: as many calls again, timed (phase_timeline)
        rt.time_phases(true);
        for (std::size_t k = 0; k < sizes.size(); ++k) {
          const leaves body = leaves_of(sizes[k]);
          phases::timeline_figures& f = v.timelines.emplace_back();
          for (unsigned c = 0; c < sizes[k].calls; ++c) {
            v.loops->run(k, body);
            f.add(*v.schedules[k]->last_report()->timeline);
          }
        }
        rt.time_phases(false);
      }
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        const size_case& s = sizes[k];
        phases::fill(a.data(), b.data(), s.elements);
        std::vector<unsigned> visits(blocks, 0);
        for (unsigned c = 0; c < verify_calls; ++c) v.loops->run(k, leaves_of(s, visits.data()));
        const double sum = phases::checksum(a.data(), s.elements);
        v.checksums.push_back(sum);
        v.verified.push_back(sum == expected[k] &&
                             std::all_of(visits.begin(), visits.end(), [](unsigned n) { return n == verify_calls; }));
      }
    };
    const std::vector<cws_apps::phase_timer> timers = cws_apps::measure_variants(
        variants, opt.plan, [](variant&) {}, one_run, finish);

    std::vector<unsigned> calls, cycles;
    for (const size_case& s : sizes) calls.push_back(s.calls);
    for (const double g : gaps_ms) cycles.push_back(cycles_for(g * 1e-3));
    const std::string omp_wait = env_or_unset("OMP_WAIT_POLICY"), gomp_spin = env_or_unset("GOMP_SPINCOUNT");
    cws_apps::report out("phases", env,
                         {{"sizes_kib", sizes_kib},
                          {"blocks", blocks},
                          {"kernel", "a[i] = a[i] * 0.5 + b[i]"},
                          {"calls_per_run", calls},
                          {"iters", opt.iters},
                          {"runs", opt.plan.runs},
                          {"warmup", opt.plan.warmup},
                          {"order", cws_apps::to_string(opt.plan.order)},
                          {"policies", policies},
                          {"gaps_ms", gaps_ms},
                          {"gap_kib", gap_kib},
                          {"touches", declare_touches},
                          {"gap_wait", "busy"},
                          {"gap_cycles", cycles},
                          {"cws_blocktime_us", rt.config().blocktime_us},
                          {"omp_wait_policy", omp_wait},
                          {"gomp_spincount", gomp_spin},
                          {"load_average", load_at_start}});
    // The tables: one row per variant, one column per size (gap).
    cws_apps::table times{"us per phase", cws_apps::json::array(), {{"variant", "variant"}}};
    cws_apps::table ratios{
        "time / omp-static time (lower is better)", cws_apps::json::array(), {{"variant", "variant"}}};
    cws_apps::table gaps{"CPU of the runtime's threads during a serial gap, % of the gap",
                         cws_apps::json::array(),
                         {{"variant", "variant"}}};
    for (const size_case& s : sizes) {
      times.columns.push_back({s.label, s.label, 1, 1});
      ratios.columns.push_back({s.label, s.label, 1, 2});
    }
    // The cws breakdown: one row per cws variant and size.
    cws_apps::table parts{"cws rt.run broken down, us (median over as many timed extra calls; phase_timeline)",
                          cws_apps::json::array(),
                          {{"variant", "variant"},
                           {"size", "size"},
                           {"setup", "setup_us", 1, 2},
                           {"fork", "fork_us", 1, 2},
                           {"1st steal", "first_steal_us", 1, 2},
                           {"leaves", "leaves_us", 1, 2},
                           {"join", "join_us", 1, 2},
                           {"out", "helpers_out_us", 1, 2},
                           {"collect", "collect_us", 1, 2},
                           {"locality", "locality_us", 1, 2},
                           {"observers", "observers_us", 1, 2},
                           {"policy", "policy_us", 1, 2},
                           {"reloc", "relocalize_us", 1, 2},
                           {"total", "total_us", 1, 2}}};
    for (const double g : gaps_ms) gaps.columns.push_back({fmt::format("{}ms", g), fmt::format("{}ms", g), 1, 1});
    times.columns.push_back({"ok", "verified"});

    const cws_apps::phase_timer& omp = timers.back();  // omp-static is the last variant
    bool all_ok = true;
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const variant& v = variants[i];
      const cws_apps::phase_timer& timer = timers[i];
      const bool cws_variant = v.loops->runs_cws_phases();
      cws_apps::json& e = out.add(v.name);
      if (cws_variant) e["policy"] = v.policy;
      cws_apps::json per_size = cws_apps::json::array();
      cws_apps::json time_row = {{"variant", v.name}}, ratio_row = {{"variant", v.name}};
      bool ok = true;
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        const size_case& s = sizes[k];
        const cws_apps::samples& t = timer[s.label];
        const double omp_median = omp[s.label].median();
        const cws_apps::json ratio = omp_median > 0 ? cws_apps::json(t.median() / omp_median) : cws_apps::json(nullptr);
        cws_apps::json p = {{"size", s.label},
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
          cws_apps::json row = p["timeline"];
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
      cws_apps::json gap_row = {{"variant", v.name}};
      if (!gaps_ms.empty()) {
        cws_apps::json per_gap = cws_apps::json::array();
        for (std::size_t g = 0; g < gaps_ms.size(); ++g) {
          const double gap_s = gaps_ms[g] * 1e-3;
          const cws_apps::samples& c = v.gap_cpu[g];
          per_gap.push_back({{"gap_ms", gaps_ms[g]},
                             {"cycles", cycles_for(gap_s)},
                             {"runs", c.size()},
                             {"cpu_pct_of_gap", 100 * c.median()},
                             {"cpu_pct_of_gap_min", 100 * c.min()},
                             {"cpu_s_per_gap", c.median() * gap_s},
                             {"phase_pct_of_gap", 100 * v.gap_phase[g].median()}});
          gap_row[fmt::format("{}ms", gaps_ms[g])] = 100 * c.median();
        }
        e["gaps"] = std::move(per_gap);
      }
      e["verified"] = ok;
      time_row["verified"] = ok;
      all_ok = all_ok && ok;
      times.rows.push_back(std::move(time_row));
      ratios.rows.push_back(std::move(ratio_row));
      gaps.rows.push_back(std::move(gap_row));
    }

    env.save_trace();
    std::vector<cws_apps::table> tables{times, ratios, parts};
    if (!gaps_ms.empty()) tables.push_back(gaps);
    std::vector<std::string> notes = {
        fmt::format("a phase: one call of the loop (rt.run, tbb::parallel_for in the arena, the OpenMP region) over "
                    "{} leaves of a[i] = a[i] * 0.5 + b[i], a and b pre-faulted (empty: the leaves hold nothing);",
                    blocks),
        fmt::format(
            "us: the wall clock around each call, mean of a run's calls ({} for the smallest size, at least 3 "
            "for the largest), median over {} runs (+{} warm-up), interleaved; one untimed call per size first;",
            calls.empty() ? 0u : calls.front(), opt.plan.runs, opt.plan.warmup),
        "ok: every leaf ran once per call and the checksum equals the serial loop's (3 calls of each size);",
        fmt::format("load average at start: {:.2f} (other processes stretch the phases that wait for a preempted "
                    "thread)",
                    load_at_start)};
    if (!gaps_ms.empty())
      notes.push_back(fmt::format(
          "gaps: a phase of {} KiB, then the caller busy-waits the gap, {} times per run; CPU of every other thread "
          "of the process (getrusage minus the caller's thread clock) over the gaps' wall time, median over runs; "
          "100 % = one core busy through every gap; includes those threads' part of the phases (JSON "
          "phase_pct_of_gap: the phases' wall time, same scale); cws blocktime {} us, OMP_WAIT_POLICY {}, "
          "GOMP_SPINCOUNT {}",
          gap_kib, fmt::join(cycles, "/"), rt.config().blocktime_us, omp_wait, gomp_spin));
    out.print(opt.json,
              fmt::format("cws-phases: one parallel phase, {} leaves, sizes {} KiB per array, {} runs (+{} warm-up), "
                          "policies {}",
                          blocks, fmt::join(sizes_kib, ","), opt.plan.runs, opt.plan.warmup, fmt::join(policies, ",")),
              tables, notes);
    if (!all_ok) return cws_apps::report_error(app.get_name(), "a variant computed a wrong checksum", 1);
    return 0;
  });
}
