#pragma once
// The observer interface: how tracing (the steal-tree recorder, audit mode,
// tests) learns what the scheduler did, without any tracing code inside the
// scheduler. Hooks run on the worker the event happens on, concurrently with
// the other workers; an observer keeps per-worker state to stay contention-free.
//
// Cost contract: segment and steal hooks fire O(segments + steals) times per
// phase. The per-task hooks (on_spawn, on_task_begin) fire only when
// wants_task_events() returned true at phase start; otherwise spawn pays
// nothing for observation.

#include <cstdint>
#include <span>

namespace cws {

// Identifies a segment inside one phase: worker in the high 16 bits, the
// worker's segment sequence number (start order, from 0) in the low 48.
using segment_id = std::uint64_t;
inline constexpr segment_id no_segment = ~segment_id{0};
constexpr segment_id make_segment_id(unsigned worker, std::uint64_t seq) noexcept {
  return (std::uint64_t{worker} << 48) | seq;
}
constexpr unsigned segment_worker(segment_id s) noexcept { return static_cast<unsigned>(s >> 48); }
constexpr std::uint64_t segment_seq(segment_id s) noexcept { return s & ((std::uint64_t{1} << 48) - 1); }

// Where a task was spawned: the spawning segment and the task's (level, step)
// in it (DESIGN §3). Unique inside a phase. The phase root has level 0, step 0
// and no spawning segment.
struct task_tag {
  segment_id segment = no_segment;
  std::uint32_t level = 0;
  std::uint32_t step = 0;
  friend bool operator==(const task_tag&, const task_tag&) = default;
};

struct phase_info;             // stats.hpp
struct phase_stats;            // stats.hpp
struct relocalization_report;  // locality.hpp

class observer {
 public:
  virtual ~observer() = default;

  // Called on the runtime's calling thread, before any worker starts / after
  // all stopped (with the phase's statistics).
  virtual void on_phase_begin(const phase_info&) {}
  virtual void on_phase_end(const phase_stats&) {}
  // runtime::relocalize moved the pages of a schedule's latest run (between
  // phases, on the runtime's calling thread).
  virtual void on_relocalize(const relocalization_report&) {}

  // A worker starts executing a task it did not spawn (the phase root, a stolen
  // or handed-over task) as a new segment. `root` is that task's tag in its
  // spawning segment; `parent` is the segment that spawned it.
  virtual void on_segment_begin(unsigned /*worker*/, segment_id /*seg*/, const task_tag& /*root*/,
                                std::uint64_t /*time_ns*/) {}
  virtual void on_segment_end(unsigned /*worker*/, segment_id /*seg*/, std::uint64_t /*tasks*/,
                              std::uint64_t /*time_ns*/) {}
  // Right after on_segment_begin of a segment whose root task was spawned in
  // another segment: the root's pedigree there (root.level ranks; see
  // steal_tree::steal_point::path). Costs O(level) per such segment, nothing per task.
  virtual void on_segment_path(unsigned /*worker*/, segment_id /*seg*/, std::span<const std::uint32_t> /*ranks*/) {}
  // `thief` took the task `tag` from `victim`'s deque or mailbox.
  virtual void on_steal(unsigned /*thief*/, unsigned /*victim*/, const task_tag& /*tag*/) {}

  virtual bool wants_task_events() const { return false; }
  virtual void on_spawn(unsigned /*worker*/, const task_tag& /*tag*/) {}
  // `worker` starts running task `tag` inside its segment `seg`.
  virtual void on_task_begin(unsigned /*worker*/, segment_id /*seg*/, const task_tag& /*tag*/) {}
};

}  // namespace cws
