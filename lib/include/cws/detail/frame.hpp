#pragma once
// A frame is the join state of one running task (or of one cws::finish scope).
// It lives on the stack of the worker executing that task; its children point
// to it, which is safe because a frame never returns before all its children
// completed (implicit sync), and a frame always resumes on its own worker.
//
// Counting: `spawned` and `joined_local` are touched only by the owning
// worker, so children run locally cost no atomic RMW. Children finished by
// other workers bump `joined_remote` (seq_cst: it releases, and it is also the
// waker's write in the parker's store-buffering pair, idle.hpp); the owner
// reads it (acquire), which also publishes `error` written before the bump.

#include <atomic>
#include <cstdint>
#include <exception>

namespace cws::detail {

struct task;

struct frame {
  std::int64_t deque_base = 0;  // deque entries at or above this index are this frame's children
  std::uint32_t level = 0;      // spawn depth of the running task inside its segment
  std::uint64_t spawned = 0;
  std::uint64_t joined_local = 0;
  std::atomic<std::uint64_t> joined_remote{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;   // first exception of a child (or of the body), set once
  frame* outer = nullptr;     // enclosing frame on the same worker
  unsigned designated = ~0u;  // designate_after_next_spawn: worker for this frame's next spawn (~0u: none)
  // Pedigree (DESIGN §3, steal_tree::steal_point::path) and serial elision:
  // the task this frame runs (a finish scope: its task's), whose rank and
  // elision-plan node a thief or the elision lookup reads; written when the
  // frame opens, before any child can be seen by a thief. The next spawn's
  // rank is rank_base + spawned: a finish scope starts where its task stands
  // and hands its count back when it closes, so ranks run on across scopes;
  // an elided spawn (not a child) bumps rank_base.
  const task* self = nullptr;
  std::uint32_t rank_base = 0;
  // Hinted spawns: children pushed on a node or the root place since the last
  // join (owner only). Nonzero: join may take some of them back.
  std::uint32_t placed = 0;

  // Children spawned and not joined yet (owner only).
  std::uint64_t pending() const noexcept {
    return spawned - joined_local - joined_remote.load(std::memory_order_acquire);
  }
  bool children_done() const noexcept { return pending() == 0; }
  void record_error(std::exception_ptr e) noexcept {
    if (!failed.exchange(true, std::memory_order_relaxed)) error = std::move(e);
  }
};

}  // namespace cws::detail
