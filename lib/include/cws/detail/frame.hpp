#pragma once
// A frame is the join state of one running task (or of one cws::finish scope).
// It lives on the stack of the worker executing that task; its children point
// to it, which is safe because a frame never returns before all its children
// completed (implicit sync), and a frame always resumes on its own worker.
//
// Counting: `spawned` and `joined_local` are touched only by the owning
// worker, so children run locally cost no atomic RMW. Children finished by
// other workers bump `joined_remote` (release); the owner reads it (acquire),
// which also publishes `error` written before the bump.

#include <atomic>
#include <cstdint>
#include <exception>

namespace cws::detail {

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
  // Pedigree (DESIGN §3, steal_tree::steal_point::path): the running task's
  // rank among its parent's spawns, the frame it was spawned from, and the
  // counter its own spawns take their ranks from (a finish scope shares its
  // task's). Written when the frame opens, before any child can be seen by a
  // thief, and never again: a thief walks them (up to the segment root) when
  // it starts a segment. Serial elision: the task's node in the elision plan.
  std::uint32_t rank = 0;
  std::uint32_t child_ranks = 0;
  std::uint32_t* next_rank = &child_ranks;
  const frame* up = nullptr;
  std::uint32_t plan_node = ~0u;

  bool children_done() const noexcept {
    return spawned == joined_local + joined_remote.load(std::memory_order_acquire);
  }
  void record_error(std::exception_ptr e) noexcept {
    if (!failed.exchange(true, std::memory_order_relaxed)) error = std::move(e);
  }
};

}  // namespace cws::detail
