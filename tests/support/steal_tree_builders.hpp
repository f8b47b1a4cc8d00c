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

}  // namespace cws::test
