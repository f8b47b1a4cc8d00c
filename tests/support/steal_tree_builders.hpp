#pragma once
// Hand-built steal trees for tests: one segment from its fields, a tree of the root segment alone.
#include <cstdint>
#include <utility>
#include <vector>

#include "cws/steal_tree/tree.hpp"

namespace cws::test {

inline steal_tree::segment segment_of(std::uint32_t worker, std::uint32_t parent, std::uint32_t level,
                                      std::uint32_t step, std::uint64_t start_ns, std::uint64_t end_ns,
                                      std::uint64_t tasks, std::vector<steal_tree::steal_point> steals = {}) {
  steal_tree::segment s;
  s.worker = worker;
  s.parent = parent;
  s.level = level;
  s.step = step;
  s.start_ns = start_ns;
  s.end_ns = end_ns;
  s.tasks = tasks;
  s.steals = std::move(steals);
  return s;
}

// A template holding only the root segment: a replay runs everything on worker 0.
inline steal_tree::tree root_only(std::uint32_t workers) {
  steal_tree::tree t;
  t.workers = workers;
  t.segments.resize(1);
  t.worker_segments.assign(workers, {});
  t.worker_segments[0] = {0};
  return t;
}

// A template in which the root task hands its spawn of rank `rank` (step
// `rank` at level 1, its pedigree) to `thief`; the root segment ran
// `root_tasks` tasks, the stolen one `stolen_tasks`.
inline steal_tree::tree root_handing_spawn_to(std::uint32_t workers, std::uint32_t rank, std::uint32_t thief,
                                              std::uint64_t root_tasks = 1, std::uint64_t stolen_tasks = 1) {
  steal_tree::tree t = root_only(workers);
  t.paths = {rank};
  t.segments[0].end_ns = 10000;
  t.segments[0].tasks = root_tasks;
  t.segments[0].steals = {steal_tree::steal_point{.level = 1, .step = rank, .thief = thief, .child = 1, .path = 0}};
  t.segments.push_back(segment_of(thief, 0, 1, rank, 1000, 5000, stolen_tasks));
  t.worker_segments[thief] = {1};
  return t;
}

}  // namespace cws::test
