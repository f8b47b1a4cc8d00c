#pragma once
// Thread pinning on the real machine, and the process-wide hwloc topology of
// this machine that pinning (and topology::discover) use.
//
// Pinning always targets real PUs by OS index, whatever topology the runtime
// shows (a synthetic topology maps its workers onto real PUs first, see
// topology::place_workers). Private to cws::core.

#include <memory>

struct hwloc_topology;
struct hwloc_bitmap_s;

namespace cws::detail {

// This machine's hwloc topology, loaded on first use (thread-safe) and then
// only read, which hwloc allows concurrently. Throws cws::error when hwloc
// cannot load it; a later call tries again.
hwloc_topology* machine_topology();

// Binds the calling thread to the real PU with OS index `pu_os_index`.
// Throws cws::error when there is no such PU or the kernel refuses.
void pin_current_thread(unsigned pu_os_index);

// The CPU binding of one thread, so it can be put back: the calling thread of
// rt.run() becomes worker 0 and is pinned for the phase, but it belongs to the
// user and must leave the phase with the affinity it came with.
class thread_binding {
 public:
  // The calling thread's current binding. Throws cws::error if hwloc cannot read it.
  static thread_binding save_current();
  // Rebinds the calling thread to the saved set. Throws cws::error on failure.
  void restore() const;

 private:
  struct bitmap_free {
    void operator()(hwloc_bitmap_s* b) const noexcept;
  };
  explicit thread_binding(hwloc_bitmap_s* set) : set_(set) {}
  std::unique_ptr<hwloc_bitmap_s, bitmap_free> set_;
};

}  // namespace cws::detail
