#pragma once
// The segments a worker has open (DESIGN §3): the bottom one is the segment
// it runs at top level; each further one is a nested segment started while
// blocked in sync. Each segment keeps one spawn counter per level, reset when
// the segment starts, so (level, step) names a task uniquely inside it.

#include <cstdint>
#include <span>
#include <vector>

#include "cws/observer.hpp"
#include "cws/policy.hpp"

namespace cws::detail {

struct level_counter {
  std::uint32_t next_step = 0;
  std::uint32_t mark = no_mark;  // step at which the policy's route() is consulted
};

struct open_segment final : segment_marks {
  segment_id id = no_segment;
  std::uint64_t tasks = 0;             // tasks executed in this segment
  std::vector<level_counter> levels;   // indexed by level
  std::span<const elision_node> plan;  // serial elision plan (policy.hpp), empty: none

  level_counter& at(std::uint32_t level) {
    if (level >= levels.size()) [[unlikely]]
      levels.resize(level + 1);
    return levels[level];
  }
  void set(std::uint32_t level, std::uint32_t step) override { at(level).mark = step; }
  void clear_all() noexcept override {
    for (level_counter& l : levels) l.mark = no_mark;
  }
  void elide(std::span<const elision_node> nodes) noexcept override { plan = nodes; }
};

class segment_stack {
 public:
  // `max_depth` segments may be open at once; storage is reserved up front so
  // references to open segments stay valid.
  explicit segment_stack(unsigned max_depth) { stack_.resize(max_depth); }

  open_segment& push(segment_id id) {
    open_segment& s = stack_[depth_++];
    s.id = id;
    s.tasks = 0;
    s.levels.clear();
    s.plan = {};
    return s;
  }
  void pop() noexcept { --depth_; }
  open_segment& top() noexcept { return stack_[depth_ - 1]; }
  unsigned depth() const noexcept { return depth_; }

 private:
  std::vector<open_segment> stack_;
  unsigned depth_ = 0;
};

}  // namespace cws::detail
