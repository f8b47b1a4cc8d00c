#pragma once
// The replay engine every constrained policy is a setting of (DESIGN §3-§4).
//
// Routing. When a worker starts a segment that replays template segment T,
// segment_begin() marks, per level, the step of T's next steal point; the
// core calls route() only for a spawn that hits a mark. With serial elision,
// T's pedigree trie replaces the marks: the core runs every spawn off the
// trie as a call and routes the trie's designated tasks, tagged with T's
// (level, step), so route() and the divergence checks below are the same. route() sends the task
// to the thief's mailbox with note = the template segment it starts, advances
// that level's cursor and moves the mark. A segment that does not replay a
// template segment (an extra steal, a diverged run) gets no marks.
//
// Who touches what. Per-worker state (`lane`) is written only by its worker
// (segment hooks, route, find_work, idle_pass run on it), which also resets
// it at its first call in a phase (lane_of: the lane's epoch is behind
// epoch_), so the caller writes no worker's line to start a phase. prepare()
// writes the fields the workers read (mode_ .. epoch_, one line) only where
// they change, plus epoch_: one line a worker fetches per phase. Shared
// during a phase: the `diverged_` and `withdrawn_` flags and each worker's latest idle pass
// (relaxed atomics: all are hints checked again on the next call), and the
// divergence or release reason (its first writer claims it: claimed_).
// Everything else is written between phases on the thread that calls
// runtime::run.
//
// Nesting. Under stows a worker waiting in a sync may start its next
// template segment there only if the template ran it inside the segment it
// waits in, at that sync or a later one (template_plan::may_nest): starting
// a segment the template ran later, or at an earlier sync, would pin the
// waiting segment's continuation under it while other workers wait, in
// their template order, for what that continuation spawns (a deadlock the
// recorded run never had). Off for trees without consistent
// time stamps. Stuws takes any of its mail anywhere: with no order to wait
// on, a designated task always starts once its worker idles, and a nesting
// rule there would itself deadlock (see find_work).
//
// Divergence. Strict modes treat a template segment that ends with an
// unreached steal point, or a stall, as divergence: from then on route()
// keeps every task local and find_work() takes any mail (its own, then other
// workers') and steals at random, so the phase finishes like a
// random-stealing one.
//
// Release. A strict replay (or user's designations) with a grace finishes
// the same way when waiting would cost what random stealing does without: a
// worker idle past the grace (idle_past_grace), or a spawner whose sync finds
// a designated child's thief not yet in the phase (thief_not_joined). The
// first divergence or release claims the phase (claimed_, one exchange); a
// release stores its cause, not text, so it costs a phase no lock and no
// allocation, and divergence_into() words it between phases.
//
// A stall is every worker idle, none leaving that state for stall_ms, and
// every worker still looking for work in the second half of that window (a
// helper that left the phase early, lets_leave, counts as both).
// Leaving counts a sync that completed, not only a segment started: a worker
// back in its own segment does not start one, and a watcher asleep meanwhile
// would otherwise take the whole stretch for a stall. The last part matters
// on a loaded machine: a worker whose sync has just completed stays counted
// idle until it runs again, and while it is preempted it makes no idle
// passes; without them the phase is slow, not stuck. "Looking" means a
// whole round of the worker's steal loop (its sync check, then find_work)
// ran inside that half: the round between two idle passes, both in it. One
// pass is not enough: a worker preempted between a fruitless find_work and
// its idle pass stamps a fresh pass after a look older than the mail that
// arrived meanwhile (8 workers on 2 cores under TSan reported such stalls).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cws/policy.hpp"
#include "cws/run_report.hpp"
#include "template_plan.hpp"

namespace cws::schedulers::detail {

enum class replay_mode {
  random,  // no template (first iteration) or refused one: plain random stealing
  stows,   // strict, ordered
  stuws,   // strict, unordered
  relws,   // relaxed
  user,    // designations, run like stuws
};
// The strict modes: a worker runs only what the template gives it.
constexpr bool is_strict(replay_mode m) noexcept { return m == replay_mode::stows || m == replay_mode::stuws; }
// What a run in mode `m` reports it ran as. Random stealing is `random` when
// a template exists and the policy chose not to replay it (evolve's probe),
// and `random_no_template` when there is none to replay.
cws::ran_as ran_as_of(replay_mode m, bool has_template) noexcept;

class replay_engine {
 public:
  // Called between phases.
  // `elide`: replay the template's segments that have a pedigree trie with
  // serial elision (strict modes only; template_plan::elision).
  // `grace_us`: CWS_REPLAY_GRACE_US, for the strict modes and user (0: none).
  void prepare(replay_mode mode, const std::shared_ptr<const template_plan>& plan, unsigned workers,
               unsigned stall_ms, bool elide = false, unsigned grace_us = 0);
  bool elides() const noexcept { return elide_; }
  replay_mode mode() const noexcept { return mode_; }
  bool routes() const noexcept { return mode_ != replay_mode::random; }
  bool diverged() const noexcept { return diverged_.load(std::memory_order_relaxed); }
  // Released: a strict replay kept a worker waiting past the grace, and the
  // rest of the phase ran under random stealing (diverged() is true then
  // too; divergence() says who waited).
  bool released() const noexcept { return released_.load(std::memory_order_relaxed); }
  // Why the phase diverged or was released, into `out` (reusing its storage);
  // between phases. divergence(): the same, as a new string.
  void divergence_into(std::string& out) const;
  std::string divergence() const;
  // scheduling_policy::idle_grace_ns: CWS_REPLAY_GRACE_US in the strict modes and user.
  std::uint64_t idle_grace_ns() const noexcept { return grace_ns_; }
  // Marks the coming phase diverged before it starts (an inconsistent template).
  void diverge_up_front(std::string why);

  // During a phase (see scheduling_policy).
  spawn_target route(unsigned spawner, const task_tag& tag, unsigned designated, segment_marks& marks);
  void segment_begin(unsigned worker, const task_tag& root, std::uint32_t note, segment_marks& marks);
  void segment_end(unsigned worker);
  task_handle find_work(worker_view& view);
  void idle_pass(worker_view& view);
  // A helper idle at its top level may leave the phase: a strict replay, not
  // diverged, that has started every segment the template planned on it.
  // Nothing can come for it after that (every template segment is routed
  // once, to its planned worker, and a diverged phase routes nothing), so
  // the phase's end need not wait for it. From then on the stall watch
  // counts it idle and looking (left()).
  bool lets_leave(unsigned worker) noexcept;
  void idle_past_grace(unsigned worker, bool in_sync);
  bool thief_not_joined(unsigned spawner, unsigned thief) noexcept;
  // RELWS: a spawner took back a designated child nobody had started. Its
  // thief never gets it, nor the template segments planned below it (they
  // now run inside the spawner's segment), so a thief that waited for all
  // its planned segments before stealing would sit out the rest of the
  // phase; from here on an idle relws worker without mail steals at random.
  void taken_back(unsigned /*spawner*/, unsigned /*thief*/) noexcept {
    if (!withdrawn_.load(std::memory_order_relaxed)) withdrawn_.store(true, std::memory_order_relaxed);
  }

 private:
  using clock = std::chrono::steady_clock;
  // An open segment of a worker, and where it stands in its template segment.
  struct cursor {
    std::uint32_t segment = no_note;  // template segment replayed, no_note: none
    std::vector<std::uint32_t> next;  // per level: index of its next steal point
  };
  struct alignas(64) lane {
    std::uint64_t epoch = 0;          // the phase (epoch_) the fields below belong to
    std::vector<cursor> open;         // a stack, like the worker's segments
    std::size_t depth = 0;            // open[0 .. depth) are live (storage is reused)
    std::size_t next_in_order = 0;    // stows: index into plan->order[worker]
    std::size_t planned_started = 0;  // template segments started
    std::uint32_t stall_exits = 0;    // idle exits (worker_view::idle_state) when the stall was first seen
    clock::time_point stall_since{};
    bool stalling = false;
  };

  // Stows: whether an idle worker may start template segment `next` where it
  // is: at the top level, or in a sync of the innermost segment it has open
  // (an idle worker with open segments is blocked in a sync) where the
  // template nested `next` (template_plan::may_nest).
  bool may_start_next(const lane& l, std::uint32_t next) const noexcept {
    if (l.depth == 0) return true;
    const cursor& waiting = l.open[l.depth - 1];
    return plan_->may_nest(next, waiting.segment, waiting.next);
  }

  // Worker w's lane, reset (with its idle-pass clock) at its first use in a phase.
  lane& lane_of(unsigned w) noexcept {
    lane& l = lanes_[w];
    if (l.epoch != epoch_) [[unlikely]]
      reset(l, w);
    return l;
  }
  void reset(lane& l, unsigned w) noexcept;
  // What released a phase (words: divergence_into).
  enum class release_cause : unsigned char { sync_past_grace, designated_past_grace, thief_not_joined };
  struct release_record {
    release_cause cause = release_cause::sync_past_grace;
    unsigned worker = 0;  // who waited, or the spawner whose thief had not joined
    unsigned thief = 0;   // thief_not_joined: that thief
    std::uint64_t grace_ns = 0;
    bool operator==(const release_record&) const = default;
  };
  // The first divergence or release of a phase wins (claim()); the others are dropped.
  bool claim() noexcept { return !claimed_.exchange(true, std::memory_order_relaxed); }
  void diverge(std::string why);
  void release(release_record why) noexcept;
  bool strict() const noexcept { return is_strict(mode_); }
  task_handle steal_anything(worker_view& view);
  void watch_for_stall(worker_view& view, lane& l, clock::time_point now);
  // Whether every worker ran a whole round of its steal loop at or after
  // `since`: its last two idle passes are both that late.
  bool all_passed_since(clock::time_point since) const noexcept;

  // When each worker made its last two idle passes (clock ticks); written by
  // that worker, read by the others.
  struct alignas(64) pass_clock {
    std::atomic<clock::rep> at{0};
    std::atomic<clock::rep> before{0};
    std::atomic<std::uint64_t> left_in{0};  // the phase (epoch_) this worker left early in (lets_leave)
  };
  // Whether worker w left this phase early; how many did.
  bool left(std::size_t w) const noexcept { return last_pass_[w].left_in.load(std::memory_order_relaxed) == epoch_; }
  unsigned workers_left() const noexcept;

  alignas(64) replay_mode mode_ = replay_mode::random;
  bool elide_ = false;
  std::shared_ptr<const template_plan> plan_;
  std::vector<lane> lanes_;
  std::unique_ptr<pass_clock[]> last_pass_;  // one per lane
  clock::duration stall_limit_{};
  std::uint64_t grace_ns_ = 0;
  std::uint64_t epoch_ = 0;  // prepare()s so far: the current phase
  std::atomic<bool> diverged_{false};
  std::atomic<bool> released_{false};  // set before diverged_, by the claimer
  std::atomic<bool> claimed_{false};   // a divergence or release claimed this phase
  std::atomic<bool> withdrawn_{false};  // relws: a designated child was taken back (taken_back)
  // Written by the claimer during the phase, read between phases (the
  // scheduler's end of phase orders the two).
  std::string reason_;
  release_record release_;
  // The latest release worded (between phases, by divergence_into): a
  // thief that keeps missing phases releases each the same way, and the
  // words are copied instead of formatted again.
  mutable release_record worded_{};
  mutable std::string worded_text_;
};

}  // namespace cws::schedulers::detail
