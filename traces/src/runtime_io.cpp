// The bridge to the runtime: capture(), cws::trace_io (runtime::save_traces /
// load_traces) and the extension that keeps the traces a runtime loaded.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <map>
#include <cstdio>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cws/config.hpp"
#include "cws/place_tree.hpp"
#include "cws/runtime.hpp"
#include "cws/schedulers/knobs.hpp"
#include "cws/schedulers/schedule_store.hpp"
#include "cws/steal_tree/balance.hpp"
#include "cws/steal_tree/recorder.hpp"
#include "cws/traces/stream.hpp"
#include "cws/traces/trace_file.hpp"

#ifndef CWS_VERSION_STRING
#define CWS_VERSION_STRING "unknown"
#endif

namespace cws::traces {

namespace {

std::string host_name() {
  std::array<char, 256> buf{};
  if (::gethostname(buf.data(), buf.size() - 1) != 0) return "unknown";
  return std::string(buf.data());
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  if (::gmtime_r(&now, &tm) == nullptr) return {};
  std::array<char, 32> buf{};
  const std::size_t n = std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf.data(), n);
}

constexpr std::string_view loaded_extension_name = "traces";

class loaded_traces_extension final : public runtime_extension {
 public:
  std::vector<trace_file> files;
};

class runtime_trace_io final : public trace_io {
 public:
  void save(const runtime& rt, const std::string& path) override {
    if (!rt.config().record)
      throw error(fmt::format("{}: nothing to save, recording is off (CWS_RECORD=0 or runtime_config::record)", path));
    write(path, capture(rt));
  }

  void stream_to(runtime& rt, const std::string& path) override { traces::stream_to(rt, path); }

  void load(runtime& rt, const std::string& path) override { load_traces(rt, path); }
};

// Whether a recorded run is what a converged replay looks like: all its
// steals designated, none taken back, and not a schedule's first run (a
// random run that happened not to steal is no schedule to keep).
struct steal_counts {
  std::uint64_t steals = 0, designated = 0, taken_back = 0;
};
steal_counts counts_of(const steal_tree::phase_record& r) {
  steal_counts c;
  for (const worker_stats& w : r.stats) {
    c.steals += w.steals;
    c.designated += w.designated;
    c.taken_back += w.taken_back;
  }
  return c;
}
bool settled(const steal_tree::phase_record& r) {
  const steal_counts c = counts_of(r);
  return c.steals == c.designated && c.taken_back == 0 && (c.designated > 0 || r.iteration > 0 || r.stats.size() == 1);
}

// The run of a schedule (its runs in the file, by iteration) that it starts
// converged on (load_options::converged), and why, or null: its latest run
// when that settled. Else the schedule was still learning at the save (a
// phase that runs a few times per program run, such as a solver's start,
// never reaches evolve's bound in one): the latest of its runs that replayed
// a template (a designated steal: not a random run) and passes evolve's
// balance rule (CWS_EVOLVE_BALANCE), a tree evolve would converge on. When
// none passes (a loaded machine makes a descheduled worker look idle), the
// most balanced of those replays, as evolve keeps at its bound: the caller
// asked for a converged start, and the slowdown watch still guards it.
struct converged_pick {
  const steal_tree::phase_record* run = nullptr;
  std::string why;  // empty for the latest run
};
converged_pick converged_run(const std::vector<const steal_tree::phase_record*>& runs,
                             const schedulers::replay_knobs& knobs) {
  const steal_tree::phase_record* latest = runs.back();
  if (settled(*latest)) return {latest, {}};
  const steal_tree::phase_record* most = nullptr;
  steal_tree::balance best;
  std::size_t replays = 0;
  for (auto r = runs.rbegin(); r != runs.rend(); ++r) {
    if (counts_of(**r).designated == 0) continue;
    ++replays;
    const steal_tree::balance b = steal_tree::balance_of((*r)->steals);
    if (knobs.balanced(b.idle_workers, b.max_share_ratio))
      return {*r, fmt::format("its latest balanced replay; the latest, #{}, was still learning", latest->iteration)};
    if (most == nullptr || schedulers::replay_knobs::more_balanced(b.idle_workers, b.max_share_ratio, best.idle_workers,
                                                                   best.max_share_ratio)) {
      most = *r;
      best = b;
    }
  }
  if (most == nullptr) return {};
  return {most, fmt::format("the most balanced of its {} replays, none balanced (busiest x{:.2f}, {} idle); the "
                            "latest, #{}, was still learning",
                            replays, best.max_share_ratio, best.idle_workers, latest->iteration)};
}

// The runs of a schedule a template is taken from: those that stole, when
// any did. A run that stole nothing on several workers (a small phase its
// replay ran on the caller alone, or one whose helpers never came) says
// only "run everything on the caller": seeded, it would run every later
// phase alone, with no trial (replay.md, "Small phases alone"), while the
// schedule's template is in its runs that stole. A schedule none of whose
// runs stole keeps them all.
std::vector<const steal_tree::phase_record*> template_candidates(const std::vector<const steal_tree::phase_record*>& runs) {
  std::vector<const steal_tree::phase_record*> stole;
  for (const steal_tree::phase_record* r : runs)
    if (r->steals.segments.size() > 1 || r->steals.workers <= 1) stole.push_back(r);
  return stole.empty() ? runs : stole;
}

}  // namespace

// Every schedule in the file gets its latest run as template (its latest
// that stole, when any did: template_candidates): a solver reuses a
// converged schedule across program runs.
load_summary load_traces(runtime& rt, const std::string& path, const load_options& options) {
  trace_file f = read(path);
  // A file of another worker count is not refused: its templates are
  // re-planned for this runtime (schedule_store::seed says how in template_from).
  auto* ext = dynamic_cast<loaded_traces_extension*>(rt.extension(loaded_extension_name));
  if (ext == nullptr)
    throw error(fmt::format("{}: this runtime was created before cws::traces registered its extension", path));
  // Each schedule's runs, the latest last.
  std::map<std::string, std::vector<const steal_tree::phase_record*>> runs;
  for (const steal_tree::phase_record& r : f.phases) runs[r.schedule].push_back(&r);
  for (auto& [name, of] : runs)
    std::stable_sort(of.begin(), of.end(), [](const auto* a, const auto* b) { return a->iteration < b->iteration; });
  schedulers::schedule_store& store = schedulers::store_of(rt);
  const schedulers::replay_knobs& knobs = schedulers::knobs_of(rt.config()).replay;
  load_summary summary;
  for (const auto& [name, all] : runs) {
    const std::vector<const steal_tree::phase_record*> of = template_candidates(all);
    const converged_pick pick = options.converged ? converged_run(of, knobs) : converged_pick{};
    const steal_tree::phase_record* converged = pick.run;
    const steal_tree::phase_record* r = converged != nullptr ? converged : of.back();
    try {
      store.seed(name, r->steals,
                 pick.why.empty() ? fmt::format("file {}, run #{}", path, r->iteration)
                                  : fmt::format("file {}, run #{} ({})", path, r->iteration, pick.why));
    } catch (const error& e) {
      throw error(fmt::format("{}: schedule '{}' run #{}: {}", path, name, r->iteration, e.what()));
    }
    ++summary.seeded;
    if (converged != nullptr) {
      store.mark_converged(name);
      ++summary.converged;
    }
  }
  ext->files.push_back(std::move(f));
  return summary;
}

trace_header capture_header(const runtime& rt) {
  trace_header h;
  h.cws_version = CWS_VERSION_STRING;
  h.host = host_name();
  h.created = utc_now();
  const cws::topology& topo = rt.topology();
  h.topology.summary = topo.summary();
  h.topology.source = topo.source();
  h.topology.synthetic = topo.is_synthetic();
  h.topology.packages = topo.packages();
  h.topology.numa_nodes = topo.numa_nodes();
  h.topology.l3_groups = topo.l3_groups();
  h.topology.cores = static_cast<std::uint32_t>(topo.cores().size());
  h.topology.pus = topo.pus();
  h.placement = rt.placement();
  const runtime_config& c = rt.config();
  h.options.workers = rt.workers();
  h.options.pin = c.pin;
  h.options.idle = std::string(to_string(c.idle));
  h.options.max_nesting = c.max_nesting;
  h.options.seed = c.seed;
  h.options.record = c.record;
  h.options.audit = c.audit;
  h.options.topology_request = c.topology.value_or("");
  const cws::place_tree& places = rt.places();
  h.places.summary = places.summary().substr(0, limits::string_bytes);
  h.places.source = places.source().substr(0, limits::string_bytes);
  for (unsigned k = 0; k < places.nodes(); ++k) h.places.numa_of_node.push_back(places.numa_of_node(k));
  for (unsigned w = 0; w < places.workers(); ++w) {
    h.places.node_of_worker.push_back(places.node_of_worker(w));
    h.places.leaf_of_worker.push_back(places.leaf_of_worker(w));
  }
  return h;
}

trace_file capture(const runtime& rt) {
  trace_file f;
  f.header = capture_header(rt);
  const trace_header& h = f.header;
  if (const steal_tree::recorder* rec = steal_tree::recorder_of(rt)) {
    // A tree the recorder could only reconstruct from damaged events (it
    // warned then) would make the whole file unwritable: leave it out, loudly.
    f.phases.reserve(rec->phases().size());
    for (const steal_tree::phase_record& r : rec->phases()) {
      try {
        if (r.stats.size() != h.options.workers || r.steals.workers != h.options.workers)
          throw error(fmt::format("statistics for {} workers, tree of {}", r.stats.size(), r.steals.workers));
        validate(r.steals);
      } catch (const error& e) {
        std::fprintf(stderr,
                     "cws: warning: phase '%s' #%llu is not saved in the trace file: its steal tree is "
                     "inconsistent (%s)\n",
                     r.schedule.c_str(), static_cast<unsigned long long>(r.iteration), e.what());
        continue;
      }
      f.phases.push_back(r);
    }
  }
  return f;
}

const std::vector<trace_file>& loaded_traces(const runtime& rt) {
  static const std::vector<trace_file> none;
  const auto* ext = dynamic_cast<const loaded_traces_extension*>(rt.extension(loaded_extension_name));
  return ext ? ext->files : none;
}

namespace detail {
void register_stream_extension();  // stream_writer.cpp

bool install() {
  static runtime_trace_io io;
  static std::once_flag once;
  std::call_once(once, [] {
    trace_io::install(&io);
    extension_registry::add(std::string(loaded_extension_name), [](runtime&) -> std::unique_ptr<runtime_extension> {
      return std::make_unique<loaded_traces_extension>();
    });
    register_stream_extension();
  });
  return true;
}
}  // namespace detail

}  // namespace cws::traces
