// Consistency checks of trace data, run after every load and before every write.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <compare>
#include <utility>
#include <vector>

#include "cws/traces/trace_file.hpp"

namespace cws::traces {

namespace st = cws::steal_tree;

namespace {

[[noreturn]] void fail(const std::string& what) { throw error(what); }

void check_time(double v, const char* what) {
  if (!std::isfinite(v) || v < 0)
    fail(fmt::format("{} is {} (must be a finite, non-negative number of seconds)", what, v));
  if (v > limits::seconds) fail(fmt::format("{} is {} seconds, beyond the limit of {:g}", what, v, limits::seconds));
}

// Counters no stored element bounds (a file can hold any number in 8 bytes):
// a sane maximum instead, so that forged counts do not pass as data.
void check_counter(std::uint64_t v, const char* what) {
  if (v > limits::counter) fail(fmt::format("{} {} exceeds the limit of {}", what, v, limits::counter));
}

// Of-counters: `part` counts a kind of what `whole` counts.
void check_part(std::uint64_t part, const char* part_name, std::uint64_t whole, const char* whole_name) {
  if (part > whole) fail(fmt::format("{} {} but only {} {}", part, part_name, whole, whole_name));
}

void check_string(const std::string& s, const char* what) {
  if (s.size() > limits::string_bytes)
    fail(fmt::format("{} of {} bytes exceeds the limit of {}", what, s.size(), limits::string_bytes));
}

void validate_audit(const st::tree& t) {
  const std::uint64_t n = t.segments.size();
  const std::uint64_t a = t.audit.size();
  if (a > limits::audit_records) fail(fmt::format("{} audit records exceed the limit of {}", a, limits::audit_records));
  std::vector<std::uint64_t> per_segment(static_cast<std::size_t>(n), 0);
  std::uint64_t roots = 0;
  for (std::uint64_t k = 0; k < a; ++k) {
    const st::audit_record& r = t.audit[k];
    if (r.segment >= n) fail(fmt::format("audit record {}: segment {} out of range ({} segments)", k, r.segment, n));
    if (r.worker != t.segments[r.segment].worker)
      fail(fmt::format("audit record {}: worker {} but segment {} runs on worker {}", k, r.worker, r.segment,
                       t.segments[r.segment].worker));
    ++per_segment[r.segment];
    if (r.parent == st::no_parent) {
      if (r.spawn_segment != st::no_parent)
        fail(fmt::format("audit record {}: no parent task but spawned in segment {}", k, r.spawn_segment));
      if (r.segment != 0 || r.level != 0 || r.step != 0)
        fail(fmt::format("audit record {}: the phase root must run in segment 0 at (0, 0)", k));
      ++roots;
      continue;
    }
    if (r.parent >= a || r.parent == k)
      fail(fmt::format("audit record {}: parent {} out of range ({} records)", k, r.parent, a));
    if (r.spawn_segment >= n)
      fail(fmt::format("audit record {}: spawning segment {} out of range ({} segments)", k, r.spawn_segment, n));
    const st::audit_record& p = t.audit[r.parent];
    if (p.segment != r.spawn_segment)
      fail(fmt::format("audit record {}: spawned in segment {} by record {}, which ran in segment {}", k,
                       r.spawn_segment, r.parent, p.segment));
    const std::uint32_t parent_level = p.spawn_segment == p.segment ? p.level : 0;  // a segment's root has level 0
    if (r.level != parent_level + 1)
      fail(fmt::format("audit record {}: level {} but its parent (record {}) is at level {}", k, r.level, r.parent,
                       parent_level));
  }
  if (roots != 1) fail(fmt::format("{} audit records without a parent (exactly one, the phase root, expected)", roots));
  for (std::uint64_t i = 0; i < n; ++i)
    if (per_segment[i] != t.segments[i].tasks)
      fail(fmt::format("segment {}: {} tasks but {} audit records", i, t.segments[i].tasks, per_segment[i]));

  // No cycles: walk every chain of parents up to a record already known to
  // reach the root (0 = unknown, 1 = on the current chain, 2 = reaches the root).
  std::vector<std::uint8_t> state(static_cast<std::size_t>(a), 0);
  std::vector<std::uint32_t> chain;
  for (std::uint64_t k = 0; k < a; ++k) {
    std::uint32_t v = static_cast<std::uint32_t>(k);
    chain.clear();
    while (state[v] == 0) {
      state[v] = 1;
      chain.push_back(v);
      if (t.audit[v].parent == st::no_parent) break;
      v = t.audit[v].parent;
    }
    if (state[v] == 1 && t.audit[v].parent != st::no_parent)
      fail(fmt::format("audit record {}: its chain of parents forms a cycle", k));
    for (std::uint32_t c : chain) state[c] = 2;
  }

  // Names are unique.
  struct key {
    std::uint32_t segment, level, step;
    auto operator<=>(const key&) const = default;
  };
  std::vector<key> keys;
  keys.reserve(static_cast<std::size_t>(a));
  for (const st::audit_record& r : t.audit) keys.push_back({r.spawn_segment, r.level, r.step});
  std::sort(keys.begin(), keys.end());
  for (std::size_t k = 1; k < keys.size(); ++k)
    if (keys[k] == keys[k - 1])
      fail(fmt::format("two audit records name the task ({}, {}) of segment {}", keys[k].level, keys[k].step,
                       static_cast<std::int64_t>(keys[k].segment == st::no_parent ? -1 : keys[k].segment)));
}

}  // namespace

void validate(const st::tree& t) {
  const std::uint64_t n = t.segments.size();
  if (t.workers == 0) fail("tree has 0 workers");
  if (t.workers > limits::workers) fail(fmt::format("tree has {} workers (limit {})", t.workers, limits::workers));
  if (n > limits::segments) fail(fmt::format("{} segments exceed the limit of {}", n, limits::segments));
  if (t.worker_segments.size() != t.workers)
    fail(fmt::format("{} per-worker segment lists for {} workers", t.worker_segments.size(), t.workers));
  if (n == 0) {
    for (const auto& list : t.worker_segments)
      if (!list.empty()) fail("per-worker segment list names a segment of an empty tree");
    if (!t.audit.empty()) fail("audit records in an empty tree");
    return;
  }

  // Segments: fields in range; the root first.
  constexpr auto max_ns = static_cast<std::uint64_t>(limits::seconds * 1e9);
  std::uint64_t tasks = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const st::segment& s = t.segments[i];
    if (s.worker >= t.workers)
      fail(fmt::format("segment {}: worker {} out of range ({} workers)", i, s.worker, t.workers));
    if (s.start_ns > s.end_ns)
      fail(fmt::format("segment {}: ends ({} ns) before it starts ({} ns)", i, s.end_ns, s.start_ns));
    if (s.steals.size() > limits::steals)
      fail(fmt::format("segment {}: {} steals exceed the limit", i, s.steals.size()));
    if (s.end_ns > max_ns)
      fail(fmt::format("segment {}: ends at {} ns, beyond the limit of {} ns", i, s.end_ns, max_ns));
    if (s.tasks > limits::counter)
      fail(fmt::format("segment {}: {} tasks exceed the limit of {}", i, s.tasks, limits::counter));
    tasks += s.tasks;  // no overflow: each term is at most 2^48 and there are at most 2^28
    if (tasks > limits::counter)
      fail(fmt::format("segments 0 to {}: {} tasks exceed the limit of {} per tree", i, tasks, limits::counter));
    if (i == 0) {
      if (s.parent != st::no_parent) fail(fmt::format("segment 0 (the root) has parent {}", s.parent));
    } else {
      if (s.parent == st::no_parent) fail(fmt::format("segment {}: second root (no parent)", i));
      if (s.parent >= n) fail(fmt::format("segment {}: parent {} out of range ({} segments)", i, s.parent, n));
      if (s.parent == i) fail(fmt::format("segment {}: is its own parent", i));
    }
  }

  // Steal lists: each entry describes its child exactly; each non-root segment
  // is listed once, by its parent; lists sorted by (level, step), no duplicates.
  std::vector<std::uint8_t> listed(static_cast<std::size_t>(n), 0);
  for (std::uint64_t i = 0; i < n; ++i) {
    const st::segment& s = t.segments[i];
    for (std::size_t k = 0; k < s.steals.size(); ++k) {
      const st::steal_point& p = s.steals[k];
      if (p.child >= n || p.child == 0)
        fail(fmt::format("segment {}: steal {} names segment {} ({} segments)", i, k, p.child, n));
      const st::segment& c = t.segments[p.child];
      if (c.parent != i)
        fail(fmt::format("segment {}: steal {} names segment {}, whose parent is {}", i, k, p.child, c.parent));
      if (c.level != p.level || c.step != p.step)
        fail(fmt::format("segment {}: steal {} at ({}, {}) but segment {} was taken at ({}, {})", i, k, p.level, p.step,
                         p.child, c.level, c.step));
      if (c.worker != p.thief)
        fail(fmt::format("segment {}: steal {} by worker {} but segment {} runs on worker {}", i, k, p.thief, p.child,
                         c.worker));
      if (p.path != st::no_path && (p.path > t.paths.size() || t.paths.size() - p.path < p.level))
        fail(fmt::format("segment {}: steal {} has a pedigree at {} of {} ranks, the tree holds {}", i, k, p.path,
                         p.level, t.paths.size()));
      if (listed[p.child]) fail(fmt::format("segment {} is listed twice as a steal", p.child));
      listed[p.child] = 1;
      if (k > 0) {
        const st::steal_point& q = s.steals[k - 1];
        if (q.level > p.level || (q.level == p.level && q.step >= p.step))
          fail(fmt::format("segment {}: steals not sorted by (level, step) at entry {}", i, k));
      }
    }
  }
  for (std::uint64_t i = 1; i < n; ++i)
    if (!listed[i])
      fail(fmt::format("segment {} is missing from the steals of its parent {}", i, t.segments[i].parent));

  // Connected and acyclic: walking the steal lists from the root reaches every
  // segment (each is listed exactly once, so a walk visits each at most once).
  {
    std::vector<std::uint32_t> stack{0};
    std::uint64_t reached = 0;
    while (!stack.empty()) {
      const std::uint32_t i = stack.back();
      stack.pop_back();
      ++reached;
      for (const st::steal_point& p : t.segments[i].steals) stack.push_back(p.child);
    }
    if (reached != n) fail(fmt::format("{} of {} segments are not connected to the root (cycle)", n - reached, n));
  }

  // Per-worker lists: every segment exactly once, on its own worker, in start order.
  std::vector<std::uint8_t> seen(static_cast<std::size_t>(n), 0);
  std::uint64_t total = 0;
  for (std::uint32_t w = 0; w < t.workers; ++w) {
    const auto& list = t.worker_segments[w];
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::uint32_t i = list[k];
      if (i >= n) fail(fmt::format("worker {}: segment {} out of range ({} segments)", w, i, n));
      if (t.segments[i].worker != w)
        fail(fmt::format("worker {}: lists segment {}, which runs on worker {}", w, i, t.segments[i].worker));
      if (seen[i]) fail(fmt::format("worker {}: segment {} listed twice", w, i));
      seen[i] = 1;
      if (k > 0 && t.segments[list[k - 1]].start_ns > t.segments[i].start_ns)
        fail(fmt::format("worker {}: segments not in start order at entry {}", w, k));
    }
    total += list.size();
  }
  if (total != n) fail(fmt::format("per-worker lists name {} of {} segments", total, n));

  // Audit records: in range, one per task of each segment, and the spawn
  // tree they describe consistent: exactly one root (the phase root), every
  // other record's parent ran in the record's spawning segment, one level
  // above it (or is that segment's root, at level 0), no cycles, and no two
  // records with the same (spawning segment, level, step).
  if (!t.audit.empty()) validate_audit(t);
}

void validate(const cws::locality_report& l, std::uint32_t numa_nodes) {
  const std::uint64_t n = l.per_node.size();
  if (n > limits::numa_nodes) fail(fmt::format("{} per-node entries exceed the limit of {}", n, limits::numa_nodes));
  if (numa_nodes > 0 && n > numa_nodes) fail(fmt::format("{} per-node entries for {} NUMA nodes", n, numa_nodes));
  // Damaged counts could wrap a plain sum around to the right total.
  std::uint64_t touched = 0, local = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const cws::node_locality& x = l.per_node[i];
    if (x.local_bytes > x.touched_bytes)
      fail(fmt::format("node {}: {} local bytes of {} touched", i, x.local_bytes, x.touched_bytes));
    if (__builtin_add_overflow(touched, x.touched_bytes, &touched) ||
        __builtin_add_overflow(local, x.local_bytes, &local))
      fail("per-node byte counts overflow");
  }
  if (l.local_bytes > l.touched_bytes)
    fail(fmt::format("{} local bytes of {} touched", l.local_bytes, l.touched_bytes));
  if (touched != l.touched_bytes)
    fail(fmt::format("per-node touched bytes sum to {}, the total is {}", touched, l.touched_bytes));
  if (local != l.local_bytes)
    fail(fmt::format("per-node local bytes sum to {}, the total is {}", local, l.local_bytes));
  // A byte on a page without a known home is never local.
  if (l.unknown_bytes > l.touched_bytes - l.local_bytes)
    fail(fmt::format("{} bytes on pages of unknown home, but only {} of {} touched bytes are not local",
                     l.unknown_bytes, l.touched_bytes - l.local_bytes, l.touched_bytes));
}

void validate(const cws::relocalization_report& r) {
  check_string(r.schedule, "schedule name");
  check_string(r.backend, "backend name");
  check_counter(r.pages_examined, "pages examined");
  if (r.pages_moved > r.pages_examined || r.pages_failed > r.pages_examined - r.pages_moved)
    fail(fmt::format("{} pages moved and {} failed of {} examined", r.pages_moved, r.pages_failed, r.pages_examined));
  // bytes_moved = pages_moved * page size, and page sizes are powers of two.
  if (r.pages_moved == 0) {
    if (r.bytes_moved != 0) fail(fmt::format("{} bytes moved but no page", r.bytes_moved));
  } else if (r.bytes_moved % r.pages_moved != 0 || !std::has_single_bit(r.bytes_moved / r.pages_moved)) {
    fail(fmt::format("{} bytes moved in {} pages (not a whole power-of-two page size)", r.bytes_moved, r.pages_moved));
  }
  check_time(r.seconds, "relocalization time");
}

namespace {
// The place tree (version 6): empty, or one node and one leaf index per
// worker, nodes on distinct NUMA nodes of the topology, each leaf inside one
// node, leaves numbered 0..L-1 without gaps.
void validate_places(const places_info& p, const trace_header& h) {
  check_string(p.summary, "place tree summary");
  check_string(p.source, "place tree source");
  if (p.empty()) {
    if (!p.source.empty() || !p.numa_of_node.empty() || !p.node_of_worker.empty() || !p.leaf_of_worker.empty())
      fail("header: place tree without a summary");
    return;
  }
  const std::uint32_t workers = h.options.workers;
  const std::size_t nodes = p.numa_of_node.size();
  if (nodes == 0 || nodes > limits::numa_nodes)
    fail(fmt::format("header: place tree of {} nodes (1 to {})", nodes, limits::numa_nodes));
  if (p.node_of_worker.size() != workers || p.leaf_of_worker.size() != workers)
    fail(fmt::format("header: place tree of {} / {} workers (node / leaf), the trace has {}", p.node_of_worker.size(),
                     p.leaf_of_worker.size(), workers));
  std::vector<std::uint32_t> numa = p.numa_of_node;
  std::sort(numa.begin(), numa.end());
  for (std::size_t k = 0; k < nodes; ++k) {
    if (h.topology.numa_nodes > 0 && numa[k] >= h.topology.numa_nodes)
      fail(fmt::format("header: place tree node on NUMA node {} of {}", numa[k], h.topology.numa_nodes));
    if (k > 0 && numa[k] == numa[k - 1]) fail(fmt::format("header: two place tree nodes on NUMA node {}", numa[k]));
  }
  constexpr std::uint32_t unseen = ~0u;
  std::vector<std::uint32_t> node_of_leaf(workers, unseen);
  std::uint32_t leaves = 0;
  for (std::uint32_t w = 0; w < workers; ++w) {
    const std::uint32_t node = p.node_of_worker[w], leaf = p.leaf_of_worker[w];
    if (node >= nodes) fail(fmt::format("header: place tree puts worker {} on node {} of {}", w, node, nodes));
    if (leaf >= workers)
      fail(fmt::format("header: place tree puts worker {} in leaf {} ({} workers)", w, leaf, workers));
    if (node_of_leaf[leaf] == unseen) {
      node_of_leaf[leaf] = node;
      leaves = std::max(leaves, leaf + 1);
    } else if (node_of_leaf[leaf] != node) {
      fail(fmt::format("header: place tree leaf {} spans nodes {} and {}", leaf, node_of_leaf[leaf], node));
    }
  }
  for (std::uint32_t l = 0; l < leaves; ++l)
    if (node_of_leaf[l] == unseen) fail(fmt::format("header: place tree leaf {} has no worker", l));
}
}  // namespace

void validate(const trace_header& h) {
  check_string(h.cws_version, "producer version");
  check_string(h.host, "host name");
  check_string(h.created, "creation time");
  check_string(h.topology.summary, "topology summary");
  check_string(h.topology.source, "topology source");
  check_string(h.options.idle, "idle mode");
  check_string(h.options.topology_request, "topology request");
  const std::uint32_t workers = h.options.workers;
  if (workers == 0) fail("header: 0 workers");
  if (workers > limits::workers)
    fail(fmt::format("header: {} workers exceed the limit of {}", workers, limits::workers));
  if (h.placement.size() != workers)
    fail(fmt::format("header: {} placement entries for {} workers", h.placement.size(), workers));
  for (std::size_t w = 0; w < h.placement.size(); ++w) {
    const worker_placement& p = h.placement[w];
    if (p.worker != w) fail(fmt::format("header: placement entry {} is for worker {}", w, p.worker));
    if (h.topology.numa_nodes > 0 && p.numa_node >= h.topology.numa_nodes)
      fail(fmt::format("header: worker {} on NUMA node {} of {}", w, p.numa_node, h.topology.numa_nodes));
  }
  validate_places(h.places, h);
}

void validate(const st::phase_record& r, const trace_header& h) {
  const std::uint32_t workers = h.options.workers;
  const std::string where = fmt::format("phase '{}' #{}", r.schedule.substr(0, 64), r.iteration);
  try {
    check_string(r.schedule, "schedule name");
    check_string(r.policy, "policy name");
    check_time(r.wall_s, "wall time");
    if (r.stats.size() != workers)
      fail(fmt::format("statistics for {} workers, the trace has {}", r.stats.size(), workers));
    for (std::size_t w = 0; w < r.stats.size(); ++w) {
      const worker_stats& s = r.stats[w];
      check_time(s.idle_s, "idle time");
      try {
        for (const auto& [v, name] : {std::pair{s.tasks, "tasks"},
                                      {s.segments, "segments"},
                                      {s.steals, "steals"},
                                      {s.failed_steals, "failed steals"},
                                      {s.taken_back, "tasks taken back"},
                                      {s.hinted_leaf, "hinted leaf spawns"},
                                      {s.hinted_node, "hinted node spawns"},
                                      {s.hinted_root, "hinted root spawns"},
                                      {s.reclaimed, "reclaimed tasks"}})
          check_counter(v, name);
        // The "of" counters (stats.hpp) count a kind of another counter
        // (taken_back counts tasks run locally: no relation to the others).
        check_part(s.designated, "designated steals", s.steals, "steals");
        check_part(s.place_steals, "place steals", s.steals, "steals");
        check_part(s.elided, "elided spawns", s.tasks, "tasks");
        check_part(s.nested_segments, "nested segments", s.segments, "segments");
        check_part(s.het_inlined, "HET-inlined spawns", s.hinted_leaf, "hinted leaf spawns");
      } catch (const error& e) {
        fail(fmt::format("worker {}: {}", w, e.what()));
      }
    }
    if (r.steals.workers != workers)
      fail(fmt::format("steal tree of {} workers, the trace has {}", r.steals.workers, workers));
    validate(r.steals);
    if (r.locality) {
      try {
        validate(*r.locality, h.topology.numa_nodes);
      } catch (const error& e) {
        fail(fmt::format("locality: {}", e.what()));
      }
    }
    if (r.relocalizations.size() > limits::relocalizations)
      fail(fmt::format("{} relocalizations exceed the limit of {}", r.relocalizations.size(), limits::relocalizations));
    for (std::size_t k = 0; k < r.relocalizations.size(); ++k) {
      const cws::relocalization_report& x = r.relocalizations[k];
      try {
        validate(x);
        // The recorder files a report under the run whose touches it used.
        if (x.schedule != r.schedule || x.iteration != r.iteration)
          fail(fmt::format("made from the run '{}' #{}, filed under this one", x.schedule.substr(0, 64), x.iteration));
      } catch (const error& e) {
        fail(fmt::format("relocalization {}: {}", k, e.what()));
      }
    }
  } catch (const error& e) {
    throw error(fmt::format("{}: {}", where, e.what()));
  }
}

void validate(const trace_file& f) {
  validate(f.header);
  if (f.phases.size() > limits::phases)
    fail(fmt::format("{} phase runs exceed the limit of {}", f.phases.size(), limits::phases));
  for (const st::phase_record& r : f.phases) validate(r, f.header);
}

}  // namespace cws::traces
