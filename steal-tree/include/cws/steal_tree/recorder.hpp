#pragma once
// The steal-tree recorder (DESIGN §3): an observer that turns the core's
// segment events into one cws::steal_tree::phase_record per phase run.
//
//   cws::runtime rt;                                   // a recorder is attached automatically
//   rt.run(step, [&] { ... });
//   const auto* rec = cws::steal_tree::recorder_of(rt);  // nullptr when recording is off
//   const cws::steal_tree::phase_record* last = rec->latest("stencil");
//
// Attachment. Including this header registers the extension "steal_tree"
// (cws::extension_registry), so every runtime created afterwards gets one
// recorder — unless runtime_config::record is false (CWS_RECORD=0), in which
// case recorder_of() returns nullptr and nothing is observed.
//
// Cost. The recorder sees only segment events (O(segments + steals) per
// phase): each worker appends to its own cache-line separated buffer, without
// locks or atomics, and the buffers are merged on the calling thread when the
// phase ends. Nothing is recorded per task unless runtime_config::audit is set
// (CWS_AUDIT=1) or audit_next_phase() asked for one run; then every executed
// task adds one audit_record, for about 10 % more time than a normal run
// (cws-micro-bench uts_phase, 1.2 M small tasks): a few bytes per task and
// per spawn in the worker's own log, parent links known as the tasks start,
// and after the phase a linear pass without hashing (src/audit_log.hpp).
//
// Layout of a recorded tree (see tree.hpp for the fields):
//   * segments are in pre-order of the steal tree: segments[0] is the root
//     segment (the phase root, on worker 0), a parent comes before its
//     children, siblings are ordered by the (level, step) they were taken at;
//   * every segment's `steals` lists its children sorted by (level, step);
//   * worker_segments[w] lists worker w's segments in the order w started them;
//   * start_ns / end_ns are nanoseconds since the phase began (on_phase_begin);
//   * audit (audit mode only) holds one record per executed task, grouped by
//     worker (0, 1, ...) and, per worker, in the order the tasks started. The
//     root task of a stolen segment appears with spawn_segment = the parent
//     segment and the (level, step) it was taken at; the phase root with
//     spawn_segment = no_parent, level 0, step 0, parent = no_parent. Every
//     other record's `parent` is the index of the record of the task that
//     spawned it (audit mode also observes spawns for this).
//
// Data locality: a record keeps the phase's locality report (phase_stats::
// locality, present when its tasks declared touches) and every relocalization
// report runtime::relocalize produced from that run's touches.
//
// Bounded history: the recorder keeps the last runtime_config::history runs
// (CWS_HISTORY, default 4) of every schedule, and always each schedule's
// latest run (record_window.hpp), within runtime_config::history_bytes
// (CWS_HISTORY_MB, default 256 MiB): past it the oldest runs go first, so a
// steal-heavy program keeps fewer runs. Memory stays flat however many phases
// run; older runs are dropped (runtime::trace_to streams every run to a file).
// Once the window is full, a new run reuses the storage of the run it evicts
// and the per-worker buffers and merge scratch persist, so recording a phase
// allocates nothing in steady state (audit runs too, once their logs and the
// evicted run's audit records have the phase's size; but runs dropped for
// the byte bound free their storage, so past the bound each new run
// allocates its own).
//
// Threading: phases(), latest() and clear() may be called between phases
// only (from the thread that runs them), like everything else on the runtime.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cws/extension.hpp"
#include "cws/observer.hpp"
#include "cws/runtime.hpp"
#include "cws/stats.hpp"
#include "cws/steal_tree/record_window.hpp"
#include "cws/steal_tree/tree.hpp"
#include "cws/steal_tree/tree_storage.hpp"

namespace cws::steal_tree {

class audit_log;

// Name under which the recorder is registered (runtime::extension(name)).
inline constexpr std::string_view extension_name = "steal_tree";

class recorder final : public cws::observer, public cws::runtime_extension {
 public:
  // Attaches to `rt` (rt.add_observer) until destroyed. Audit mode follows
  // rt.config().audit.
  explicit recorder(cws::runtime& rt);
  ~recorder() override;
  recorder(const recorder&) = delete;
  recorder& operator=(const recorder&) = delete;

  // The extension factory: a recorder for `rt`, or nullptr when
  // rt.config().record is false.
  static std::unique_ptr<cws::runtime_extension> make(cws::runtime& rt);

  // Every kept run (the last history() runs of each schedule), oldest first
  // across schedules: a random-access range of phase_record, convertible to
  // std::vector<phase_record> (a copy).
  const record_window& phases() const noexcept { return window_; }
  // Runs kept per schedule (runtime_config::history), when they fit the
  // byte bound (runtime_config::history_bytes, 0 = none).
  std::size_t history() const noexcept { return window_.per_schedule(); }
  std::size_t history_bound() const noexcept { return window_.max_bytes(); }
  // Forgets the history (the next phase is recorded as usual).
  void clear() noexcept;
  // The most recent record of schedule `name`, or nullptr. Every schedule
  // that ran keeps its latest record (until clear()).
  const phase_record* latest(std::string_view schedule) const noexcept;
  // The same for a schedule of the recorder's runtime, found by its index
  // rather than its name (what a policy asks after each of its phases).
  const phase_record* latest(const cws::schedule& s) const noexcept;
  bool audit() const noexcept { return audit_; }
  // Records the next phase in audit mode even when the runtime's audit is
  // off (one run: the planner needs one, evolve asks for it). Call between
  // phases, before the phase starts (a policy's begin_phase).
  void audit_next_phase() noexcept { audit_next_ = true; }

  // Bytes held by the history (every record's vectors and strings, including
  // storage kept for reuse) and by the per-worker buffers and merge scratch,
  // for the O(segments + steals) and flat-memory size checks.
  std::size_t history_bytes() const noexcept;
  std::size_t buffer_bytes() const noexcept;

  // --- cws::observer (called by the core) ---
  void on_phase_begin(const cws::phase_info& info) override;
  void on_phase_end(const cws::phase_stats& stats) override;
  // Appends the report to the latest record of its (schedule, iteration);
  // ignored when there is none (recording started later, or clear()).
  void on_relocalize(const cws::relocalization_report& report) override;
  void on_segment_begin(unsigned worker, cws::segment_id seg, const cws::task_tag& root,
                        std::uint64_t time_ns) override;
  void on_segment_end(unsigned worker, cws::segment_id seg, std::uint64_t tasks, std::uint64_t time_ns) override;
  void on_segment_path(unsigned worker, cws::segment_id seg, std::span<const std::uint32_t> ranks) override;
  bool wants_task_events() const override { return audit_ || audit_next_; }
  void on_spawn(unsigned worker, const cws::task_tag& tag) override;
  void on_task_begin(unsigned worker, cws::segment_id seg, const cws::task_tag& tag) override;

 private:
  struct raw_segment {
    cws::task_tag root;          // where its root task was spawned
    std::uint64_t start_ns = 0;  // absolute (steady clock)
    std::uint64_t end_ns = 0;
    std::uint64_t tasks = 0;
    std::uint32_t path = no_path;  // its root's pedigree: root.level entries of its worker's buffer::paths
    bool ended = false;
  };
  // A segment its worker has begun and not yet ended, with the length of its
  // pedigree (on top of buffer::open_paths).
  struct open_segment {
    std::uint64_t seq = 0;
    raw_segment raw;
    std::uint32_t path_length = 0;
  };
  // One per worker, written only by that worker during a phase.
  //
  // Two parts on separate lines, so that the recording costs the thief no
  // cache-line transfer between taking a task and running it: the caller
  // clears `segments` and `paths` as a phase begins and reads them as it
  // ends, so they live in the caller's cache; a segment's begin and pedigree
  // go to `open` and `open_paths`, which only the worker touches, and move to
  // `segments` and `paths` when the segment ends, after its root task
  // completed (the join it ends is no longer waiting on it).
  struct alignas(64) buffer {
    std::vector<raw_segment> segments;  // indexed by the segment's sequence number; filled as segments end
    std::vector<std::uint32_t> paths;   // the ended segments' pedigrees, concatenated
    bool overflow = false;              // an event that did not fit the core's contract
    alignas(64) std::vector<open_segment> open;  // the worker's own: begun, not ended, innermost last
    std::vector<std::uint32_t> open_paths;       // their pedigrees, concatenated in the same order
  };

  // Index arrays of merge(), kept between phases so that merging reuses them.
  struct merge_scratch {
    std::vector<std::uint32_t> base, worker_of, parent, first, kids, fill, final_of, order, stack;
    std::vector<const raw_segment*> raw;
    std::size_t bytes() const noexcept;
  };

  // Builds the phase's tree into `t`, overwriting it in place (t is usually an
  // evicted record's tree: its vectors keep their capacity).
  // Returns whether the events were inconsistent (the tree may be incomplete).
  bool merge(unsigned workers, tree& t);
  // merge()'s fast path: no steal in the phase, or every steal from the root segment.
  bool merge_star(unsigned workers, tree& t);
  static constexpr unsigned max_star_thieves = 64;  // merge_star's thieves live on the stack
  std::uint64_t earliest_start(unsigned workers) const noexcept;
  void write_segment(segment& s, const raw_segment& r, std::uint32_t worker, std::uint32_t parent) const;
  // Audit runs: t.audit from the audit log. Returns true when an event could not be placed.
  bool merge_audit(tree& t, unsigned workers, const std::function<std::uint32_t(cws::segment_id)>& segment_index);

  // What the workers read on their hot path (the vtable pointers above, and
  // these), set once: no per-phase write may share their line, or every
  // worker's first event of a phase would fetch it from the caller's cache.
  cws::runtime& rt_;
  const bool audit_;
  std::unique_ptr<audit_log> audit_log_;  // per-task events of audit runs (src/audit_log.hpp)
  std::vector<buffer> buffers_;
  // The caller's, rewritten every phase: from the next line on.
  alignas(64) bool audit_next_ = false;  // audit_next_phase(), until that phase begins
  bool auditing_ = false;                // this phase records audit records
  // Segment times are written relative to this: the earliest segment start
  // of the phase (the phase root's, which the core stamps with its own clock
  // read of the phase start), found when the phase ends.
  std::uint64_t phase_start_ns_ = 0;
  bool in_phase_ = false;
  bool warned_ = false;
  merge_scratch scratch_;
  steal_spares spare_steals_;  // steal lists of dropped segments, for larger trees (tree_storage.hpp)
  record_window window_;
};

// The recorder attached to `rt`, or nullptr (recording off, or this library
// was not linked in).
recorder* recorder_of(const cws::runtime& rt) noexcept;

// Registers the recorder as the extension "steal_tree" (idempotent). Called
// by cws::cws's registration (components.cpp), not by including this header.
void register_recorder();

}  // namespace cws::steal_tree
