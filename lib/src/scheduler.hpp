#pragma once
// The worker pool and the phase protocol (fork/join of one phase).
//
// Start. run() publishes the phase setup to every worker, raises active_ and
// bumps epoch_; the calling thread becomes worker 0 and runs the root.
// Between phases a helper first spins (then yields) on epoch_ for the block
// time (runtime_config::blocktime_us), then parks on it (futex). A phase that
// starts inside the window costs no system call; only parked helpers are
// woken, and only when parked_ says there are some. Phases the caller runs
// alone (below) keep the window open through keepalive_ (block_window.hpp).
//
//   helper (park):  parked_ += 1 (seq_cst);  while epoch_ == seen: wait(epoch_)
//   run()  (wake):  epoch_ += 1 (seq_cst);   if parked_ != 0: notify_all(epoch_)
// Both sides are seq_cst RMW/loads on the two words, so in the single total
// order either the helper's re-check sees the new epoch or run() sees
// parked_ != 0 (a store-buffering pair: the waker side needs its seq_cst as
// much as the sleeper side). The futex re-checks epoch_ in the kernel.
//
// A helper arms its own phase once woken (worker::begin_phase from setup_,
// which run() wrote before bumping epoch_): the caller writes only its own
// worker and the shared words above.
//
// Joining. A helper takes part in a phase only if it joins while the phase
// is open: joined_ holds the phase's epoch, an open bit and the count of
// helpers in it, and a helper joins with one CAS that checks all three. A
// helper that wakes after the phase closed (it was parked, or lost its core)
// skips it: it touches nothing of that phase, and the caller neither waits
// for it nor reads its statistics (they are stale: it reports zeros). So a
// phase the caller finishes alone never waits for a thread the OS has not
// run yet.
//
// Alone. A phase the policy runs alone (scheduling_policy::runs_alone) is
// never opened to the helpers: epoch_ does not move and joined_ stays
// closed, so none wakes or joins, and the caller neither closes it nor waits
// for anyone. Worker 0 still arms itself with the phase's epoch (epoch_ + 1):
// no helper holds that value until the next opened phase, which reuses it.
// It bumps keepalive_ at most once a quarter block time, so that helpers
// waiting for the next shared phase keep spinning through a run of alone
// ones instead of parking in the middle of it (block_window.hpp).
//
// End. When the root returns every task of the phase has finished (implicit
// syncs); run() closes the phase (clears the open bit, seq_cst: no helper
// joins from here on, so none arms itself only to find the phase over),
// lowers active_ (seq_cst), then reads sleepers_ (seq_cst) and unparks every
// worker only when some helper is asleep inside the phase (the sleeper
// counts itself, then re-reads active_, both seq_cst: a store-buffering
// pair, so one of the two sees the other). It then waits until the joined
// helpers have left their work loop (the count is 0): it
// spins, then yields, and sleeps on joined_ only past that, announced in
// caller_parked_ with the same seq_cst pairing (the last helper notifies only
// when the caller parked). Helpers that were spinning leave within
// microseconds, so the end of a phase makes no system call either.
// A helper may leave before the end when its policy has no more work for it
// (scheduling_policy::lets_leave, worker::work_until_phase_end): it leaves
// the same way, so the count may reach 0 before the root returns and the
// caller then waits for nobody. It then waits for the phase to close as it
// would have in its steal loop (worker::linger_until_phase_end: a sleeper
// among the others, woken by the end), and only then for the next phase.
//
// Stepping out. Under a policy that neither routes nor places (the plain
// stealing ones, random among them), a helper that finds no task in any deque
// or mailbox, after a segment it ran or a pass that found nothing, leaves the
// same way (seals its touches, then the count's decrement) instead of
// spinning inside: a phase usually ends with its helpers idle, and the caller
// then finds the count at 0 when it closes and waits for nobody, where a
// helper still inside would first have to see active_ fall and answer (a
// cache-line round trip, about a third of an empty phase). Out, it writes
// nothing of the phase's and only polls: until work shows up in some deque or
// mailbox, then it joins again with join_phase's CAS (which fails once the
// phase closed), or until the phase closes (still_open; asleep past its
// back-off as a sleeper, like a helper that left early). It may still be
// polling when the caller has closed the phase and is setting up the next
// one: all it reads (deque ends, mailbox sizes, the place deques once made)
// are atomics, or never change once published. A helper that steals always
// joined first; a task it could steal keeps the root from returning, so the
// caller cannot close the phase while one is in sight. The time spent out is
// idle time (phase_marks::left_ns, added by the helper when it rejoins and by
// run() when it did not).
// Everything a joined helper wrote during the phase (its worker_stats, touch
// log and phase marks) is read by run() only after the count reached 0: the
// helper's decrement (seq_cst) comes after those writes, and the caller's
// acquire load of the count's final value reads the release sequence of
// every decrement.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "cws/config.hpp"
#include "cws/detail/locality_memo.hpp"
#include "cws/locality.hpp"
#include "cws/observer.hpp"
#include "cws/place_tree.hpp"
#include "cws/policy.hpp"
#include "cws/phase_timeline.hpp"
#include "cws/run_report.hpp"
#include "cws/stats.hpp"
#include "cws/topology.hpp"
#include "caller_binding.hpp"
#include "data_placement.hpp"
#include "cws/platform/os_thread.hpp"
#include "cws/platform/stack_guard.hpp"
#include "worker.hpp"

namespace cws::detail {

class scheduler {
 public:
  explicit scheduler(const runtime_config& cfg);
  ~scheduler();
  scheduler(const scheduler&) = delete;
  scheduler& operator=(const scheduler&) = delete;

  // Runs one phase. Fills `report` (its statistics, locality when the workers
  // declared touches, balance; then the policy's part through end_phase; its
  // `phase` is the caller's to write, runtime::run_phase) and
  // `touches` (what the workers declared they touched); returns the exception
  // the phase threw, if any. Both are overwritten in place.
  // `memo` is the schedule's (data_placement::measure). With `called` (the
  // moment rt.run was entered) the phase is timed: report.timeline gets every
  // part up to the policy's end_phase (phase_timeline.hpp).
  std::exception_ptr run(const phase_info& info, scheduling_policy& policy, void (*fn)(void*), void* arg,
                         run_report& report, touch_map& touches, locality_memo& memo,
                         std::optional<std::chrono::steady_clock::time_point> called);
  // Moves the pages of `touches` to their desired nodes and tells the
  // observers. Throws cws::error when called during a phase.
  relocalization_report relocalize(const touch_map& touches, const std::string& schedule, std::uint64_t iteration);
  data_placement& placement_state() noexcept { return data_; }

  const runtime_config& config() const noexcept { return config_; }
  const cws::topology& topology() const noexcept { return topology_; }
  caller_pinning caller_pinning_in_effect() const noexcept { return caller_.mode(); }
  const std::vector<worker_placement>& placement() const noexcept { return placement_; }
  const cws::place_tree& places() const noexcept { return places_; }
  unsigned workers() const noexcept { return static_cast<unsigned>(workers_.size()); }
  worker& at(unsigned i) noexcept { return *workers_[i]; }

  void add_observer(observer& o);
  void remove_observer(observer& o);

  // --- used by workers ---
  // seq_cst (a plain load on x86): a worker about to sleep counts itself in
  // sleepers_ and then reads this, the pair of run()'s lower-then-count.
  bool phase_active() const noexcept { return active_.load(std::memory_order_seq_cst); }
  bool sleepers() const noexcept { return sleepers_.load(std::memory_order_relaxed) != 0; }
  // Whether phase `epoch` is still open to the helpers (see Joining), which a
  // helper that left it early waits on (worker::linger_until_phase_end).
  // seq_cst: such a helper counts itself in sleepers_ and then reads this,
  // the pair of run()'s close (seq_cst) then read of sleepers_.
  bool still_open(std::uint32_t epoch) const noexcept {
    return is_open(joined_.load(std::memory_order_seq_cst), epoch);
  }
  // A worker about to sleep inside a phase counts itself (seq_cst: see End above).
  void sleeper_enter() noexcept { sleepers_.fetch_add(1, std::memory_order_seq_cst); }
  void sleeper_leave() noexcept { sleepers_.fetch_sub(1, std::memory_order_relaxed); }
  void wake_one() noexcept;
  void wake_all() noexcept;
  // Workers inside their steal loop and not running a segment, and how many
  // times one left it (read by routing policies to detect a stuck replay,
  // and by hinted ones to stop waiting for placed work): the sum of every
  // worker's own idle word (worker::idleness_now). O(workers) per read; the
  // updates, O(segments) per phase, stay on each worker's own line instead
  // of a counter every worker's steal loop writes on its way in and out.
  worker_view::idleness idle_state() const noexcept;
  // Whether any worker other than `self` has work to steal (a snapshot).
  bool work_visible(unsigned self) const noexcept;

 private:
  void thread_main(unsigned id);
  bool await_phase(std::uint32_t& seen);          // false: shut down
  bool join_phase(std::uint32_t epoch) noexcept;  // false: that phase closed (or a later one began)
  void leave_phase() noexcept;
  void await_helpers();
  void wake_helpers();
  void keep_helpers_waiting(std::uint64_t now) noexcept;
  std::uint64_t block_ns() const noexcept { return std::uint64_t{config_.blocktime_us} * 1000; }
  void fill_phase_times(phase_timeline& t, std::chrono::steady_clock::time_point called,
                        std::chrono::steady_clock::time_point woken, std::chrono::steady_clock::time_point root_done,
                        std::chrono::steady_clock::time_point helpers_out) const;

  runtime_config config_;
  cws::topology topology_;
  std::vector<worker_placement> placement_;
  cws::place_tree places_;
  std::vector<std::unique_ptr<worker>> workers_;
  data_placement data_;
  overflow_handler overflow_;
  caller_binding caller_;
  std::vector<std::unique_ptr<os_thread>> threads_;
  std::vector<observer*> observers_;
  std::vector<observer*> task_observers_;  // rebuilt per phase
  std::vector<unsigned> took_part_;        // this phase's workers (the caller and the helpers that joined)
  phase_setup setup_;                      // this phase's, for every worker (written before epoch_ moves)

  std::mutex run_mutex_;                             // one phase at a time
  alignas(64) std::atomic<std::uint32_t> epoch_{0};  // a 32-bit word: futex-waitable directly
  std::atomic<unsigned> parked_{0};                  // helpers sleeping (or about to) on epoch_
  // Bumped by the caller's alone phases so that a waiting helper's window
  // starts over (block_window.hpp); a hint, relaxed on both sides.
  alignas(64) std::atomic<std::uint64_t> keepalive_{0};
  std::uint64_t keepalive_last_ns_ = 0;  // the caller's: when it last bumped keepalive_ (or a shared phase ended)
  alignas(64) std::atomic<bool> active_{false};
  std::atomic<bool> shutdown_{false};
  // The phase helpers may join (see Joining): bits 32..63 its epoch, bit 31
  // open, bits 0..30 the helpers in it.
  static constexpr std::uint64_t phase_open = std::uint64_t{1} << 31;
  static constexpr std::uint64_t helpers_in = phase_open - 1;
  static constexpr bool is_open(std::uint64_t word, std::uint32_t epoch) noexcept {
    return (word >> 32) == epoch && (word & phase_open) != 0;
  }
  alignas(64) std::atomic<std::uint64_t> joined_{0};
  std::atomic<bool> caller_parked_{false};
  alignas(64) std::atomic<int> sleepers_{0};
  std::atomic<unsigned> wake_cursor_{0};
};

}  // namespace cws::detail
