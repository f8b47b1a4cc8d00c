#pragma once
// The recorder's audit mode (recorder.hpp): what it keeps per executed task
// while the workers run, and how it turns that into the tree's audit records
// (tree.hpp: audit_record) when the phase ends. Private to the recorder.
//
// Cost (issue 21: an audit run must cost about what a normal run costs). Per
// task, on its worker: one 24-byte entry appended to the worker's own task
// log, and one 16-byte entry per spawn to its spawn log; no hashing, no
// allocation once the logs have grown to the phase's size (they keep their
// capacity across phases). After the phase, on the calling thread: one pass
// over the task logs plus one over the spawn logs of the workers whose tasks
// were stolen (a binary search among the stolen children of the spawning
// segment, for the spawns of a segment that has some), no hash map.
//
// Parent links. A task runs from start to end on one worker inside one
// segment, and while a task at level L of segment S runs, no other task at
// level L of S starts (its siblings wait in the deque below it; nested
// segments are other segments). So when a task of S at level L starts in S
// itself, the task running at level L - 1 of S is its parent: the link is
// known at once, from the worker's own `running` slots. Only a task that
// starts a segment of its own (a stolen or handed-over task: O(steals) of
// them) ran on another worker than its parent, or after the parent's slot
// could have changed; its parent is looked up at merge time in the spawning
// worker's spawn log, which recorded the spawner of every spawn.
//
// Open segments. A worker's segments nest (it starts one only while its
// current one waits, or when idle), and its segments are numbered in start
// order; so an event of segment X either continues the innermost open
// segment, or starts a new one (X above every open one), or resumes an outer
// one (the inner ones have ended). `running` holds, per open segment from its
// `base`, the task running at each level.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "cws/observer.hpp"
#include "cws/steal_tree/tree.hpp"

namespace cws::steal_tree {

// An append-only array in fixed-size blocks: growing never copies what is
// already there (a vector's doubling would copy and fault in twice the
// memory while the workers run), and clear() keeps the blocks for the next
// phase. The blocks are not value-initialized: a page is touched when an
// entry is first written to it.
template <class T>
class block_log {
 public:
  static constexpr std::size_t block = std::size_t{1} << 14;  // entries

  std::size_t size() const noexcept { return size_; }
  void clear() noexcept {
    size_ = 0;
    next_ = end_ = nullptr;
  }
  void push_back(const T& value) {
    if (next_ == end_) [[unlikely]]
      next_block();
    *next_++ = value;
    ++size_;
  }
  // Calls f(entry) for every entry, in order.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t b = 0; b * block < size_; ++b) {
      const T* first = blocks_[b].get();
      for (const T* e = first; e != first + std::min(block, size_ - b * block); ++e) f(*e);
    }
  }
  std::size_t bytes() const noexcept { return blocks_.size() * block * sizeof(T) + blocks_.capacity() * sizeof(void*); }

 private:
  void next_block() {  // size_ is a multiple of `block` here
    if (size_ / block == blocks_.size()) blocks_.push_back(std::make_unique_for_overwrite<T[]>(block));
    next_ = blocks_[size_ / block].get();
    end_ = next_ + block;
  }
  std::vector<std::unique_ptr<T[]>> blocks_;
  T* next_ = nullptr;  // where the next entry goes, in the current block
  T* end_ = nullptr;
  std::size_t size_ = 0;
};

class audit_log {
 public:
  // Starts a phase: empties every worker's logs (keeping their storage) and
  // makes room for `workers` of them.
  void begin_phase(unsigned workers);

  // Hot path, on worker `worker` (its own log only); inline, below.
  void on_task_begin(unsigned worker, cws::segment_id seg, const cws::task_tag& tag);
  void on_spawn(unsigned worker, const cws::task_tag& tag);

  // After the phase: appends the audit records of workers 0 .. workers - 1
  // to `out` (grouped by worker, in the order their tasks started), with
  // their parent links. segments_of(w): how many segments worker w recorded;
  // segment_index(id): the index in the tree of segment `id` (no_parent if
  // unknown). A record whose segments are unknown is dropped. Returns true
  // when an event could not be placed (damaged input).
  bool merge(std::vector<audit_record>& out, unsigned workers, const std::function<std::size_t(unsigned)>& segments_of,
             const std::function<std::uint32_t(cws::segment_id)>& segment_index);

  // Bytes held by the logs and the merge scratch (kept between phases).
  std::size_t bytes() const noexcept;

 private:
  struct task_entry {
    cws::segment_id spawn_segment;  // the task's tag: where it was spawned ...
    std::uint32_t level;            // ... and its (level, step) there
    std::uint32_t step;
    std::uint32_t segment;  // the worker's segment (sequence number) that ran it
    std::uint32_t parent;   // index of the parent in the same worker's log; no_parent: found at merge
  };
  struct spawn_entry {
    std::uint32_t segment;  // the spawning segment (this worker's sequence number)
    std::uint32_t level;    // the spawned task's (level, step)
    std::uint32_t step;
    std::uint32_t parent;  // the spawning task: index in the same worker's task log
  };
  struct open_segment {
    std::uint32_t segment;  // sequence number
    std::uint32_t base;     // its first slot in `running`
  };
  // One per worker, written only by that worker during a phase.
  struct alignas(64) worker_log {
    block_log<task_entry> tasks;  // in start order
    block_log<spawn_entry> spawns;
    std::vector<open_segment> open;      // innermost last
    std::vector<std::uint32_t> running;  // per open segment from its base: the task running at each level
    std::uint32_t unseen = 0;            // segments numbered below it have started (and maybe ended)
    bool damaged = false;                // an event that did not fit the core's contract
    // Makes `segment` the innermost open segment; false if it cannot be
    // (an event of a segment that already ended).
    bool enter(std::uint32_t segment);
  };
  // A segment root whose parent is in another log entry's worker: the
  // spawning segment (temporary index, see merge) and (level, step) of the
  // task, and its index in the output.
  struct stolen_root {
    std::uint32_t spawn_segment;
    std::uint32_t level;
    std::uint32_t step;
    std::uint32_t record;
  };

  std::vector<worker_log> logs_;
  // Merge scratch, kept between phases (assign / resize keep capacity).
  std::vector<std::uint32_t> first_segment_;  // per worker: temporary index of its segment 0
  std::vector<std::uint32_t> segment_final_;  // per temporary index: the segment's index in the tree
  std::vector<std::uint32_t> first_record_;   // per worker: output index of its first task
  std::vector<stolen_root> roots_;            // sorted by (spawn_segment, level, step)
  std::vector<std::uint32_t> roots_of_;       // per temporary segment: its stolen children in roots_ (CSR)
  std::vector<std::uint32_t> kept_;           // damaged input only: new index of every record
};

// Indices into a worker's task log stay below no_parent.
inline constexpr std::uint64_t max_audit_index = std::numeric_limits<std::uint32_t>::max() - 1;

inline void audit_log::on_task_begin(unsigned worker, cws::segment_id seg, const cws::task_tag& tag) {
  if (worker >= logs_.size()) [[unlikely]]
    return;  // cannot happen: begin_phase covered every worker of the phase
  worker_log& b = logs_[worker];
  const std::uint64_t seq = cws::segment_seq(seg);
  const std::uint32_t level = tag.segment == seg ? tag.level : 0;  // a segment's root is at level 0
  std::uint32_t parent = no_parent;
  const bool entered = !b.open.empty() && b.open.back().segment == seq;  // the innermost open segment (usual)
  if (seq > max_audit_index || b.tasks.size() > max_audit_index ||
      !(entered || b.enter(static_cast<std::uint32_t>(seq)))) [[unlikely]] {
    b.damaged = true;
  } else {
    const std::size_t slot = b.open.back().base + std::size_t{level};
    if (level > 0) {
      if (slot - 1 < b.running.size()) parent = b.running[slot - 1];
      if (parent == no_parent) b.damaged = true;
    }
    if (slot >= b.running.size()) b.running.resize(slot + 1, no_parent);
    b.running[slot] = static_cast<std::uint32_t>(b.tasks.size());
  }
  b.tasks.push_back(task_entry{tag.segment, tag.level, tag.step, static_cast<std::uint32_t>(seq), parent});
}

inline void audit_log::on_spawn(unsigned worker, const cws::task_tag& tag) {
  if (worker >= logs_.size()) [[unlikely]]
    return;
  worker_log& b = logs_[worker];
  const std::uint64_t seq = cws::segment_seq(tag.segment);
  std::uint32_t parent = no_parent;
  const bool entered = !b.open.empty() && b.open.back().segment == seq;  // the innermost open segment (usual)
  if (cws::segment_worker(tag.segment) == worker && tag.level >= 1 && seq <= max_audit_index &&
      (entered || b.enter(static_cast<std::uint32_t>(seq)))) [[likely]] {
    const std::size_t slot = b.open.back().base + std::size_t{tag.level} - 1;
    if (slot < b.running.size()) parent = b.running[slot];
  }
  if (parent == no_parent) [[unlikely]]
    b.damaged = true;
  b.spawns.push_back(spawn_entry{static_cast<std::uint32_t>(seq), tag.level, tag.step, parent});
}

}  // namespace cws::steal_tree
