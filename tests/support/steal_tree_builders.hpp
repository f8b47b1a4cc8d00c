#pragma once
// Hand-built steal trees for tests: one segment from its fields.
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

}  // namespace cws::test
