// What an audit run costs (issue 21): evolve asks the recorder for one run in
// audit mode when relws runs cannot balance a phase, and that run records
// every task (on_task_begin, on_spawn) and builds per-task audit records with
// parent links when the phase ends. Measured on an unbalanced search tree
// (UTS-like, see below), by the wall clock around rt.run, in three variants:
//
//   uts_phase/normal   the recorded run every phase makes (no audit)
//   uts_phase/audit    the same phase with recorder::audit_next_phase()
//   uts_phase/paired   both, alternately, in one process: the medians of each
//                      and their ratio (audit_over_normal), the figure the
//                      issue asks to keep near 1.1
//   uts_plan           the planner on such an audit run (evolve plans right
//                      after its audit run, inside the same rt.run)
//
// Every variant also reports after_*_ms: rt.run's wall time minus the
// phase's own (run_report::wall_s), i.e. what runs on the calling thread
// after the workers stopped (the recorder's merge, the policy's end of phase);
// merge_*_ms, the wall time of the recorder's on_phase_end alone (between two
// observers registered around it), where the audit records are built, and
// merge_*_cpu_ms, the calling thread's CPU time in it;
// and *_cpu_ms, the process's CPU time (all threads, std::clock) over rt.run,
// with its ratio audit_over_normal_cpu: on a loaded machine the workers wait
// for a core, which the wall clock counts and the CPU time does not.
//
// The tree: a node's state is a 64-bit hash; it mixes it `work` times (the
// stand-in for UTS's SHA-1 per node), then, above the depth limit, spawns a
// geometric number of children (mean 4, at most 32: UTS's T1 shape with a
// cap) whose states are hashes of its own and their rank. The root spawns 4.
// Deterministic for a seed, so every run checks the node count against a
// serial walk of the same tree.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include <cws/cws.hpp>
#include <cws/steal_tree/plan.hpp>

#include "micro.hpp"

namespace {

using cws_micro::check;

struct uts_shape {
  std::uint32_t depth = 10;  // leaves at this depth
  std::uint32_t work = 64;   // hash rounds per node
};

constexpr std::uint64_t seed = 19;
constexpr std::uint32_t root_children = 4;
constexpr std::uint32_t max_children = 32;
// P(another child) = mean / (1 + mean) with mean 4, as a 64-bit threshold.
constexpr std::uint64_t another_child = 0xCCCCCCCCCCCCCCCCull;

constexpr std::uint64_t mix(std::uint64_t x) noexcept {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t node_hash(std::uint64_t state, std::uint32_t work) noexcept {
  for (std::uint32_t i = 0; i < work; ++i) state = mix(state);
  return state;
}

std::uint32_t children_of(std::uint64_t hash, std::uint32_t depth, const uts_shape& shape) noexcept {
  if (depth >= shape.depth) return 0;
  if (depth == 0) return root_children;
  std::uint32_t n = 0;
  for (std::uint64_t r = hash; n < max_children && (r = mix(r)) < another_child;) ++n;
  return n;
}

std::uint64_t child_state(std::uint64_t hash, std::uint32_t rank) noexcept { return mix(hash ^ (rank + 1)); }

// Nodes of the subtree at `state`, spawning every child.
std::uint64_t uts(std::uint64_t state, std::uint32_t depth, const uts_shape& shape) {
  const std::uint64_t h = node_hash(state, shape.work);
  const std::uint32_t n = children_of(h, depth, shape);
  std::array<std::uint64_t, max_children> counts{};
  for (std::uint32_t i = 0; i < n; ++i)
    cws::spawn([&counts, &shape, i, s = child_state(h, i), depth] { counts[i] = uts(s, depth + 1, shape); });
  cws::sync();
  std::uint64_t total = 1;
  for (std::uint32_t i = 0; i < n; ++i) total += counts[i];
  return total;
}

std::uint64_t serial_uts(std::uint64_t state, std::uint32_t depth, const uts_shape& shape) {
  const std::uint64_t h = node_hash(state, shape.work);
  std::uint64_t total = 1;
  for (std::uint32_t i = 0, n = children_of(h, depth, shape); i < n; ++i)
    total += serial_uts(child_state(h, i), depth + 1, shape);
  return total;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// One timed run of the tree: rt.run's wall time and the part after the phase.
struct run_time {
  double run_s = 0;
  double after_s = 0;
  double cpu_s = 0;
  double merge_s = 0;
  double merge_cpu_s = 0;
};

enum variant : std::int64_t { normal = 0, audit = 1, paired = 2 };

// Times the recorder's on_phase_end: `opens` is registered right before the
// recorder and `closes` right after, and the core calls the observers'
// on_phase_end in that order.
struct recorder_timer {
  struct stamp final : cws::observer {
    std::chrono::steady_clock::time_point at;
    timespec cpu{};  // the calling thread's CPU time
    void on_phase_end(const cws::phase_stats&) override {
      at = std::chrono::steady_clock::now();
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    }
  } opens, closes;
  recorder_timer(cws::runtime& rt, cws::steal_tree::recorder& rec) {
    rt.remove_observer(rec);
    rt.add_observer(opens);
    rt.add_observer(rec);
    rt.add_observer(closes);
  }
  double seconds() const { return std::chrono::duration<double>(closes.at - opens.at).count(); }
  double cpu_seconds() const {
    return static_cast<double>(closes.cpu.tv_sec - opens.cpu.tv_sec) +
           static_cast<double>(closes.cpu.tv_nsec - opens.cpu.tv_nsec) * 1e-9;
  }
};

// Args: variant, depth, work rounds. Two workers, recording on (the default).
void uts_phase(benchmark::State& state) {
  const auto which = static_cast<variant>(state.range(0));
  const uts_shape shape{static_cast<std::uint32_t>(state.range(1)), static_cast<std::uint32_t>(state.range(2))};
  cws::runtime_config cfg = cws::runtime_config::from_env();
  cfg.workers = 2;
  cfg.record = true;
  cws::runtime rt(cfg);
  cws::steal_tree::recorder* rec = cws::steal_tree::recorder_of(rt);
  if (!check(state, rec != nullptr, "no steal-tree recorder attached")) return;
  auto& s = rt.schedule("uts");
  const std::uint64_t expected = serial_uts(seed, 0, shape);
  const recorder_timer merge_timer(rt, *rec);

  auto timed_run = [&](bool audited) -> run_time {
    if (audited) rec->audit_next_phase();
    std::uint64_t nodes = 0;
    const std::clock_t c0 = std::clock();
    const auto t0 = std::chrono::steady_clock::now();
    const cws::run_report& r = rt.run(s, [&] { nodes = uts(seed, 0, shape); });
    const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu_s = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    check(state, nodes == expected, "the tree's node count differs from the serial walk");
    const cws::steal_tree::phase_record* last = rec->latest("uts");
    check(state, last != nullptr && last->steals.audit.size() == (audited ? expected : 0),
          "the recorded run has the wrong number of audit records");
    return {run_s, std::max(0.0, run_s - r.wall_s), cpu_s, merge_timer.seconds(), merge_timer.cpu_seconds()};
  };

  std::vector<run_time> normal_runs, audit_runs;
  for (auto _ : state) {
    double timed = 0;
    if (which != audit) timed += normal_runs.emplace_back(timed_run(false)).run_s;
    if (which != normal) timed += audit_runs.emplace_back(timed_run(true)).run_s;
    state.SetIterationTime(timed);
  }
  auto median_of = [](const std::vector<run_time>& runs, double run_time::*field) {
    std::vector<double> v;
    for (const run_time& r : runs) v.push_back(r.*field);
    return median(std::move(v));
  };
  state.counters["tasks"] = static_cast<double>(expected);
  for (const auto& [name, runs] : {std::pair{"normal", &normal_runs}, std::pair{"audit", &audit_runs}}) {
    if (runs->empty()) continue;
    const std::string n(name);
    state.counters[n + "_ms"] = median_of(*runs, &run_time::run_s) * 1e3;
    state.counters["after_" + n + "_ms"] = median_of(*runs, &run_time::after_s) * 1e3;
    state.counters[n + "_cpu_ms"] = median_of(*runs, &run_time::cpu_s) * 1e3;
    state.counters["merge_" + n + "_ms"] = median_of(*runs, &run_time::merge_s) * 1e3;
    state.counters["merge_" + n + "_cpu_ms"] = median_of(*runs, &run_time::merge_cpu_s) * 1e3;
  }
  if (!normal_runs.empty() && !audit_runs.empty()) {
    state.counters["audit_over_normal"] =
        median_of(audit_runs, &run_time::run_s) / median_of(normal_runs, &run_time::run_s);
    state.counters["audit_over_normal_cpu"] =
        median_of(audit_runs, &run_time::cpu_s) / median_of(normal_runs, &run_time::cpu_s);
  }
}
BENCHMARK(uts_phase)
    ->ArgNames({"variant", "depth", "work"})
    ->Args({normal, 10, 64})
    ->Args({audit, 10, 64})
    ->Args({paired, 10, 64})
    ->Args({paired, 10, 256})  // another tree (2.0 M tasks), nodes nearer UTS's cost (a SHA-1 each): ~1 us
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// The planner on an audit run of the tree (what evolve does after its audit
// run, in the same rt.run): the run recorded on 2 workers, planned for
// `workers` (Arg 1), so that the workers the recording lacks get carved
// subtrees. Timed: steal_tree::plan alone.
void uts_plan(benchmark::State& state) {
  const uts_shape shape{static_cast<std::uint32_t>(state.range(0)), 64};
  cws::runtime_config cfg = cws::runtime_config::from_env();
  cfg.workers = 2;
  cfg.record = true;
  cfg.audit = true;
  cws::runtime rt(cfg);
  cws::steal_tree::recorder* rec = cws::steal_tree::recorder_of(rt);
  if (!check(state, rec != nullptr, "no steal-tree recorder attached")) return;
  rt.run(rt.schedule("uts"), [&] { uts(seed, 0, shape); });
  const cws::steal_tree::tree& recorded = rec->latest("uts")->steals;
  cws::steal_tree::plan_options options;
  options.workers = static_cast<std::uint32_t>(state.range(1));
  cws::steal_tree::plan_summary summary;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const cws::steal_tree::tree planned = cws::steal_tree::plan(recorded, options, &summary);
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    benchmark::DoNotOptimize(planned.segments.data());
  }
  state.counters["tasks"] = static_cast<double>(recorded.audit.size());
  state.counters["steals_added"] = static_cast<double>(summary.steals_after - summary.steals_before);
  state.counters["max_share_ratio"] = summary.after.max_share_ratio;
}
BENCHMARK(uts_plan)->ArgNames({"depth", "workers"})->Args({10, 4})->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
