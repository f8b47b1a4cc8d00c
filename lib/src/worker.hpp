#pragma once
// One worker: its deque, mailbox, task pool, open frames and segments.
//
// Who touches what:
//   * the owning thread: everything, including the bottom of `deque_`;
//   * other workers: deque_.steal() and placed_[i]->steal() (top ends),
//     mailbox_.post(), parker_.unpark(), and joined_remote of frames whose
//     children they finished; idleness_now() reads its idle word, which only
//     the worker writes;
//   * the scheduler, between phases only: make_places() and stats();
//   * begin_phase() is the worker's own, at the start of each phase it joins (a
//     helper arms itself once it joined; the caller arms worker 0), so the
//     caller writes none of a helper's lines to start a phase.
//
// Determinism invariant (DESIGN §3): a worker blocked in sync runs only its
// own frame's children (pop_above, or a reclaimable routed child it takes
// back from a mailbox) or work from *other* workers as a nested segment; it
// never takes older entries of its own deque. The place deques (hinted
// policies) follow the same rule: the owner only pushes there, and takes
// back only children of the frame it is joining (take_back_placed).
//
// Routed children (a replay's designated tasks) are taken back the same way,
// by their spawner only, when it joins their frame and nobody started them:
// under RELWS at once; under a strict replay once the join has waited the
// policy's idle grace (their thief lost its core, or is busy elsewhere), or
// at its first wait when their thief has not joined the phase at all (read
// from the thief's phase_ word), when the policy has run the rest of the
// phase under random stealing. The mailbox lock decides between thief and
// spawner.

#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <vector>

#include "cws/config.hpp"
#include "cws/detail/frame.hpp"
#include "cws/detail/task_pool.hpp"
#include "cws/hint.hpp"
#include "cws/policy.hpp"
#include "cws/stats.hpp"
#include "idle.hpp"
#include "mailbox.hpp"
#include "segment_stack.hpp"
#include "touch_log.hpp"
#include "wsq.hpp"

namespace cws::detail {

class scheduler;
inline constexpr std::uint32_t no_plan_node = ~std::uint32_t{0};

// The per-phase settings every worker reads on its hot paths.
struct phase_setup {
  scheduling_policy* policy = nullptr;
  bool routes = false;                        // consult policy->route() on every spawn
  bool hints = false;                         // consult policy->place_for() on every hinted spawn
  std::span<observer* const> observers;       // segment and steal events
  std::span<observer* const> task_observers;  // per-task events (audit, tests)
  std::uint64_t idle_grace_ns = 0;            // policy->idle_grace_ns() (0: none)
};

class worker final : public worker_view {
 public:
  worker(scheduler& s, unsigned id, const runtime_config& cfg);

  // --- entry points of the user API (spawn.hpp) ---
  void submit(task* t);
  void submit_hinted(task* t, std::span<const touch_hint> hints);
  bool spawned_nothing() const noexcept { return frame_->rank_base + frame_->spawned == 0; }
  void sync();
  void open_frame(frame& f) noexcept;
  void close_frame(frame& f, std::exception_ptr body_error, bool rethrow);
  void designate_next_spawn(unsigned to);
  bool elide_next_spawn();
  void elided_call_done(std::uint64_t calls, std::exception_ptr error);
  void touch(const void* p, std::size_t bytes) { touches_.add(p, bytes); }
  void touch_rows(const void* p, std::size_t rows, std::size_t row_bytes, std::size_t stride) {
    touches_.add_rows(p, rows, row_bytes, stride);
  }

  // --- phase driving (scheduler) ---
  // Before a hinted phase wakes anyone: the place deques other workers read.
  void make_places();
  // On the worker's own thread as it joins phase `epoch`: the setup, and
  // counters and marks zeroed.
  void begin_phase(const phase_setup& setup, std::uint32_t epoch);
  // Whether this worker joined phase `epoch` (scheduler.hpp, Joining): read
  // by the caller once the phase's helpers are out, and by a spawner in its
  // sync for a child routed here (thief_not_joined_for; a hint there).
  bool took_part_in(std::uint32_t epoch) const noexcept { return phase_.load(std::memory_order_relaxed) == epoch; }
  // Worker 0: runs the phase root as the first segment; returns its error, if
  // any. `begin_ns`: the clock read the caller just made (now_ns), which
  // stands for the root segment's begin instead of a read of its own.
  std::exception_ptr run_root(task* root, std::uint64_t begin_ns);
  // Workers 1..P-1: find and run work until the phase ends, until a routing
  // policy lets this worker leave it (scheduling_policy::lets_leave), or,
  // under a policy that neither routes nor places, until nothing is left to
  // steal anywhere (scheduler.hpp, Stepping out). Says which.
  enum class stop { phase_end, let_go, nothing_visible };
  stop work_until_phase_end();
  // A helper that stepped out of phase `epoch`, after it left: waits until
  // work shows up (true) or the phase closed (false). Writes nothing of the
  // phase's: the caller may be reading this worker's statistics.
  bool await_work_outside(std::uint32_t epoch);
  // Back in (the scheduler's join succeeded): the time spent out is idle
  // time. (Its touch log needs nothing: each leave seals it again.)
  void rejoin_phase();
  // A helper that left its phase early (lets_leave), after it left: waits
  // until that phase closed. At once for a helper that stayed to the end.
  void linger_until_phase_end();
  bool unpark() noexcept { return parker_.unpark(); }
  bool has_visible_work() const noexcept { return !deque_.looks_empty(); }
  // Whether this worker placed tasks that a worker of node index `node` may
  // take (on that node's place or the root's). A snapshot.
  bool has_placed_work_for(unsigned node) const noexcept {
    return places_made_.load(std::memory_order_acquire) &&
           (!placed_[node]->looks_empty() || !placed_.back()->looks_empty());
  }
  bool has_mail() const noexcept { return !mailbox_.empty(); }
  // This worker's part of idle_state(): 1 while it is in its steal loop and
  // not running a segment, and how many times it left it this runtime.
  idleness idleness_now() const noexcept {
    const std::uint64_t v = idleness_.load(std::memory_order_relaxed);
    return {static_cast<unsigned>(v & 1u), static_cast<std::uint32_t>(v >> 32)};
  }
  void post(task* t) { mailbox_.post(t); }
  const worker_stats& stats() const noexcept { return stats_; }
  // When this worker first entered its steal loop in the phase, began its
  // first stolen segment and ended its last one (steady-clock ns; 0: never).
  // Taken from the clock reads the steal loop makes anyway for idle_s, so they
  // cost nothing; the scheduler reads them after the helpers left
  // (phase_timeline).
  // `left_ns`: when it left the phase before its end (let go, or stepped out
  // and not back in), else 0; the caller counts the rest of the phase as
  // this worker's idle time.
  struct phase_marks {
    std::uint64_t entered_ns = 0;
    std::uint64_t first_segment_ns = 0;
    std::uint64_t last_segment_end_ns = 0;
    std::uint64_t left_ns = 0;
  };
  const phase_marks& marks() const noexcept { return marks_; }
  // Sorts and merges this phase's declared touches: called by the worker
  // itself each time it leaves the phase (the scheduler, after the root
  // returned or the work loop ended), so that the workers do it in parallel.
  // A helper that stepped out and came back in seals again at its next leave.
  void seal_touches() {
    if (!touches_.empty()) touches_.seal();
  }
  // This phase's declared touches, sorted and merged, into `out` (empties the
  // log). Called by the scheduler after every worker left the phase.
  void take_touches(std::vector<byte_range>& out) { touches_.take(out); }
  // Frames open on this worker (tasks and finish scopes): the nesting depth a
  // stack overflow report names.
  unsigned open_frames() const noexcept { return open_frames_; }
  task_pool& pool() noexcept { return pool_; }
  unsigned id() const noexcept { return id_; }
  unsigned numa_node() const noexcept { return numa_node_; }

  // --- worker_view (what a policy may do for this worker) ---
  unsigned self() const noexcept override { return id_; }
  unsigned workers() const noexcept override;
  task_handle steal(unsigned victim) noexcept override;
  task_handle take_mail() noexcept override;
  std::uint64_t random() noexcept override;
  task_handle take_mail_noted(std::uint32_t note) noexcept override;
  task_handle steal_mail(unsigned victim) noexcept override;
  idleness idle_state() const noexcept override;
  task_handle steal_placed(unsigned victim, unsigned node) noexcept override;
  std::int64_t backlog() const noexcept override { return deque_.size(); }

 private:
  void push_frame(frame& f, std::uint32_t level) noexcept;
  void report_segment_path(const task* t, segment_id seg);
  void pop_frame(frame& f, std::exception_ptr& error);
  void execute(task* t, std::uint32_t level);
  void complete(task* t, std::exception_ptr error) noexcept;
  void push_local(task* t);
  void push_placed(task* t, unsigned slot);
  task* take_back_placed(const frame& f);
  bool nobody_else_can_come() const noexcept;
  // A task in this worker's mailbox, or one another worker could hand over
  // (its deque, its places for this node): a snapshot.
  bool work_in_sight() const noexcept;
  level_counter& tag_child(task* t);
  void route(task* t);
  void take_back_newer(const frame& f, const task* t);
  void join(frame& f);
  bool wait_for_stolen(frame& f);
  bool posted_child_of(const frame& f);
  bool thief_not_joined_for(const frame& f);
  bool past_grace(std::uint64_t idle_since) const noexcept;
  // Runs `t` as a new segment. With observers, its begin and end are clock
  // reads: `begin_ns` (a read the caller just made, 0: none) stands for the
  // first, and the second is returned (0 without observers) for the caller
  // to reuse: the steal loop's clock reads and the segments' are the same.
  std::uint64_t run_segment(task* t, std::uint64_t begin_ns);
  template <class Done, class Ready, class GiveUp>
  void seek_work(Done done, bool may_run, Ready ready, GiveUp give_up);
  template <class Ready>
  void park(backoff& b, Ready ready);
  task_handle took_mail(task* t) noexcept;
  // The owner is the only writer of idleness_: a plain load and store, no
  // locked instruction. One word, so a reader sees an exit and the idle bit
  // change together.
  void idle_enter() noexcept {
    idleness_.store(idleness_.load(std::memory_order_relaxed) | 1u, std::memory_order_relaxed);
  }
  void idle_leave() noexcept {
    idleness_.store((idleness_.load(std::memory_order_relaxed) & ~std::uint64_t{1}) + (std::uint64_t{1} << 32),
                    std::memory_order_relaxed);
  }

  scheduler& sched_;
  const unsigned id_;
  const idle_mode idle_;
  const unsigned max_depth_;  // open segments allowed: 1 + max nesting

  wsq<task*> deque_;
  // Hinted policies: one deque per node place, then the root's (index
  // nodes()), made at the first hinted phase. Owner pushes, thieves steal.
  std::vector<std::unique_ptr<wsq<task*>>> placed_;
  // Set (release) once placed_ is complete; it never changes after. A helper
  // stepped out of the previous phase may still be looking for work
  // (has_placed_work_for) while the caller makes the places of the next one.
  std::atomic<bool> places_made_{false};
  unsigned numa_node_ = 0;  // this worker's logical NUMA node (hint homes)
  mailbox mailbox_;
  task_pool pool_;
  parker parker_;

  frame* frame_ = nullptr;  // innermost open frame
  unsigned open_frames_ = 0;
  segment_stack segments_;
  open_segment* segment_ = nullptr;  // == &segments_.top() while one is open
  bool blocked_ = false;             // inside wait_for_stolen of the innermost segment
  // Reclaimable tasks this worker routed to other mailboxes, innermost frame
  // last; an entry lives until its frame's join (which takes it back if it is
  // still in the mailbox).
  struct routed_task {
    const task* t;
    unsigned to;
    const frame* parent;
    std::uint32_t step;  // its spawn step: the order among its frame's children
  };
  std::vector<routed_task> routed_;
  std::uint64_t next_segment_ = 0;
  // Serial elision: the plan node elision_begin() found for the spawn that
  // follows it (consumed by submit), and the pedigree handed to observers.
  std::uint32_t pending_plan_node_ = no_plan_node;
  std::vector<std::uint32_t> path_scratch_;
  std::uint64_t rng_state_;
  phase_setup setup_;
  worker_stats stats_;
  phase_marks marks_;
  touch_log touches_;
  // Written only by this worker (idle_enter/idle_leave), read by others
  // rarely (idle_state): its own line.
  alignas(64) std::atomic<std::uint64_t> idleness_{0};  // bit 0: idle; bits 32..63: exits
  // The epoch of the latest phase it joined: written once a phase, by the
  // worker as it joins; read by other workers rarely (took_part_in).
  std::atomic<std::uint32_t> phase_{0};
};

// The open frames of the worker running on the calling thread (0 outside a
// phase). Async-signal-safe: the stack-overflow handler calls it.
unsigned current_nesting_depth() noexcept;

}  // namespace cws::detail
