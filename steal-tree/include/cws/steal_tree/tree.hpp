#pragma once
// The steal tree of one phase run (Lifflander et al., PLDI 2013; DESIGN §3):
// O(workers + steals) data, nothing per task.
//
// A segment is the stretch a worker spends on one task it did not spawn
// itself (the phase root, a stolen task, a handed-over task) together with
// every descendant it ran locally. Every segment but the root was taken from
// its parent segment at (level, step): the task's spawn depth inside the
// parent segment and its index among that segment's spawns at that depth.
// These "steal points" are all a replay needs.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cws/locality.hpp"
#include "cws/stats.hpp"

namespace cws::steal_tree {

inline constexpr std::uint32_t no_parent = ~std::uint32_t{0};
inline constexpr std::uint32_t no_path = ~std::uint32_t{0};

// A steal out of a segment: the task at (level, step) was taken by `thief`
// and became segment `child` (an index into tree::segments).
//
// Its pedigree (`path`, an offset into tree::paths, or no_path when unknown:
// trees from format-4 files, hand-built trees) is the task's ancestry inside
// the segment: `level` entries, entry d-1 the rank of its depth-d ancestor
// among the spawns of its depth-(d-1) ancestor (depth 0: the segment's root
// task; the last entry is the stolen task's own rank). Unlike the step, a
// rank does not depend on the order in which the segment ran its other
// subtrees, so a replay can tell which spawns lie on the way to a designated
// steal and run every other spawn as a plain call (serial elision).
struct steal_point {
  std::uint32_t level = 0;
  std::uint32_t step = 0;
  std::uint32_t thief = 0;
  std::uint32_t child = 0;
  std::uint32_t path = no_path;
  // A steal is (level, step, thief, child); `path` only says where its
  // pedigree sits in its own tree's table (compare pedigrees with path_of).
  friend bool operator==(const steal_point& a, const steal_point& b) noexcept {
    return a.level == b.level && a.step == b.step && a.thief == b.thief && a.child == b.child;
  }
};

struct segment {
  std::uint32_t worker = 0;
  std::uint32_t parent = no_parent;  // index of the segment that spawned its root task
  std::uint32_t level = 0;           // where the root task was taken in the parent
  std::uint32_t step = 0;
  std::uint64_t start_ns = 0;  // relative to the phase start
  std::uint64_t end_ns = 0;
  std::uint64_t tasks = 0;          // tasks executed inside this segment (not nested ones)
  std::vector<steal_point> steals;  // outgoing steals, sorted by (level, step)
  friend bool operator==(const segment&, const segment&) = default;
};

// Audit mode only: one record per executed task.
struct audit_record {
  std::uint32_t segment = 0;                // index of the segment that executed it
  std::uint32_t spawn_segment = no_parent;  // index of the segment that spawned it (no_parent: the root)
  std::uint32_t level = 0;                  // its (level, step) in the spawning segment
  std::uint32_t step = 0;
  std::uint32_t worker = 0;
  // Index in tree::audit of the task that spawned it (no_parent: the phase
  // root). (spawn_segment, level, step) names a task relative to the steal
  // points of its run; the parent links give its schedule-independent
  // identity (the spawn-tree path), which exact schedule_distance needs.
  std::uint32_t parent = no_parent;
  friend bool operator==(const audit_record&, const audit_record&) = default;
};

struct tree {
  std::uint32_t workers = 0;
  std::vector<segment> segments;                            // segments[0] is the root segment
  std::vector<std::vector<std::uint32_t>> worker_segments;  // per worker: its segments in start order
  std::vector<audit_record> audit;                          // empty unless audit mode
  std::vector<std::uint32_t> paths;                         // the steal points' pedigrees, concatenated
  friend bool operator==(const tree&, const tree&) = default;
};

// One run of one phase, as the recorder hands it over and trace files hold it.
struct phase_record {
  std::string schedule;
  std::uint64_t iteration = 0;
  std::string policy;
  double wall_s = 0;
  std::vector<cws::worker_stats> stats;  // per worker
  tree steals;
  // Where the run's touched bytes lived (phase_stats::locality): only for a
  // run whose tasks declared touches (touch.hpp).
  std::optional<cws::locality_report> locality;
  // Every runtime::relocalize that used this run's touches, in call order
  // (usually none or one; relocalize always works on a schedule's latest run).
  std::vector<cws::relocalization_report> relocalizations;
};

// The pedigree of `p` in `t` (p.level ranks), or an empty span when unknown.
inline std::span<const std::uint32_t> path_of(const tree& t, const steal_point& p) noexcept {
  if (p.path == no_path || p.path > t.paths.size() || t.paths.size() - p.path < p.level) return {};
  return {t.paths.data() + p.path, p.level};
}

}  // namespace cws::steal_tree
