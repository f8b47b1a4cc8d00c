#include "replay_policy.hpp"

#include <fmt/format.h>

#include "format_into.hpp"

namespace cws::schedulers::detail {

cws::ran_as ran_as_of(replay_mode m, bool has_template) noexcept {
  switch (m) {
    case replay_mode::random:
      return has_template ? cws::ran_as::random : cws::ran_as::random_no_template;
    case replay_mode::stows:
      return cws::ran_as::stows;
    case replay_mode::stuws:
      return cws::ran_as::stuws;
    case replay_mode::relws:
      return cws::ran_as::relws;
    case replay_mode::user:
      return cws::ran_as::user;
  }
  return cws::ran_as::other;
}

// Stores only what changed: the workers read these fields on every route
// and find_work, and a store would move their line to this thread's cache.
template <class T, class U>
static void update(T& field, const U& value) {
  if (field != value) field = value;
}

void replay_engine::prepare(replay_mode mode, const std::shared_ptr<const template_plan>& plan, unsigned workers,
                            unsigned stall_ms, bool elide, unsigned grace_us) {
  update(mode_, mode);
  update(elide_, elide && plan != nullptr && is_strict(mode));
  update(plan_, plan);  // compared first: a copy would write the plan's reference count every phase
  if (lanes_.size() != workers) {
    lanes_ = std::vector<lane>(workers);
    last_pass_ = std::make_unique<pass_clock[]>(workers);
  }
  update(stall_limit_, clock::duration(std::chrono::milliseconds(stall_ms)));
  update(grace_ns_, strict() || mode == replay_mode::user ? std::uint64_t{grace_us} * 1000 : 0);
  ++epoch_;  // every lane resets at its worker's first use (lane_of)
  if (withdrawn_.load(std::memory_order_relaxed)) withdrawn_.store(false, std::memory_order_relaxed);
  if (claimed_.load(std::memory_order_relaxed)) {  // no worker runs: nobody else writes these now
    reason_.clear();
    released_.store(false, std::memory_order_relaxed);
    diverged_.store(false, std::memory_order_relaxed);
    claimed_.store(false, std::memory_order_relaxed);
  }
}

void replay_engine::reset(lane& l, unsigned w) noexcept {
  l.epoch = epoch_;
  l.depth = 0;
  l.next_in_order = 0;
  l.planned_started = 0;
  l.stalling = false;
  last_pass_[w].at.store(0, std::memory_order_relaxed);
  last_pass_[w].before.store(0, std::memory_order_relaxed);
}

void replay_engine::divergence_into(std::string& out) const {
  if (!released()) {
    out = reason_;
    return;
  }
  const release_record& r = release_;
  if (worded_text_.empty() || !(r == worded_)) {
    worded_ = r;
    switch (r.cause) {
      case release_cause::sync_past_grace:
        format_into(worded_text_, "worker {} waited over {} us in a sync for a task its thief had not finished",
                    r.worker, r.grace_ns / 1000);
        break;
      case release_cause::designated_past_grace:
        format_into(worded_text_, "worker {} waited over {} us for a designated task that had not come", r.worker,
                    r.grace_ns / 1000);
        break;
      case release_cause::thief_not_joined:
        format_into(worded_text_,
                    "worker {} reached a sync before worker {}, the thief of its designated task, had joined the phase",
                    r.worker, r.thief);
        break;
    }
  }
  out = worded_text_;
}

std::string replay_engine::divergence() const {
  std::string out;
  divergence_into(out);
  return out;
}

void replay_engine::diverge_up_front(std::string why) { diverge(std::move(why)); }

void replay_engine::diverge(std::string why) {
  if (!claim()) return;
  reason_ = std::move(why);
  diverged_.store(true, std::memory_order_relaxed);
}

void replay_engine::release(release_record why) noexcept {
  if (!claim()) return;
  release_ = why;
  released_.store(true, std::memory_order_relaxed);
  diverged_.store(true, std::memory_order_relaxed);
}

// ---------------------------------------------------------------- routing

spawn_target replay_engine::route(unsigned spawner, const task_tag& tag, unsigned designated, segment_marks& marks) {
  if (diverged()) {
    marks.clear_all();
    return {};
  }
  if (mode_ == replay_mode::user) return {designated, no_note, grace_ns_ != 0};
  lane& l = lane_of(spawner);
  cursor& c = l.open[l.depth - 1];
  if (c.segment == no_note || tag.level >= c.next.size()) return {};  // a designation outside replay: ignored
  const auto& bounds = plan_->level_begin[c.segment];
  std::uint32_t& i = c.next[tag.level];
  if (i >= bounds[tag.level + 1] || plan_->point(c.segment, i).step != tag.step) return {};
  const steal_tree::steal_point& p = plan_->point(c.segment, i);
  ++i;
  marks.set(tag.level, i < bounds[tag.level + 1] ? plan_->point(c.segment, i).step : no_mark);
  return {plan_->thief(c.segment, i - 1), p.child, mode_ == replay_mode::relws || grace_ns_ != 0};
}

void replay_engine::segment_begin(unsigned worker, const task_tag& root, std::uint32_t note, segment_marks& marks) {
  lane& l = lane_of(worker);
  if (l.depth == l.open.size()) l.open.emplace_back();
  cursor& c = l.open[l.depth++];
  c.segment = no_note;
  if (diverged() || mode_ == replay_mode::user) return;
  const std::uint32_t seg = root.segment == no_segment ? 0 : note;
  if (seg == no_note) return;  // taken from a deque: not part of the template
  c.segment = seg;
  ++l.planned_started;
  if (mode_ == replay_mode::stows) ++l.next_in_order;
  const auto& bounds = plan_->level_begin[seg];
  const std::uint32_t levels = static_cast<std::uint32_t>(bounds.size()) - 1;
  c.next.assign(bounds.begin(), bounds.end() - 1);
  if (elide_)
    if (const std::span<const elision_node> trie = plan_->elision_of(seg); !trie.empty()) {
      marks.elide(trie);
      return;
    }
  for (std::uint32_t level = 1; level < levels; ++level)
    if (bounds[level] < bounds[level + 1]) marks.set(level, plan_->point(seg, bounds[level]).step);
}

void replay_engine::segment_end(unsigned worker) {
  lane& l = lane_of(worker);
  const cursor& c = l.open[--l.depth];
  if (c.segment == no_note || !strict() || diverged()) return;
  const auto& bounds = plan_->level_begin[c.segment];
  for (std::uint32_t level = 0; level + 1 < bounds.size(); ++level) {
    if (c.next[level] == bounds[level + 1]) continue;
    const steal_tree::steal_point& p = plan_->point(c.segment, c.next[level]);
    diverge(
        fmt::format("template segment #{} ended on worker {} without spawning ({},{}), which the template "
                    "hands to worker {}",
                    c.segment, worker, p.level, p.step, plan_->thief(c.segment, c.next[level])));
    return;
  }
}

// A strict replay that keeps a worker waiting past the grace: in a sync for a
// child (its thief lost its core, or is still busy), or for a designated task
// (its spawner lost its core). Random stealing would have given that worker
// work, so from here on the phase runs as a random one -- routes, nesting
// and mail included (diverged_): the waiting spawner takes back the children
// nobody started (worker.hpp, join), and idle workers steal. The template
// stays; the run's tree is none. A worker with no planned segment left, at
// the top level, merely waits for the phase to end.
void replay_engine::idle_past_grace(unsigned worker, bool in_sync) {
  if (diverged() || grace_ns_ == 0) return;
  const lane& l = lane_of(worker);
  if (!in_sync && (plan_ == nullptr || l.planned_started >= plan_->order[worker].size())) return;
  release({in_sync ? release_cause::sync_past_grace : release_cause::designated_past_grace, worker, 0, grace_ns_});
}

// A spawner at its sync while a designated child's thief has not joined the
// phase (still waking, or off its core): random stealing would run that child
// on the spawner, and waiting for the thief costs its wake-up, which on a
// phase of a few microseconds is most of the phase. So the phase is released
// at once rather than after the grace (the grace stands for thieves that are
// in the phase but busy). With the grace off (0) the spawner waits, however
// long.
bool replay_engine::thief_not_joined(unsigned spawner, unsigned thief) noexcept {
  if (grace_ns_ == 0) return false;
  if (!diverged()) release({release_cause::thief_not_joined, spawner, thief, grace_ns_});
  return true;
}

// ---------------------------------------------------------------- finding work

task_handle replay_engine::find_work(worker_view& view) {
  lane& l = lane_of(view.self());
  if (diverged() || mode_ == replay_mode::random) return steal_anything(view);
  task_handle t = nullptr;
  switch (mode_) {
    case replay_mode::stows: {
      const auto& order = plan_->order[view.self()];
      if (l.next_in_order < order.size() && may_start_next(l, order[l.next_in_order]))
        t = view.take_mail_noted(order[l.next_in_order]);
      break;
    }
    case replay_mode::relws:
      t = view.take_mail();
      // Relaxed: once every segment the template planned here has started,
      // or some planned one can no longer come (taken_back), an idle worker
      // helps by stealing at random (the tree evolves).
      if (t == nullptr &&
          (l.planned_started >= plan_->order[view.self()].size() || withdrawn_.load(std::memory_order_relaxed)))
        t = steal_anything(view);
      break;
    case replay_mode::stuws:
      // Any mail, nested anywhere: a designated task can then always start
      // once its worker idles (at the top level or waiting in a sync), so a
      // fork/join program cannot deadlock. Holding stuws to the template's
      // nesting as well can: worker X takes S2 before S1 (order is free),
      // waits in S2 for S3 on worker W, while W waits in A for S1 on X, and
      // neither may nest the other's segment.
      t = view.take_mail();
      break;
    default:  // user: designations, no template to consult
      t = view.take_mail();
      break;
  }
  if (t != nullptr) l.stalling = false;
  return t;
}

void replay_engine::idle_pass(worker_view& view) {
  if (diverged() || mode_ == replay_mode::random) return;
  lane& l = lane_of(view.self());  // first: it may reset the pass clock below
  const clock::time_point now = clock::now();
  pass_clock& pass = last_pass_[view.self()];
  pass.before.store(pass.at.load(std::memory_order_relaxed), std::memory_order_relaxed);
  pass.at.store(now.time_since_epoch().count(), std::memory_order_relaxed);
  watch_for_stall(view, l, now);
}

bool replay_engine::lets_leave(unsigned worker) noexcept {
  if (!strict() || plan_ == nullptr || diverged()) return false;
  const lane& l = lane_of(worker);
  if (l.depth != 0 || l.planned_started < plan_->order[worker].size()) return false;
  last_pass_[worker].left_in.store(epoch_, std::memory_order_relaxed);
  return true;
}

unsigned replay_engine::workers_left() const noexcept {
  unsigned n = 0;
  for (std::size_t w = 0; w < lanes_.size(); ++w) n += left(w);
  return n;
}

// Mail first (own, then another worker's: released work), then a deque.
task_handle replay_engine::steal_anything(worker_view& view) {
  if (task_handle t = view.take_mail()) return t;
  const unsigned n = view.workers();
  if (n < 2) return nullptr;
  unsigned victim = static_cast<unsigned>(view.random() % (n - 1));
  if (victim >= view.self()) ++victim;  // uniform over the others
  if (diverged())
    if (task_handle t = view.steal_mail(victim)) return t;
  return view.steal(victim);
}

// Every worker idle while the phase is unfinished means that nothing can run
// under the constraints. Confirm it over stall_limit_ with no worker leaving
// its idle state in between (taking work, or its sync completing), and with
// every worker still looking for work late in that window (see the header: a
// counted-idle worker may just be preempted).
void replay_engine::watch_for_stall(worker_view& view, lane& l, clock::time_point now) {
  const worker_view::idleness idle = view.idle_state();
  // A worker that left is idle for good. It stopped being idle in the core's
  // count as it left (one exit), so it is counted once; one seen between its
  // leave and that exit is counted twice, which only matters if every other
  // worker is idle too (the leaver is as good as idle then).
  if (idle.idle + workers_left() < view.workers()) {
    l.stalling = false;
    return;
  }
  if (!l.stalling || l.stall_exits != idle.exits) {
    l.stalling = true;
    l.stall_exits = idle.exits;
    l.stall_since = now;
    return;
  }
  if (now - l.stall_since >= stall_limit_ && all_passed_since(l.stall_since + stall_limit_ / 2))
    diverge(fmt::format("every worker waited {} ms with nothing it may run",
                        std::chrono::duration_cast<std::chrono::milliseconds>(now - l.stall_since).count()));
}

bool replay_engine::all_passed_since(clock::time_point since) const noexcept {
  const clock::rep cutoff = since.time_since_epoch().count();
  for (std::size_t w = 0; w < lanes_.size(); ++w)
    if (last_pass_[w].before.load(std::memory_order_relaxed) < cutoff && !left(w)) return false;
  return true;
}

}  // namespace cws::schedulers::detail
