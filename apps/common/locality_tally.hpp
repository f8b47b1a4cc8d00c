#pragma once
// Locality figures of the cws variants (DESIGN §5): an observer, registered
// on the runtime, that keeps per schedule name the locality report of every
// phase run whose tasks declared touches (phase_stats::locality, computed by
// the runtime after the workers stopped, so outside the phase's wall_s) and
// every relocalization report (runtime::relocalize, called by the app or by
// evolve after a run that becomes its template), and sums them up over a
// range of runs:
//
//   cws_apps::locality_tally tally(rt);            // before the phases of interest
//   ... rt.run(step, ...) ...
//   auto s = tally.summarize("heat-step/evolve", first, end);   // runs [first, end)
//   s.mean_share; s.pages_moved; s.relocalization_s;
//
// It reads only what the core hands every observer, not the steal-tree
// recorder. Header-only (the apps' common library lists its sources in
// apps/CMakeLists.txt). Like every observer it is called between phases on
// the runtime's calling thread, and must be destroyed between phases.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cws/cws.hpp>
#include <nlohmann/json.hpp>

#include "common/per_schedule.hpp"

namespace cws_apps {

// The runs [first, end) of one schedule and the relocalizations made from
// their touches.
struct locality_summary {
  std::size_t phases = 0;           // runs of the schedule in the range
  std::size_t reported = 0;         // of those, with a locality report (they declared touches)
  double mean_share = 0;            // mean over the reported runs of locality_report::share()
  double min_share = 0;             // lowest of them
  double last_share = 0;            // of the last reported run (the steady state, once a policy settled)
  std::uint64_t touched_bytes = 0;  // summed over the reported runs
  std::uint64_t local_bytes = 0;
  std::uint64_t unknown_bytes = 0;  // on pages without a known home (counted as not local)
  std::size_t relocalizations = 0;  // relocalization reports whose run is in the range
  std::uint64_t pages_examined = 0;
  std::uint64_t pages_moved = 0;
  std::uint64_t pages_failed = 0;
  std::uint64_t bytes_moved = 0;
  double relocalization_s = 0;  // total
  std::string backend;          // page-home backend of the relocalizations, if any

  // local_bytes / touched_bytes (1 when nothing was touched).
  double byte_share() const noexcept {
    return touched_bytes ? static_cast<double>(local_bytes) / static_cast<double>(touched_bytes) : 1.0;
  }
  double seconds_per_relocalization() const noexcept {
    return relocalizations ? relocalization_s / static_cast<double>(relocalizations) : 0.0;
  }
  // Bytes moved per second of relocalization (0 when nothing moved).
  double gbps() const noexcept {
    return relocalization_s > 0 ? static_cast<double>(bytes_moved) / relocalization_s / 1e9 : 0.0;
  }
};

// The locality of two schedules' runs taken together (e.g. the two phases
// of the same time steps): counts and bytes add up, the mean share is over
// all reported runs, `last` is b's (b's phase ends a step).
inline locality_summary merged(const locality_summary& a, const locality_summary& b) {
  locality_summary m = a;
  m.phases += b.phases;
  m.reported += b.reported;
  if (m.reported)
    m.mean_share = (a.mean_share * static_cast<double>(a.reported) + b.mean_share * static_cast<double>(b.reported)) /
                   static_cast<double>(m.reported);
  if (b.reported) {
    m.min_share = a.reported ? std::min(a.min_share, b.min_share) : b.min_share;
    m.last_share = b.last_share;
  }
  m.touched_bytes += b.touched_bytes;
  m.local_bytes += b.local_bytes;
  m.unknown_bytes += b.unknown_bytes;
  m.relocalizations += b.relocalizations;
  m.pages_examined += b.pages_examined;
  m.pages_moved += b.pages_moved;
  m.pages_failed += b.pages_failed;
  m.bytes_moved += b.bytes_moved;
  m.relocalization_s += b.relocalization_s;
  if (m.backend.empty()) m.backend = b.backend;
  return m;
}

// The figures of one run's locality report that the tally sums: no per-node
// vector, so that logging a run allocates nothing (it happens inside rt.run).
struct locality_figures {
  std::uint64_t touched_bytes = 0;
  std::uint64_t local_bytes = 0;
  std::uint64_t unknown_bytes = 0;
  double local_share = 1;  // cws::locality_report::share()
  double share() const noexcept { return local_share; }

  static std::optional<locality_figures> of(const std::optional<cws::locality_report>& r) noexcept {
    if (!r) return std::nullopt;
    return locality_figures{r->touched_bytes, r->local_bytes, r->unknown_bytes, r->share()};
  }
};

class locality_tally final : public cws::observer {
 public:
  struct phase_entry {
    std::uint64_t iteration = 0;
    double wall_s = 0;
    std::optional<locality_figures> locality;
  };
  struct schedule_log {
    // In run order. A deque: it grows in small blocks and never moves what
    // it holds, where a vector's doubling would copy every entry so far
    // between two phases (cws-cg: long enough, at 1 024 or 2 048 entries,
    // for the helpers to go to sleep and miss the next phases).
    std::deque<phase_entry> phases;
    std::vector<cws::relocalization_report> relocalizations;  // in call order
  };

  explicit locality_tally(cws::runtime& rt) : rt_(rt) { rt_.add_observer(*this); }
  ~locality_tally() override {
    try {
      rt_.remove_observer(*this);
    } catch (...) {  // only refused during a phase, which a destructor between phases never is
    }
  }
  locality_tally(const locality_tally&) = delete;
  locality_tally& operator=(const locality_tally&) = delete;

  void on_phase_end(const cws::phase_stats& stats) override {
    log_.of(stats.phase).phases.push_back({stats.phase.iteration, stats.wall_s, locality_figures::of(stats.locality)});
  }
  void on_relocalize(const cws::relocalization_report& r) override {
    log_.named(r.schedule).relocalizations.push_back(r);
  }

  // Everything seen for `schedule`, or nullptr.
  const schedule_log* find(std::string_view schedule) const { return log_.find(schedule); }

  // The locality figures of run `iteration` of `schedule`; nullptr when that
  // run was not seen or declared no touches.
  const locality_figures* locality_of(std::string_view schedule, std::uint64_t iteration) const {
    if (const schedule_log* l = find(schedule))
      for (const phase_entry& p : l->phases)
        if (p.iteration == iteration && p.locality) return &*p.locality;
    return nullptr;
  }

  // The relocalizations made from the touches of run `iteration` (usually
  // none or one: evolve's, right after that run).
  std::vector<const cws::relocalization_report*> relocalizations_of(std::string_view schedule,
                                                                    std::uint64_t iteration) const {
    std::vector<const cws::relocalization_report*> out;
    if (const schedule_log* l = find(schedule))
      for (const auto& r : l->relocalizations)
        if (r.iteration == iteration) out.push_back(&r);
    return out;
  }

  // Runs [first, end) of `schedule` and the relocalizations made from them.
  locality_summary summarize(std::string_view schedule, std::uint64_t first, std::uint64_t end) const {
    locality_summary s;
    const schedule_log* l = find(schedule);
    if (l == nullptr) return s;
    double share_sum = 0;
    for (const phase_entry& p : l->phases) {
      if (p.iteration < first || p.iteration >= end) continue;
      ++s.phases;
      if (!p.locality) continue;
      const double share = p.locality->share();
      share_sum += share;
      s.min_share = s.reported == 0 ? share : std::min(s.min_share, share);
      s.last_share = share;
      ++s.reported;
      s.touched_bytes += p.locality->touched_bytes;
      s.local_bytes += p.locality->local_bytes;
      s.unknown_bytes += p.locality->unknown_bytes;
    }
    if (s.reported) s.mean_share = share_sum / static_cast<double>(s.reported);
    for (const auto& r : l->relocalizations) {
      if (r.iteration < first || r.iteration >= end) continue;
      ++s.relocalizations;
      s.pages_examined += r.pages_examined;
      s.pages_moved += r.pages_moved;
      s.pages_failed += r.pages_failed;
      s.bytes_moved += r.bytes_moved;
      s.relocalization_s += r.seconds;
      s.backend = r.backend;
    }
    return s;
  }

 private:
  cws::runtime& rt_;
  per_schedule<schedule_log> log_;
};

// `value` when some run of `s` declared touches (a locality report to take
// it from), null otherwise.
inline nlohmann::ordered_json if_reported(const locality_summary& s, double value) {
  return s.reported ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

// The mean local share of a locality summary, null when no run declared touches.
inline nlohmann::ordered_json share_or_null(const locality_summary& s) { return if_reported(s, s.mean_share); }

// Sets on `entry`: <share_key> (mean share, null when no run declared
// touches), <share_key>_min, <share_key>_last, local_bytes_share (byte-weighted over the runs),
// unknown_bytes, locality_phases, relocalizations, pages_examined,
// pages_moved, pages_failed, bytes_moved, relocalization_s,
// relocalization_s_per (null without relocalization), relocalization_gbps.
inline void put_locality(nlohmann::ordered_json& entry, const locality_summary& s,
                         const std::string& share_key = "local_share") {
  using value = nlohmann::ordered_json;
  entry[share_key] = share_or_null(s);
  entry[share_key + "_min"] = if_reported(s, s.min_share);
  entry[share_key + "_last"] = if_reported(s, s.last_share);
  entry["local_bytes_share"] = if_reported(s, s.byte_share());
  entry["unknown_bytes"] = s.unknown_bytes;
  entry["locality_phases"] = s.reported;
  entry["relocalizations"] = s.relocalizations;
  entry["pages_examined"] = s.pages_examined;
  entry["pages_moved"] = s.pages_moved;
  entry["pages_failed"] = s.pages_failed;
  entry["bytes_moved"] = s.bytes_moved;
  entry["relocalization_s"] = s.relocalization_s;
  entry["relocalization_s_per"] = s.relocalizations ? value(s.seconds_per_relocalization()) : value(nullptr);
  entry["relocalization_gbps"] = s.bytes_moved ? value(s.gbps()) : value(nullptr);
}

}  // namespace cws_apps
