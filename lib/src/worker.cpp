#include "worker.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "cws/detail/clock.hpp"
#include "cws/detail/entry.hpp"
#include "cws/error.hpp"
#include "scheduler.hpp"
#include "task_access.hpp"

namespace cws::detail {

namespace {
double seconds_since(std::uint64_t t0) noexcept { return static_cast<double>(now_ns() - t0) * 1e-9; }

// An exception left a task body while children it spawned were pending: the
// README pattern `spawn(child using locals); f(); sync();` with f throwing.
// Why not wait for them and rethrow, as the implicit sync does on a return:
// by the time this catch runs, the unwinding has released the stack frames
// between the throw and here, and the join would run on that very memory
// (execute, nested segments, their frames). A child still using a local of
// one of those frames then writes into the runtime's own state (a saved
// frame pointer, a frame's counters): observed as hangs, wild faults, and
// runaway recursion reported as a stack overflow. cws cannot tell
// whether some child uses such a local, so it stops with the rule rather
// than guess. (The safe forms join earlier: a cws::scope in its destructor,
// before its function's frame goes; cws::finish in its catch, while the
// caller whose locals its children use is alive.) The report is kept
// small and written with one write(2): a child may still be scribbling on
// the stack below us.
[[noreturn]] void abort_on_pending_children(const frame& f, const std::exception_ptr& error) noexcept {
  const std::uint64_t pending = f.pending();
  std::string what = "an exception not derived from std::exception";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  const std::string line = fmt::format(
      "cws: error: an exception left a task while {} of the children it spawned {} still pending; a function "
      "whose children use its locals must join them on every path out, exceptions included: use cws::scope "
      "(docs/scheduler.md, \"Exceptions\") [the exception: {}]\n",
      pending, pending == 1 ? "was" : "were", what);
  std::fflush(stderr);
  (void)!::write(2, line.data(), line.size());
  std::abort();
}
}  // namespace

worker::worker(scheduler& s, unsigned id, const runtime_config& cfg)
    : sched_(s),
      id_(id),
      idle_(cfg.idle),
      max_depth_(cfg.max_nesting + 1),
      numa_node_(s.placement()[id].numa_node),
      segments_(cfg.max_nesting + 1),
      rng_state_(cfg.seed ^ (0x9e3779b97f4a7c15ull * (id + 1))) {
  if (rng_state_ == 0) rng_state_ = 0x853c49e6748fea9bull;
}

void worker::make_places() {
  if (places_made_.load(std::memory_order_relaxed)) return;  // only the caller writes it
  // The first hinted phase: a deque per node place and the root's. Small
  // at first; they grow like every wsq, so no push is ever refused.
  const unsigned nodes = sched_.places().nodes();
  for (unsigned i = 0; i <= nodes; ++i) placed_.push_back(std::make_unique<wsq<task*>>(64));
  places_made_.store(true, std::memory_order_release);
}

void worker::begin_phase(const phase_setup& setup, std::uint32_t epoch) {
  setup_ = setup;
  phase_.store(epoch, std::memory_order_relaxed);
  stats_ = {};
  marks_ = {};
  next_segment_ = 0;
  routed_.clear();
}

// ---------------------------------------------------------------- spawn / sync

// Names a freshly spawned task as a child of the innermost frame: its
// (segment, level, step) tag, parent, spawner and rank.
inline level_counter& worker::tag_child(task* t) {
  frame& f = *frame_;
  const std::uint32_t level = f.level + 1;
  level_counter& counter = segment_->at(level);
  t->tag = task_tag{segment_->id, level, counter.next_step++};
  t->parent = &f;
  t->spawner = id_;
  t->note = no_note;
  t->rank = f.rank_base + static_cast<std::uint32_t>(f.spawned);
  ++f.spawned;
  for (observer* o : setup_.task_observers) o->on_spawn(id_, t->tag);
  return counter;
}

void worker::submit(task* t) {
  const level_counter& counter = tag_child(t);
  if (setup_.routes && (t->tag.step == counter.mark || frame_->designated != no_designation ||
                        pending_plan_node_ != no_plan_node)) [[unlikely]]
    return route(t);
  push_local(t);
}

// A spawn with hints: the policy picks its place from the hints' home
// (PufferFish's find_place); every choice consumes the spawn's tag, so trees
// recorded under a hinted policy name tasks as under any other.
void worker::submit_hinted(task* t, std::span<const touch_hint> hints) {
  if (!setup_.hints) return submit(t);
  tag_child(t);
  const place_target to = setup_.policy->place_for(*this, home_of(hints, numa_node_));
  switch (to.where) {
    case place_target::kind::leaf:
      ++stats_.hinted_leaf;
      return push_local(t);
    case place_target::kind::inline_now:  // as if pushed and popped at once
      ++stats_.hinted_leaf;
      ++stats_.het_inlined;
      return execute(t, t->tag.level);
    case place_target::kind::node:
      ++stats_.hinted_node;
      return push_placed(t, to.node < placed_.size() - 1 ? to.node : static_cast<unsigned>(placed_.size() - 1));
    case place_target::kind::root:
      ++stats_.hinted_root;
      return push_placed(t, static_cast<unsigned>(placed_.size() - 1));
  }
}

// Only thieves take from a place deque, so a push wakes every sleeper: the
// one wake_one would pick may belong to a node that cannot take it. Places
// get O(nodes x depth) pushes per phase in a node-partitioned recursion.
void worker::push_placed(task* t, unsigned slot) {
  placed_[slot]->push(t);
  ++frame_->placed;
  if (sched_.sleepers()) [[unlikely]]
    sched_.wake_all();
}

// Whether a placed task of this worker could still be taken by another: not
// when it is alone, nor when every worker is idle (in its steal loop or at
// the nesting bound) -- those that may take it would have done so within the
// window that just passed. A busy worker (perhaps descheduled on a loaded
// machine) will look again once its task ends, so its node keeps its work.
bool worker::nobody_else_can_come() const noexcept { return workers() == 1 || sched_.idle_state().idle >= workers(); }

// The newest child of `f` still waiting on one of this worker's place
// deques (the root's first, then the nodes'), or nullptr. A child of f sits
// at the bottom of its deque if it is there at all: entries above it would be
// children of frames opened later, which have all joined. An entry that is
// not f's is put back where it was.
task* worker::take_back_placed(const frame& f) {
  for (std::size_t i = placed_.size(); i-- > 0;) {
    wsq<task*>& q = *placed_[i];
    if (task* t = q.pop()) {
      if (t->parent == &f) return t;
      q.push(t);
    }
  }
  return nullptr;
}

void worker::push_local(task* t) {
  deque_.push(t);
  if (sched_.sleepers()) [[unlikely]]
    sched_.wake_one();
}

// A marked or designated spawn, or one on an elision plan's path: the policy
// says whose mailbox it goes to.
void worker::route(task* t) {
  t->plan_node = std::exchange(pending_plan_node_, no_plan_node);
  if (t->plan_node != no_plan_node) {
    const elision_node& n = segment_->plan[t->plan_node];
    if (n.step == elision_node::none) return push_local(t);  // on the way to a steal: runs here
    t->tag.step = n.step;  // named as the template names it (elided spawns took no steps)
  }
  const unsigned designated = std::exchange(t->parent->designated, no_designation);
  const spawn_target target = setup_.policy->route(id_, t->tag, designated, *segment_);
  const unsigned to = target.mailbox_of;
  if (to == spawn_target::local || to == id_ || to >= workers()) return push_local(t);
  t->note = target.note;
  if (target.reclaimable) routed_.push_back({t, to, t->parent, t->tag.step});
  sched_.at(to).post(t);
  sched_.at(to).unpark();
}

void worker::designate_next_spawn(unsigned to) {
  if (to >= workers())
    throw error(
        fmt::format("cws::designate_after_next_spawn({}): no such worker (this runtime has {})", to, workers()));
  frame_->designated = to;  // for the next spawn of this task (or finish scope)
}

// Serial elision (policy.hpp's elision_node). The spawn about to happen in
// the innermost frame has rank r among its task's spawns: if the frame's plan
// node has a child of rank r, it is spawned as a task (submit picks the node
// up); otherwise nothing below it is designated and it runs as a call, with
// all it spawns (spawn.hpp). Elided calls count as tasks of the segment, so
// task counts (and balance) mean the same with and without elision.
bool worker::elide_next_spawn() {
  frame& parent = *frame_;
  const std::uint32_t rank = parent.rank_base + static_cast<std::uint32_t>(parent.spawned);
  if (const std::uint32_t node = parent.self->plan_node; node != no_plan_node) {
    const std::span<const elision_node> plan = segment_->plan;
    for (std::uint32_t c = plan[node].first_child; c != elision_node::none; c = plan[c].next_sibling)
      if (plan[c].rank == rank) {
        pending_plan_node_ = c;
        return false;
      }
  }
  ++parent.rank_base;  // the rank is taken, but the call is not a child
  return true;
}

void worker::elided_call_done(std::uint64_t calls, std::exception_ptr error) {
  segment_->tasks += calls;
  stats_.elided += calls;
  if (error) frame_->record_error(std::move(error));
}

void worker::sync() {
  frame& f = *frame_;
  join(f);
  if (f.failed.load(std::memory_order_relaxed)) {
    // Hand the exception to the caller and leave the frame reusable.
    std::exception_ptr e = std::exchange(f.error, nullptr);
    f.failed.store(false, std::memory_order_relaxed);
    std::rethrow_exception(std::move(e));
  }
}

// Frames open and close the same way for a task and for a finish scope.
void worker::push_frame(frame& f, std::uint32_t level) noexcept {
  f.deque_base = deque_.bottom();
  f.level = level;
  f.outer = frame_;
  frame_ = &f;
  ++open_frames_;
}
// (push_frame leaves the pedigree fields as constructed: rank 0, no plan node,
// its own rank counter; execute() and open_frame() fill them in.)

// Waits for f's children and closes it; `error` keeps the first failure:
// the body's own, else a child's.
void worker::pop_frame(frame& f, std::exception_ptr& error) {
  join(f);
  frame_ = f.outer;
  --open_frames_;
  if (!error && f.failed.load(std::memory_order_relaxed)) error = std::move(f.error);
}

void worker::open_frame(frame& f) noexcept {
  push_frame(f, frame_->level);  // a finish scope is not a task: it keeps its task's level, rank and plan node
  f.self = f.outer->self;
  f.rank_base = f.outer->rank_base + static_cast<std::uint32_t>(f.outer->spawned);
  // ... and its task's pending designation: designate(w); finish([&] { spawn(...); }).
  f.designated = std::exchange(f.outer->designated, no_designation);
}

void worker::close_frame(frame& f, std::exception_ptr body_error, bool rethrow) {
  pop_frame(f, body_error);
  // The task's next spawn takes the rank after the scope's last one.
  frame_->rank_base = f.rank_base + static_cast<std::uint32_t>(f.spawned - frame_->spawned);
  if (body_error && rethrow) std::rethrow_exception(std::move(body_error));
}

// Runs `t` on this worker in the innermost open segment, then its implicit sync.
void worker::execute(task* t, std::uint32_t level) {
  frame f;
  push_frame(f, level);
  f.self = t;  // alive until complete(), after the frame closed
  ++segment_->tasks;
  for (observer* o : setup_.task_observers) o->on_task_begin(id_, segment_->id, t->tag);
  std::exception_ptr error;
  try {
    t->invoke(t);
  } catch (...) {
    error = std::current_exception();
    if (!f.children_done()) [[unlikely]]
      abort_on_pending_children(f, error);
  }
  pop_frame(f, error);  // implicit sync: children may use the task's captures
  complete(t, std::move(error));
}

void worker::complete(task* t, std::exception_ptr error) noexcept {
  frame* parent = t->parent;
  const unsigned spawner = t->spawner;
  pool_.release(t);
  if (error) parent->record_error(std::move(error));
  if (spawner == id_) {  // the parent frame is suspended on this very thread
    ++parent->joined_local;
    return;
  }
  // seq_cst: pairs with the spawner's parker fence (no lost wake-up). The
  // parent frame may be gone right after this add; only the worker is touched.
  parent->joined_remote.fetch_add(1, std::memory_order_seq_cst);
  sched_.at(spawner).unpark();
}

// Waits until every child of `f` spawned so far has completed: own children
// first, newest first (they sit above f.deque_base), then the stolen ones.
void worker::join(frame& f) {
  bool waited = false;
  bool late = false;  // a routed child of f outstayed the grace in its mailbox
  while (!f.children_done()) {
    task* t = deque_.pop_above(f.deque_base);
    if (!routed_.empty() && (late || setup_.idle_grace_ns == 0)) [[unlikely]]
      take_back_newer(f, t);
    if (t) {
      execute(t, t->tag.level);
    } else if (f.placed != 0 && (waited || workers() == 1)) {
      // A back-off window found nothing to do and nobody else could come
      // (wait_for_stolen): run the placed children nobody came for. None
      // left means none can come (f spawns no more while it joins), so the
      // next wait may sleep.
      if ((t = take_back_placed(f)) != nullptr) {
        ++stats_.reclaimed;
        execute(t, t->tag.level);
      } else {
        f.placed = 0;
      }
    } else if (!f.children_done()) {
      late = (!waited && thief_not_joined_for(f)) || wait_for_stolen(f);
      waited = true;
    }
  }
  f.placed = 0;
  // Entries whose tasks a thief started: forget them before the frame's
  // memory can be reused by another frame.
  while (!routed_.empty() && routed_.back().parent == &f) routed_.pop_back();
}

// RELWS: runs the routed children of `f` spawned after `t` (all of them when
// `t` is null) that their thief has not started yet, newest first -- the LIFO
// place they would have had on the deque, so the segment's step numbering
// matches a replay where they stay local. The mailbox lock decides between
// thief and spawner. Children of one frame share a segment and a level, so
// their steps give their spawn order; entries of `f` are on top of routed_
// (inner frames have joined and dropped theirs).
void worker::take_back_newer(const frame& f, const task* t) {
  while (!routed_.empty() && routed_.back().parent == &f && (t == nullptr || routed_.back().step > t->tag.step)) {
    const routed_task r = routed_.back();
    routed_.pop_back();
    if (!sched_.at(r.to).mailbox_.remove(r.t)) continue;  // its thief has it
    ++stats_.taken_back;
    setup_.policy->taken_back(id_, r.to);
    task* back = const_cast<task*>(r.t);
    execute(back, back->tag.level);
  }
}

// Children of `f` are running elsewhere. Help with *other* workers' work as
// nested segments (bounded depth), never with the older entries of our own
// deque, until they are done. Returns true when it stopped early because a
// routed child of f still sat in its mailbox after the idle grace (join then
// takes it back).
bool worker::wait_for_stolen(frame& f) {
  const bool was_blocked = std::exchange(blocked_, true);
  const bool may_nest = segments_.depth() < max_depth_;
  auto done = [&] { return f.children_done(); };
  bool reclaims = !routed_.empty() && routed_.back().parent == &f;
  bool late = false;
  seek_work(done, may_nest, done, [&](const backoff& b, std::uint64_t idle_since) {
    // With children waiting on place deques, give up once a back-off window
    // has passed and no worker is running anything: join then takes them back.
    if (f.placed != 0 && b.spent() && nobody_else_can_come()) return true;
    if (!past_grace(idle_since)) return false;
    setup_.policy->idle_past_grace(id_, true);
    if (!reclaims) return false;
    late = posted_child_of(f);
    reclaims = late;  // none posted: none can be again (f spawns no more while it joins)
    return late;
  });
  blocked_ = was_blocked;
  return late;
}

// Whether a reclaimable routed child of `f` went to a thief that has not
// joined the phase, and the policy lets the spawner take it back now instead
// of waiting (scheduling_policy::thief_not_joined). Asked once per join,
// before its first wait: a thief in the phase by then is one the grace waits for.
bool worker::thief_not_joined_for(const frame& f) {
  if (setup_.idle_grace_ns == 0) return false;
  const std::uint32_t epoch = phase_.load(std::memory_order_relaxed);
  for (std::size_t i = routed_.size(); i-- > 0 && routed_[i].parent == &f;)
    if (const unsigned thief = routed_[i].to; !sched_.at(thief).took_part_in(epoch))
      return setup_.policy->thief_not_joined(id_, thief);
  return false;
}

bool worker::past_grace(std::uint64_t idle_since) const noexcept {
  return setup_.idle_grace_ns != 0 && now_ns() - idle_since >= setup_.idle_grace_ns;
}

// Whether a routed child of `f` is still in its thief's mailbox (asked once
// the grace has passed: it takes the mailboxes' locks).
bool worker::posted_child_of(const frame& f) {
  for (std::size_t i = routed_.size(); i-- > 0 && routed_[i].parent == &f;)
    if (sched_.at(routed_[i].to).mailbox_.holds(routed_[i].t)) return true;
  return false;
}

// The steal loop: until `done()`, ask the policy for work and run it as a new
// segment; between fruitless attempts back off, and sleep once `ready()` (the
// condition a waker publishes) is still false; stop early when
// `give_up(backoff, idle since)` holds after a fruitless pass. Time not spent
// in segments is idle time.
template <class Done, class Ready, class GiveUp>
void worker::seek_work(Done done, bool may_run, Ready ready, GiveUp give_up) {
  backoff b(idle_);
  std::uint64_t t0 = now_ns();
  if (marks_.entered_ns == 0) marks_.entered_ns = t0;
  idle_enter();
  while (!done()) {
    if (task* t = may_run ? task_access::unwrap(setup_.policy->find_work(*this)) : nullptr) {
      const std::uint64_t found = now_ns();
      stats_.idle_s += static_cast<double>(found - t0) * 1e-9;
      if (marks_.first_segment_ns == 0) marks_.first_segment_ns = found;
      idle_leave();
      const std::uint64_t ended = run_segment(t, found);
      idle_enter();
      b.reset();
      t0 = ended != 0 ? ended : now_ns();
      marks_.last_segment_end_ns = t0;
    } else {
      setup_.policy->idle_pass(*this);
      // A designated task is posted to its thief, who should not sit out a
      // round of pauses before taking it; mail already here that find_work
      // left would end every pause at once, so only new mail counts.
      const bool mail_before = has_mail();
      const bool sleep = b.pause([&] { return done() || (!mail_before && has_mail()); });
      if (give_up(std::as_const(b), t0)) break;
      if (sleep) park(b, ready);
    }
  }
  idle_leave();
  stats_.idle_s += seconds_since(t0);
}

// ---------------------------------------------------------------- segments

std::uint64_t worker::run_segment(task* t, std::uint64_t begin_ns) {
  const bool nested = blocked_;
  open_segment& seg = segments_.push(make_segment_id(id_, next_segment_++));
  open_segment* outer = std::exchange(segment_, &seg);
  ++stats_.segments;
  stats_.nested_segments += nested;
  if (!setup_.observers.empty()) {
    const std::uint64_t ts = begin_ns != 0 ? begin_ns : now_ns();
    for (observer* o : setup_.observers) o->on_segment_begin(id_, seg.id, t->tag, ts);
    if (t->tag.segment != no_segment) report_segment_path(t, seg.id);
  }
  if (setup_.routes) setup_.policy->segment_begin(id_, t->tag, t->note, seg);
  t->plan_node =
      seg.plan.empty() ? no_plan_node : 0;  // the root of its own plan (the spawner's node meant nothing here)
  const bool outer_elides = std::exchange(tls_elides, !seg.plan.empty());
  blocked_ = false;
  execute(t, 0);
  blocked_ = nested;
  tls_elides = outer_elides;
  if (setup_.routes) setup_.policy->segment_end(id_);
  stats_.tasks += seg.tasks;
  std::uint64_t ended = 0;
  if (!setup_.observers.empty()) {
    ended = now_ns();
    for (observer* o : setup_.observers) o->on_segment_end(id_, seg.id, seg.tasks, ended);
  }
  segment_ = outer;
  segments_.pop();
  return ended;
}

// The pedigree of segment root `t` in the segment that spawned it: its rank,
// then its ancestors' up to that segment's root (their frames are alive: each
// waits for its children, t among them, and their fields were written before
// t was spawned, so the steal that gave us t made them visible).
void worker::report_segment_path(const task* t, segment_id seg) {
  const std::uint32_t levels = t->tag.level;
  path_scratch_.resize(levels);  // grows to the deepest steal once
  if (levels == 0) return;
  path_scratch_[levels - 1] = t->rank;
  // t->parent runs t's depth-(L-1) ancestor (or is a finish scope of it). A
  // task at depth d >= 1 of a segment ran where its parent's frame popped it,
  // so past its own frame and scopes (level d) the next outer frame is its
  // parent's, at level d - 1.
  const frame* f = t->parent;
  for (std::uint32_t d = levels - 1; d >= 1 && f != nullptr; --d) {
    path_scratch_[d - 1] = f->self->rank;
    while (f != nullptr && f->level >= d) f = f->outer;
  }
  for (observer* o : setup_.observers) o->on_segment_path(id_, seg, path_scratch_);
}

std::exception_ptr worker::run_root(task* root, std::uint64_t begin_ns) {
  frame phase;  // stands for the caller of rt.run: the root's parent
  push_frame(phase, 0);
  root->tag = task_tag{};
  root->parent = &phase;
  root->spawner = id_;
  root->note = no_note;
  root->rank = 0;
  ++phase.spawned;
  run_segment(root, begin_ns);  // returns once every task of the phase has finished
  frame_ = phase.outer;
  --open_frames_;
  return phase.failed.load(std::memory_order_relaxed) ? std::move(phase.error) : nullptr;
}

// Until the phase ends, or until a routing policy says it holds no more work
// for this worker (scheduling_policy::lets_leave): then it leaves at once,
// and the phase's end does not wait for it (scheduler.hpp, End). The policy
// is asked on entry and after each segment, the only moments its answer may
// turn true, not on every spin of the back-off. Under a policy that neither
// routes nor places, the helper steps out when no deque and no mailbox holds
// anything, looked at after each segment it ran and after each pass that
// found nothing (scheduler.hpp, Stepping out): a routed or placed
// task may be meant for this worker alone, and the policies that have them
// watch idle workers (idle_state), so those stay in.
worker::stop worker::work_until_phase_end() {
  std::uint64_t asked_after = ~std::uint64_t{0};  // stats_.segments when last asked
  bool let_go = false, nothing_visible = false;
  const bool may_step_out = !setup_.routes && !setup_.hints;
  const auto lets_leave = [&] {
    if (setup_.routes && asked_after != stats_.segments) {
      asked_after = stats_.segments;
      let_go = setup_.policy->lets_leave(id_);
    }
    return let_go;
  };
  std::uint64_t looked_after = ~std::uint64_t{0};  // stats_.segments when last looked around
  const auto out_of_work = [&] {
    if (!may_step_out || looked_after == stats_.segments) return false;
    looked_after = stats_.segments;
    return nothing_visible = !work_in_sight();
  };
  seek_work([&] { return !sched_.phase_active() || lets_leave() || out_of_work(); }, true,
            [&] { return !sched_.phase_active() || work_in_sight(); },
            [&](const backoff&, std::uint64_t idle_since) {
              if (past_grace(idle_since)) setup_.policy->idle_past_grace(id_, false);
              return nothing_visible = may_step_out && !work_in_sight();
            });
  if (!let_go && !nothing_visible) return stop::phase_end;
  marks_.left_ns = now_ns();
  return let_go ? stop::let_go : stop::nothing_visible;
}

// Stepped out: polls, with the steal loop's back-off, asleep past it (a
// sleeper, woken by a push or by the phase's end: scheduler.hpp, End).
bool worker::await_work_outside(std::uint32_t epoch) {
  const auto closed = [&] { return !sched_.still_open(epoch); };
  const auto either = [&] { return closed() || work_in_sight(); };
  backoff b(idle_);
  while (!either())
    if (b.pause(either)) park(b, either);
  return !closed();
}

bool worker::work_in_sight() const noexcept { return has_mail() || sched_.work_visible(id_); }

void worker::rejoin_phase() { stats_.idle_s += seconds_since(std::exchange(marks_.left_ns, 0)); }

// After leaving a phase early: wait until the phase closes, as the steal
// loop would have, with the same back-off, asleep past it and woken by the
// end (a sleeper, as in the steal loop: scheduler.hpp, End). So
// the window between phases (scheduler::await_phase) starts when the phase
// ends, as for every other helper; started at the leave, it could run out
// during a long phase and cost the next one a wake-up.
void worker::linger_until_phase_end() {
  const std::uint32_t left = phase_.load(std::memory_order_relaxed);
  const auto over = [&] { return !sched_.still_open(left); };
  backoff b(idle_);
  while (!over())
    if (b.pause(over)) park(b, over);
}

template <class Ready>
void worker::park(backoff& b, Ready ready) {
  parker_.arm();
  sched_.sleeper_enter();  // seq_cst, and so is ready()'s read of active_: the sleeper's half of the
                           // pair with the phase's end (scheduler::run lowers active_, then reads the count)
  if (ready()) {
    parker_.disarm();
  } else {
    parker_.sleep(b.sleep_timeout());
  }
  sched_.sleeper_leave();
}

// ---------------------------------------------------------------- worker_view

unsigned worker::workers() const noexcept { return sched_.workers(); }

task_handle worker::steal(unsigned victim) noexcept {
  if (victim == id_ || victim >= sched_.workers()) return nullptr;
  task* t = sched_.at(victim).deque_.steal();
  if (t == nullptr) {
    ++stats_.failed_steals;
    return nullptr;
  }
  ++stats_.steals;
  for (observer* o : setup_.observers) o->on_steal(id_, victim, t->tag);
  return task_access::wrap(t);
}

task_handle worker::take_mail() noexcept { return took_mail(mailbox_.take()); }
task_handle worker::take_mail_noted(std::uint32_t note) noexcept { return took_mail(mailbox_.take_noted(note)); }

task_handle worker::steal_mail(unsigned victim) noexcept {
  if (victim == id_ || victim >= sched_.workers()) return nullptr;
  return took_mail(sched_.at(victim).mailbox_.take_not_spawned_by(id_));
}

task_handle worker::took_mail(task* t) noexcept {
  if (t == nullptr) return nullptr;
  ++stats_.steals;
  ++stats_.designated;
  for (observer* o : setup_.observers) o->on_steal(id_, t->spawner, t->tag);
  return task_access::wrap(t);
}

worker_view::idleness worker::idle_state() const noexcept { return sched_.idle_state(); }

task_handle worker::steal_placed(unsigned victim, unsigned node) noexcept {
  worker& v = sched_.at(victim < sched_.workers() ? victim : id_);
  if (&v == this || v.placed_.empty()) return nullptr;
  const std::size_t slot = node == root_place ? v.placed_.size() - 1 : node;
  if (slot >= v.placed_.size()) return nullptr;
  task* t = v.placed_[slot]->steal();
  if (t == nullptr) {
    ++stats_.failed_steals;
    return nullptr;
  }
  ++stats_.steals;
  ++stats_.place_steals;
  for (observer* o : setup_.observers) o->on_steal(id_, victim, t->tag);
  return task_access::wrap(t);
}

std::uint64_t worker::random() noexcept {
  // xorshift64*: cheap, good enough to spread victims, reproducible per seed.
  rng_state_ ^= rng_state_ >> 12;
  rng_state_ ^= rng_state_ << 25;
  rng_state_ ^= rng_state_ >> 27;
  return rng_state_ * 0x2545f4914f6cdd1dull;
}

// ---------------------------------------------------------------- entry points

constinit thread_local worker* tls_worker = nullptr;
constinit thread_local task_pool* tls_pool = nullptr;
constinit thread_local bool tls_elides = false;
constinit thread_local std::uint64_t tls_elided_calls = 0;

unsigned current_nesting_depth() noexcept { return tls_worker ? tls_worker->open_frames() : 0; }

void submit(worker& w, task* t) { w.submit(t); }
void submit_hinted(worker& w, task* t, const touch_hint* hints, std::size_t count) {
  w.submit_hinted(t, {hints, count});
}
bool spawned_nothing(const worker& w) noexcept { return w.spawned_nothing(); }
void sync(worker& w) { w.sync(); }
void open_frame(worker& w, frame& f) { w.open_frame(f); }
void close_frame(worker& w, frame& f, std::exception_ptr body_error, bool rethrow) {
  w.close_frame(f, std::move(body_error), rethrow);
}
unsigned worker_id(const worker& w) noexcept { return w.id(); }
unsigned worker_count(const worker& w) noexcept { return w.workers(); }
unsigned worker_numa_node(const worker& w) noexcept { return w.numa_node(); }
void designate_next_spawn(worker& w, unsigned to) { w.designate_next_spawn(to); }
bool elide_next_spawn(worker& w) { return w.elide_next_spawn(); }
void elided_call_done(worker& w, std::uint64_t calls, std::exception_ptr error) {
  w.elided_call_done(calls, std::move(error));
}

}  // namespace cws::detail
