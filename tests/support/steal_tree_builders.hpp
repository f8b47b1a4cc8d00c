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

// The root's first two spawns, A (step 0) and B (step 1), both to worker 1,
// in that order (their pedigrees: ranks 0 and 1 among the root's spawns).
inline steal_tree::tree a_and_b_to_worker_1() {
  namespace st = steal_tree;
  st::tree t = root_only(2);
  t.paths = {0, 1};
  t.segments[0].end_ns = 10000;
  t.segments[0].tasks = 1;
  t.segments[0].steals = {st::steal_point{.level = 1, .step = 0, .thief = 1, .child = 1, .path = 0},
                          st::steal_point{.level = 1, .step = 1, .thief = 1, .child = 2, .path = 1}};
  t.segments.push_back(segment_of(1, 0, 1, 0, 1000, 5000, 1));
  t.segments.push_back(segment_of(1, 0, 1, 1, 6000, 9000, 1));
  t.worker_segments[1] = {1, 2};
  return t;
}

// cws-fdtd's 32 blocks on 2 workers after a late helper (a recorded tree):
// worker 1 took the left half at (1,0) and ran 14 of its 16 blocks; worker 0
// took one back at (3,2), and worker 1 took one of that again at (1,0).
// Balanced (16 tasks each), with 2 steals more than it needs.
inline steal_tree::tree late_helper_split() {
  namespace st = steal_tree;
  st::tree t;
  t.workers = 2;
  t.segments.push_back(segment_of(0, st::no_parent, 0, 0, 0, 76000, 16,
                                  {st::steal_point{.level = 1, .step = 0, .thief = 1, .child = 1}}));
  t.segments.push_back(
      segment_of(1, 0, 1, 0, 100, 75000, 14, {st::steal_point{.level = 3, .step = 2, .thief = 0, .child = 2}}));
  t.segments.push_back(
      segment_of(0, 1, 3, 2, 67000, 75000, 1, {st::steal_point{.level = 1, .step = 0, .thief = 1, .child = 3}}));
  t.segments.push_back(segment_of(1, 2, 1, 0, 70000, 75000, 1));
  t.worker_segments = {{0, 2}, {1, 3}};
  return t;
}

}  // namespace cws::test
