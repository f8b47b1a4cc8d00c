#include "common/bench_env.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <cstdio>
#include <map>
#include <string>

#include "cws/traces/safe_file.hpp"
#include "cws/traces/stream.hpp"

namespace cws_apps {

void add_common_options(CLI::App& app, common_options& o) {
  app.add_option("--workers", o.workers,
                 "Threads for every variant (cws workers, TBB arena, OpenMP team); "
                 "default: CWS_WORKERS, else one per core")
      ->check(CLI::Range(1u, 4096u));
  app.add_option("--policy", o.policy, "cws scheduling policy of the cws variants")->capture_default_str();
  app.add_option("--iters", o.iters, "Kernel repetitions per measured run; a sample is their mean")
      ->check(CLI::Range(1u, 1000000u))
      ->capture_default_str();
  app.add_option("--runs", o.plan.runs, "Measured runs per variant")
      ->check(CLI::Range(1u, 1000000u))
      ->capture_default_str();
  app.add_option("--warmup", o.plan.warmup, "Unmeasured runs before the measured ones")
      ->check(CLI::Range(0u, 1000000u))
      ->capture_default_str();
  app.add_flag("--json", o.json, "Print one JSON object on stdout instead of the table");
  app.add_option("--trace-out", o.trace_out,
                 "Stream the steal tree of every cws phase to this trace file as the phase completes (cws-trace; "
                 "a killed run keeps every completed phase)");
  app.add_option("--trace-in", o.trace_in,
                 "Before anything runs, seed the schedules of the cws variants with the templates saved in this "
                 "trace file (its latest run of each schedule name), so replaying policies start from them instead "
                 "of a first random iteration; templates recorded with another worker count are re-planned");
  app.add_flag("--trace-in-converged", o.trace_in_converged,
               "With --trace-in: schedules whose latest run in the file settled (a converged replay) start converged, "
               "so evolve replays them under stows from its first run instead of learning again; one still learning "
               "at the save starts converged on its latest balanced replay in the file, or on its most balanced one")
      ->needs("--trace-in");
}

void add_phase_timeline_option(CLI::App& app, common_options& o) {
  app.add_flag("--phase-timeline", o.phase_timeline,
               "Time the parts of every cws phase (runtime::time_phases: setup, fork, first steal, leaves, join, "
               "helpers out, then collect, locality, observers, policy, relocalization) and add their medians in us "
               "to the JSON (--json) as a phase_timeline object per loop; each timed phase makes about a dozen more "
               "clock reads, which the cws times then include");
}

void add_order_option(CLI::App& app, common_options& o, const std::string& footprint) {
  // A name only: an enum option would also take the enum's numbers.
  run_order& order = o.plan.order;
  const auto set_order = [&order](const std::string& v) {
    order = v == "sequential" ? run_order::sequential : run_order::interleaved;
  };
  app.add_option_function<std::string>(
         "--order", set_order,
         "How the variants' runs are ordered. interleaved (default): every variant is set up first, then "
         "--warmup rounds and --runs rounds, each with one run of every variant, the order changing every "
         "round, so that a burst of noise spreads over all variants instead of landing on one variant's "
         "runs; the buffers of all variants live at the same time. sequential: all runs of one variant, "
         "then the next; needs the buffers of one variant at a time. Footprint: " +
             footprint)
      ->check(CLI::IsMember({"sequential", "interleaved"}).description(""))
      ->option_text("sequential|interleaved");
}

policies_option::policies_option(CLI::App& app, const common_options& o, std::vector<std::string> defaults,
                                 const std::string& help)
    : opt_(o), list_(std::move(defaults)), policy_(app.get_option("--policy")) {
  CLI::Option* list = app.add_option("--policies", list_, help)->delimiter(',')->capture_default_str();
  policy_->description("A single cws policy (same as --policies POLICY)");
  policy_->excludes(list);
}

std::vector<std::string> policies_option::chosen() const {
  std::vector<std::string> names = policy_->count() > 0 ? std::vector{opt_.policy} : without_repeats(list_);
  // Every name checked before any variant exists: an unknown one is that
  // error, not a clash with a schedule an earlier variant made (cws-pcg's
  // evolve also makes cws-evolve-follow's schedules).
  for (const std::string& name : names) (void)replays(name);
  return names;
}

void add_variant_options(CLI::App& app, common_options& o, std::optional<policies_option>& policies,
                         const std::string& policies_help, const std::string& footprint) {
  add_common_options(app, o);
  add_phase_timeline_option(app, o);
  policies.emplace(app, o, std::vector<std::string>{"random", "stows", "stuws", "relws", "evolve", "user"},
                   policies_help);
  add_order_option(app, o, footprint);
}

void add_evolve_init_option(CLI::App& app, std::string& policy, const std::string& help) {
  app.add_option("--evolve-init", policy, help)->capture_default_str();
}

bench_env::bench_env(const common_options& o, const std::function<void(cws::runtime_config&)>& adjust)
    : trace_out_(o.trace_out) {
  cws::runtime_config cfg = cws::runtime_config::from_env();
  if (o.workers != 0) cfg.workers = o.workers;
  if (adjust) adjust(cfg);
  rt_ = std::make_unique<cws::runtime>(cfg);
  rt_->time_phases(o.phase_timeline);
  // Streamed as the phases complete, so a killed run keeps them; without
  // recording (an app with its own recorders) save_trace(file) writes it.
  if (!trace_out_.empty() && cfg.record) rt_->trace_to(trace_out_);
  // Without recording the trace is written at the end: an unusable path (a
  // directory, a missing folder, a symlink) is reported now, not after the run.
  if (!trace_out_.empty() && !cfg.record) cws::traces::check_output_path(trace_out_);
  if (!o.trace_in.empty()) {
    cws::traces::load_options load;
    load.converged = o.trace_in_converged;
    const auto got = cws::traces::load_traces(*rt_, o.trace_in, load);  // cws::error naming the file and the problem
    std::fprintf(stderr, "trace: templates of %zu schedule(s) loaded from %s%s\n", got.seeded, o.trace_in.c_str(),
                 o.trace_in_converged ? fmt::format(" ({} start converged)", got.converged).c_str() : "");
  }
  const int n = static_cast<int>(rt_->workers());
  // global_control lifts TBB's limit when the worker count exceeds the
  // hardware threads (synthetic topologies); the arena pins the concurrency.
  tbb_limit_ = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, n);
  arena_ = std::make_unique<tbb::task_arena>(n);
  omp_set_dynamic(0);  // otherwise the team may be smaller than asked for
  omp_set_num_threads(n);
}

nlohmann::ordered_json bench_env::topology_json() const {
  const cws::topology& t = rt_->topology();
  return {{"summary", t.summary()},       {"source", t.source()},      {"synthetic", t.is_synthetic()},
          {"numa_nodes", t.numa_nodes()}, {"cores", t.cores().size()}, {"pus", t.pus()},
          {"workers", rt_->workers()}};
}

std::string bench_env::topology_line() const {
  const cws::topology& t = rt_->topology();
  return fmt::format("topology: {} from {}; {} worker{} (cws, TBB, OpenMP); likwid markers {}", t.summary(), t.source(),
                     rt_->workers(), rt_->workers() == 1 ? "" : "s",
                     likwid::enabled ? "on" : "off (configure with -DCWS_WITH_LIKWID=ON)");
}

int report_error(const std::string& app_name, const char* message, int code) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %s\n", app_name.c_str(), message);
  return code;
}

void bench_env::save_trace() const {
  if (trace_out_.empty()) return;
  if (const auto s = cws::traces::streaming(*rt_)) {
    rt_->trace_to("");  // closes the stream (its end record)
    std::fprintf(stderr, "trace: %llu phase runs written to %s%s\n", static_cast<unsigned long long>(s->phases),
                 trace_out_.c_str(), s->stopped ? " (the stream stopped early, see the warning above)" : "");
    return;
  }
  rt_->save_traces(trace_out_);
  const auto* rec = cws::steal_tree::recorder_of(*rt_);
  std::fprintf(stderr, "trace: %zu phase runs written to %s\n", rec ? rec->phases().size() : std::size_t{0},
               trace_out_.c_str());
}

void bench_env::save_trace(const cws::traces::trace_file& file) const {
  if (trace_out_.empty()) return;
  cws::traces::write(trace_out_, file);
  std::fprintf(stderr, "trace: %zu phase runs written to %s\n", file.phases.size(), trace_out_.c_str());
}

}  // namespace cws_apps
