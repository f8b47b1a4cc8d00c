#pragma once
// Boost.Serialization of the trace payload (format versions 1 to 3) and of the
// header and records of later versions.
//
// Every type is `object_serializable` and `track_never`: no per-class version
// or tracking information goes into the archive. Evolution is governed by our
// own format version (trace_file.hpp), which the functions below can consult
// through payload_context::current().version when a later version adds fields.
//
// Sequences are never loaded with Boost's collection serializers (which
// reserve/resize to the stored count before reading): sequence() reads the
// count, checks it against its limit and against the payload size, then
// appends the elements one at a time.

#include <boost/serialization/level.hpp>
#include <boost/serialization/nvp.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/tracking.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cws/locality.hpp"
#include "cws/stats.hpp"
#include "cws/steal_tree/tree.hpp"
#include "cws/topology.hpp"
#include "cws/traces/trace_file.hpp"

namespace cws::traces::detail {

// A problem in the payload (reported as "FILE: <message>").
struct format_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a load may allocate for: set by the decoder around one payload.
struct payload_context {
  std::uint32_t version = format_version;
  std::uint64_t payload_bytes = 0;  // loading: every count is at most this (each element takes >= 1 byte)
  bool loading = false;

  static const payload_context& current() noexcept;
  struct scope {
    explicit scope(const payload_context& c);
    ~scope();
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;
    const payload_context* saved;
  };
};

// Throws format_error when `count` exceeds `limit` or the payload size.
void check_count(std::uint64_t count, std::uint64_t limit, const char* what);

template <class Archive, class T>
void sequence(Archive& ar, const char* count_name, const char* item_name, std::vector<T>& v, std::uint64_t limit,
              const char* what) {
  using boost::serialization::make_nvp;
  if constexpr (Archive::is_saving::value) {
    std::uint64_t n = v.size();
    ar& make_nvp(count_name, n);
    for (T& x : v) ar& make_nvp(item_name, x);
  } else {
    std::uint64_t n = 0;
    ar& make_nvp(count_name, n);
    check_count(n, limit, what);
    v.clear();
    v.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, 4096)));
    for (std::uint64_t i = 0; i < n; ++i) {
      T x{};
      ar& make_nvp(item_name, x);
      v.push_back(std::move(x));
    }
  }
}

// A bool stored as 0/1 (loading a damaged byte into a bool would be undefined).
template <class Archive>
void flag(Archive& ar, const char* name, bool& b) {
  std::uint32_t v = b ? 1 : 0;
  ar& boost::serialization::make_nvp(name, v);
  if constexpr (Archive::is_loading::value) {
    if (v > 1) throw format_error(std::string("invalid value ") + std::to_string(v) + " for flag '" + name + "'");
    b = v == 1;
  }
}

template <class Archive>
void text(Archive& ar, const char* name, std::string& s) {
  ar& boost::serialization::make_nvp(name, s);
  if constexpr (Archive::is_loading::value)
    if (s.size() > limits::string_bytes)
      throw format_error(std::string("string '") + name + "' of " + std::to_string(s.size()) +
                         " bytes exceeds the limit of " + std::to_string(limits::string_bytes));
}

}  // namespace cws::traces::detail

#define CWS_TRACES_PLAIN(T)                                                \
  BOOST_CLASS_IMPLEMENTATION(T, boost::serialization::object_serializable) \
  BOOST_CLASS_TRACKING(T, boost::serialization::track_never)

CWS_TRACES_PLAIN(cws::worker_stats)
CWS_TRACES_PLAIN(cws::worker_placement)
CWS_TRACES_PLAIN(cws::steal_tree::steal_point)
CWS_TRACES_PLAIN(cws::steal_tree::segment)
CWS_TRACES_PLAIN(cws::steal_tree::audit_record)
CWS_TRACES_PLAIN(cws::steal_tree::tree)
CWS_TRACES_PLAIN(cws::steal_tree::phase_record)
CWS_TRACES_PLAIN(cws::node_locality)
CWS_TRACES_PLAIN(cws::locality_report)
CWS_TRACES_PLAIN(cws::relocalization_report)
CWS_TRACES_PLAIN(cws::traces::topology_info)
CWS_TRACES_PLAIN(cws::traces::run_options)
CWS_TRACES_PLAIN(cws::traces::places_info)
CWS_TRACES_PLAIN(cws::traces::trace_header)
CWS_TRACES_PLAIN(cws::traces::trace_file)
#undef CWS_TRACES_PLAIN

namespace boost::serialization {

// Field order is the on-disk order (traces/README.md). Append, never reorder;
// new fields are read only when payload_context::current().version says so
// (the test is always `version >= N` for a field added in version N, so that
// later versions keep it). Saving uses the current format_version.

template <class Archive>
void serialize(Archive& ar, cws::worker_stats& s, unsigned) {
  ar& make_nvp("tasks", s.tasks) & make_nvp("segments", s.segments) & make_nvp("steals", s.steals) &
      make_nvp("failed_steals", s.failed_steals) & make_nvp("nested_segments", s.nested_segments) &
      make_nvp("idle_s", s.idle_s);
  // Version 2: steals planned by a template or designation, and routed tasks
  // taken back. A version-1 file has neither: they read as 0.
  if (cws::traces::detail::payload_context::current().version >= 2) {
    ar& make_nvp("designated", s.designated) & make_nvp("taken_back", s.taken_back);
  } else if constexpr (Archive::is_loading::value) {
    s.designated = 0;
    s.taken_back = 0;
  }
  // Version 5: spawns run as calls under serial elision.
  if (cws::traces::detail::payload_context::current().version >= 5) {
    ar& make_nvp("elided", s.elided);
  } else if constexpr (Archive::is_loading::value) {
    s.elided = 0;
  }
  // Version 6: the hinted policies' counters.
  if (cws::traces::detail::payload_context::current().version >= 6) {
    ar& make_nvp("hinted_leaf", s.hinted_leaf) & make_nvp("hinted_node", s.hinted_node) &
        make_nvp("hinted_root", s.hinted_root) & make_nvp("het_inlined", s.het_inlined) &
        make_nvp("place_steals", s.place_steals) & make_nvp("reclaimed", s.reclaimed);
  } else if constexpr (Archive::is_loading::value) {
    s.hinted_leaf = s.hinted_node = s.hinted_root = 0;
    s.het_inlined = s.place_steals = s.reclaimed = 0;
  }
}

template <class Archive>
void serialize(Archive& ar, cws::worker_placement& p, unsigned) {
  ar& make_nvp("worker", p.worker) & make_nvp("core", p.core) & make_nvp("numa_node", p.numa_node) &
      make_nvp("pin_pu", p.pin_pu);
}

template <class Archive>
void serialize(Archive& ar, cws::steal_tree::steal_point& p, unsigned) {
  ar& make_nvp("level", p.level) & make_nvp("step", p.step) & make_nvp("thief", p.thief) & make_nvp("child", p.child);
  // Version 5: the pedigree's offset into tree::paths (no_path: unknown, as for every older file).
  if (cws::traces::detail::payload_context::current().version >= 5) {
    ar& make_nvp("path", p.path);
  } else if constexpr (Archive::is_loading::value) {
    p.path = cws::steal_tree::no_path;
  }
}

template <class Archive>
void serialize(Archive& ar, cws::steal_tree::segment& s, unsigned) {
  using cws::traces::limits;
  ar& make_nvp("worker", s.worker) & make_nvp("parent", s.parent) & make_nvp("level", s.level) &
      make_nvp("step", s.step) & make_nvp("start_ns", s.start_ns) & make_nvp("end_ns", s.end_ns) &
      make_nvp("tasks", s.tasks);
  cws::traces::detail::sequence(ar, "steal_count", "steal", s.steals, limits::steals, "steals of a segment");
}

template <class Archive>
void serialize(Archive& ar, cws::steal_tree::audit_record& r, unsigned) {
  ar& make_nvp("segment", r.segment) & make_nvp("spawn_segment", r.spawn_segment) & make_nvp("level", r.level) &
      make_nvp("step", r.step) & make_nvp("worker", r.worker) & make_nvp("parent", r.parent);
}

template <class Archive>
void serialize(Archive& ar, cws::steal_tree::tree& t, unsigned) {
  using cws::traces::limits;
  using cws::traces::detail::sequence;
  ar& make_nvp("workers", t.workers);
  sequence(ar, "segment_count", "segment", t.segments, limits::segments, "segments");
  // worker_segments: one list per worker.
  if constexpr (Archive::is_saving::value) {
    std::uint64_t n = t.worker_segments.size();
    ar& make_nvp("worker_list_count", n);
    for (auto& list : t.worker_segments)
      sequence(ar, "length", "segment_index", list, limits::segments, "segments of a worker");
  } else {
    std::uint64_t n = 0;
    ar& make_nvp("worker_list_count", n);
    cws::traces::detail::check_count(n, limits::workers, "per-worker segment lists");
    t.worker_segments.clear();
    t.worker_segments.reserve(static_cast<std::size_t>(n));
    for (std::uint64_t i = 0; i < n; ++i) {
      std::vector<std::uint32_t> list;
      sequence(ar, "length", "segment_index", list, limits::segments, "segments of a worker");
      t.worker_segments.push_back(std::move(list));
    }
  }
  sequence(ar, "audit_count", "task", t.audit, limits::audit_records, "audit records");
  // Version 5: the steal points' pedigrees (O(depth) per steal).
  if (cws::traces::detail::payload_context::current().version >= 5) {
    sequence(ar, "path_count", "rank", t.paths, limits::path_entries, "pedigree entries");
  } else if constexpr (Archive::is_loading::value) {
    t.paths.clear();
  }
}

// Version 3: locality and relocalization reports.
template <class Archive>
void serialize(Archive& ar, cws::node_locality& n, unsigned) {
  ar& make_nvp("touched_bytes", n.touched_bytes) & make_nvp("local_bytes", n.local_bytes);
}

template <class Archive>
void serialize(Archive& ar, cws::locality_report& l, unsigned) {
  using cws::traces::limits;
  ar& make_nvp("pages", l.pages) & make_nvp("touched_bytes", l.touched_bytes) & make_nvp("local_bytes", l.local_bytes) &
      make_nvp("unknown_bytes", l.unknown_bytes);
  cws::traces::detail::sequence(ar, "node_count", "node", l.per_node, limits::numa_nodes, "per-node locality entries");
}

template <class Archive>
void serialize(Archive& ar, cws::relocalization_report& r, unsigned) {
  using cws::traces::detail::text;
  text(ar, "schedule", r.schedule);
  ar& make_nvp("iteration", r.iteration);
  text(ar, "backend", r.backend);
  ar& make_nvp("pages_examined", r.pages_examined) & make_nvp("pages_moved", r.pages_moved) &
      make_nvp("pages_failed", r.pages_failed) & make_nvp("bytes_moved", r.bytes_moved) &
      make_nvp("seconds", r.seconds);
}

template <class Archive>
void serialize(Archive& ar, cws::steal_tree::phase_record& r, unsigned) {
  using cws::traces::limits;
  using cws::traces::detail::flag;
  using cws::traces::detail::sequence;
  using cws::traces::detail::text;
  text(ar, "schedule", r.schedule);
  ar& make_nvp("iteration", r.iteration);
  text(ar, "policy", r.policy);
  ar& make_nvp("wall_s", r.wall_s);
  sequence(ar, "worker_count", "worker_stats", r.stats, limits::workers, "per-worker statistics");
  ar& make_nvp("steal_tree", r.steals);
  // Version 3: the optional locality report (a 0/1 flag, then the report)
  // and the relocalizations. Older files have neither.
  if (cws::traces::detail::payload_context::current().version >= 3) {
    bool has_locality = r.locality.has_value();
    flag(ar, "has_locality", has_locality);
    if constexpr (Archive::is_saving::value) {
      if (has_locality) ar& make_nvp("locality", *r.locality);
    } else {
      r.locality.reset();
      if (has_locality) {
        cws::locality_report l;
        ar& make_nvp("locality", l);
        r.locality = std::move(l);
      }
    }
    sequence(ar, "relocalization_count", "relocalization", r.relocalizations, limits::relocalizations,
             "relocalizations of a phase run");
  } else if constexpr (Archive::is_loading::value) {
    r.locality.reset();
    r.relocalizations.clear();
  }
}

template <class Archive>
void serialize(Archive& ar, cws::traces::topology_info& t, unsigned) {
  using cws::traces::detail::flag;
  using cws::traces::detail::text;
  text(ar, "summary", t.summary);
  text(ar, "source", t.source);
  flag(ar, "synthetic", t.synthetic);
  ar& make_nvp("packages", t.packages) & make_nvp("numa_nodes", t.numa_nodes) & make_nvp("l3_groups", t.l3_groups) &
      make_nvp("cores", t.cores) & make_nvp("pus", t.pus);
}

template <class Archive>
void serialize(Archive& ar, cws::traces::run_options& o, unsigned) {
  using cws::traces::detail::flag;
  using cws::traces::detail::text;
  ar& make_nvp("workers", o.workers);
  flag(ar, "pin", o.pin);
  text(ar, "idle", o.idle);
  ar& make_nvp("max_nesting", o.max_nesting) & make_nvp("seed", o.seed);
  flag(ar, "record", o.record);
  flag(ar, "audit", o.audit);
  text(ar, "topology_request", o.topology_request);
}

// Version 6: the place tree.
template <class Archive>
void serialize(Archive& ar, cws::traces::places_info& p, unsigned) {
  using cws::traces::limits;
  using cws::traces::detail::sequence;
  using cws::traces::detail::text;
  text(ar, "summary", p.summary);
  text(ar, "source", p.source);
  sequence(ar, "node_count", "numa_node", p.numa_of_node, limits::numa_nodes, "place tree nodes");
  sequence(ar, "worker_count", "node", p.node_of_worker, limits::workers, "place tree workers");
  sequence(ar, "worker_count", "leaf", p.leaf_of_worker, limits::workers, "place tree workers");
}

template <class Archive>
void serialize(Archive& ar, cws::traces::trace_header& h, unsigned) {
  using cws::traces::limits;
  using cws::traces::detail::sequence;
  using cws::traces::detail::text;
  // format_version and archive live in the envelope, not here.
  text(ar, "cws_version", h.cws_version);
  text(ar, "host", h.host);
  text(ar, "created", h.created);
  ar& make_nvp("topology", h.topology);
  sequence(ar, "worker_count", "worker", h.placement, limits::workers, "workers");
  ar& make_nvp("options", h.options);
  if (cws::traces::detail::payload_context::current().version >= 6) {
    ar& make_nvp("places", h.places);
  } else if constexpr (Archive::is_loading::value) {
    h.places = {};
  }
}

template <class Archive>
void serialize(Archive& ar, cws::traces::trace_file& f, unsigned) {
  using cws::traces::limits;
  ar& make_nvp("header", f.header);
  cws::traces::detail::sequence(ar, "phase_count", "phase", f.phases, limits::phases, "phase runs");
}

}  // namespace boost::serialization
