#pragma once
// The recorder's bounded history: the last K runs of every schedule
// (runtime_config::history, CWS_HISTORY, default 4), in recording order
// across schedules — what recorder::phases() returns.
//
//   for (const phase_record& r : rec->phases()) ...   // every kept run, oldest first
//   rec->phases()[i], rec->phases().size()            // random access in the same order
//   std::vector<phase_record> copy = rec->phases();   // a copy of the window
//
// Why per schedule: a schedule's latest run must outlive any number of runs
// of other schedules, since a replay may need it (schedule::follow names a
// schedule, not a run). So every schedule keeps between 1 and K runs, and the
// window holds at most K x (number of schedules) records however long the
// program runs. A run older than its schedule's K latest is dropped (a
// streaming trace file, runtime::trace_to, keeps every run).
//
// Bounded in bytes too (runtime_config::history_bytes, CWS_HISTORY_MB): K
// runs of a phase with 10^5 steals are ~1 GB, so after each run trim() drops
// the oldest runs, across schedules, while the records hold more than the
// bound — never a schedule's latest run, so the window may exceed the bound
// by the latest runs alone (at most one run when one schedule is recorded).
// A run dropped for bytes gives its storage back to the system (kept for
// reuse, it would hold the very memory the bound is about).
//
// Storage is reused: the record that leaves a full window is handed back by
// next() for the new run, its vectors and strings keeping their capacity, so
// recording allocates nothing once the window is full and the buffers have
// grown to the phase's size (unless the byte bound drops runs). A kept record
// stays at the same address until it is evicted (or clear()).
//
// The order is a vector of slot indices in which an evicted run leaves a
// tombstone: eviction is O(1) per run. (Erasing the index instead cost a
// search and a move of up to K x schedules indices on every run, and the
// oldest run of a frequent schedule sits behind every run of the rare ones,
// as in cws-cg, whose kernels run 1 to 25 times per iteration.)
// The tombstones are squeezed out when the vector is full (amortized O(1): it
// has room for at least half as many runs again as are kept, grown only while
// the window fills) and before the order is read.
//
// Between phases only, on the thread that runs them (like the recorder).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cws/detail/index_iterator.hpp"
#include "cws/stats.hpp"
#include "cws/steal_tree/tree.hpp"

namespace cws::steal_tree {

class record_window {
 public:
  // Keeps `per_schedule` runs per schedule (at least 1), and records holding
  // at most `max_bytes` in all (0: no byte bound) as trim() enforces it.
  explicit record_window(std::size_t per_schedule, std::size_t max_bytes = 0);
  // Not copyable: lane_of_ points into the window's own lanes. (A copy of the
  // records: the conversion to std::vector below.)
  record_window(const record_window&) = delete;
  record_window& operator=(const record_window&) = delete;

  std::size_t per_schedule() const noexcept { return per_schedule_; }
  std::size_t max_bytes() const noexcept { return max_bytes_; }

  // Storage for the next run of `schedule`, which becomes that schedule's
  // latest record. While the schedule has fewer than K runs kept it is new
  // (or left over by clear()); otherwise it is the schedule's oldest run,
  // evicted, with its contents still in place: the caller overwrites every
  // field, reusing capacity.
  phase_record& next(std::string_view schedule);
  // The same, for the recorder: after the first run of `schedule`, its runs
  // are found by `key` (phase_info::schedule_index: dense, one per schedule
  // name, never reused), without reading a name: by the time an application
  // with many loops runs one again, the names are out of the cache and each
  // one compared is a miss (phase_info::no_schedule_index: by the name
  // every time). `recycled` says whether the storage is this
  // schedule's own evicted run (its schedule and policy fields are then
  // already right) rather than new or another schedule's.
  phase_record& next(std::string_view schedule, std::uint32_t key, bool& recycled);

  // The latest kept run of `schedule`, or nullptr.
  const phase_record* latest(std::string_view schedule) const noexcept;
  // The latest kept run of the schedule whose runs next() was given `key`
  // for, or nullptr.
  const phase_record* latest_keyed(std::uint32_t key) const noexcept;
  // The kept run `iteration` of `schedule`, or nullptr (searched newest first).
  // The caller may change it; trim() counts its bytes again.
  phase_record* find(std::string_view schedule, std::uint64_t iteration) noexcept;

  // Applies the byte bound after records were written (next(), find()):
  // recounts them, then drops the oldest runs that are not their schedule's
  // latest, oldest first across schedules, while the records hold more than
  // max_bytes(), freeing their storage (spare storage left by clear() goes
  // first). Nothing is dropped without a bound.
  void trim();

  // Forgets every record (their storage stays for reuse).
  void clear() noexcept;

  // Runs dropped so far because their schedule's window was full.
  std::uint64_t evicted() const noexcept { return evicted_; }
  // Runs dropped so far by trim() for the byte bound.
  std::uint64_t trimmed() const noexcept { return trimmed_; }
  // What the byte bound is compared with: the records' storage (kept or
  // spare) as counted by the last trim(); bytes() adds the window's indices.
  std::size_t record_storage() const noexcept { return held_; }
  // Bytes held: every record's vectors and strings (kept or spare) and the
  // window's own indices.
  std::size_t bytes() const noexcept;

  // ---- the kept records, oldest first, across schedules
  using const_iterator = cws::detail::index_iterator<record_window, phase_record>;
  using iterator = const_iterator;
  using value_type = phase_record;
  using size_type = std::size_t;

  const_iterator begin() const noexcept { return {this, 0}; }
  const_iterator end() const noexcept { return {this, static_cast<std::ptrdiff_t>(size())}; }
  std::size_t size() const noexcept { return order_.size() - tombstones_; }
  bool empty() const noexcept { return size() == 0; }
  const phase_record& operator[](std::size_t i) const {
    if (tombstones_ != 0) [[unlikely]]
      squeeze();
    return slots_[order_[i]];
  }
  const phase_record& front() const { return (*this)[0]; }
  const phase_record& back() const { return (*this)[size() - 1]; }
  // A copy of the kept records, oldest first (code that held the whole
  // history as a vector keeps working).
  operator std::vector<phase_record>() const { return std::vector<phase_record>(begin(), end()); }

 private:
  // One schedule's kept runs: slot indices, a ring once it holds K of them
  // (the oldest at `head`), in run order before that (head 0).
  struct lane {
    std::vector<std::uint32_t> ring;
    std::size_t head = 0;
    std::uint32_t newest() const noexcept { return ring[(head + ring.size() - 1) % ring.size()]; }
  };

  static constexpr std::uint32_t tombstone = ~std::uint32_t{0};
  lane& lane_named(std::string_view schedule);  // found or made (map nodes do not move)
  // The slot for the next run of `l`, and whether it was l's own (evicted).
  std::uint32_t claim(lane& l, bool& recycled);
  // Appends `slot` to the order (its position noted), squeezing out the
  // tombstones first when the order is full; grows it only when the kept
  // runs alone would leave less than half their number of room.
  void append(std::uint32_t slot);
  // Removes the tombstones in place (no allocation), renumbering positions.
  // Logically const: the order read through it stays the same.
  void squeeze() const noexcept;

  // Marks `slot` as written since it was last counted. written_ has room for
  // every slot (reserved as slots are made) and holds each at most once, so
  // the push cannot allocate or throw.
  void touch(std::uint32_t slot) noexcept {
    if (dirty_[slot]) return;
    dirty_[slot] = 1;
    written_.push_back(slot);
  }

  std::size_t per_schedule_;
  std::size_t max_bytes_;
  std::deque<phase_record> slots_;  // record storage: stable addresses, reused
  // Kept slots in recording order, with tombstones where runs were evicted
  // (squeeze() removes them: mutable, so that a const read can).
  mutable std::vector<std::uint32_t> order_;
  mutable std::size_t tombstones_ = 0;
  std::vector<std::uint32_t> spare_;  // slots holding no kept record (after clear() or trim())
  std::map<std::string, lane, std::less<>> lanes_;
  std::vector<lane*> keyed_;  // by next()'s key (map nodes do not move); null: not seen yet
  // Per slot: its lane (map nodes do not move) and its bytes as last counted
  // (sizeof(phase_record) + record_bytes), so that trim() recounts only the
  // records written since, not every tree of the window.
  std::vector<lane*> lane_of_;
  mutable std::vector<std::uint32_t> position_of_;  // per slot: its index in order_ while kept
  std::vector<std::size_t> slot_bytes_;
  std::vector<std::uint8_t> dirty_;     // per slot: written since counted
  std::vector<std::uint32_t> written_;  // the dirty slots: trim() recounts these, not every slot
  std::size_t held_ = 0;                // sum of slot_bytes_
  std::uint64_t evicted_ = 0;
  std::uint64_t trimmed_ = 0;
};

// Bytes a record's vectors and strings hold (capacity, not size).
std::size_t record_bytes(const phase_record& r) noexcept;

}  // namespace cws::steal_tree
