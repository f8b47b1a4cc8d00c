#include "scheduler.hpp"

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>

#include <fmt/format.h>

#include "block_window.hpp"
#include "cws/detail/clock.hpp"
#include "cws/detail/entry.hpp"
#include "cws/error.hpp"
#include "cws/platform/pinning.hpp"

namespace cws::detail {

namespace {
cws::topology load_topology(const runtime_config& cfg) {
  return cfg.topology ? cws::topology::synthetic(*cfg.topology) : cws::topology::discover();
}
}  // namespace

namespace {
std::vector<worker_placement> place(const runtime_config& cfg, const cws::topology& topo) {
  // Throws for 0 or too many workers.
  return topo.place_workers(cfg.workers ? cfg.workers : topo.default_workers());
}
cws::place_tree build_places(const runtime_config& cfg, const cws::topology& topo,
                             const std::vector<worker_placement>& placement) {
  if (cfg.hpt_file) return place_tree::from_xml_file(*cfg.hpt_file, topo, static_cast<unsigned>(placement.size()));
  return place_tree::from_topology(topo, placement);
}
}  // namespace

scheduler::scheduler(const runtime_config& cfg)
    : config_(cfg),
      topology_(load_topology(cfg)),
      placement_(place(cfg, topology_)),
      places_(build_places(cfg, topology_, placement_)),
      data_(cfg, topology_, placement_),
      overflow_(cfg.stack_kib, &current_nesting_depth),
      caller_(cfg.pin_caller, cfg.pin, placement_.front().pin_pu) {
  const unsigned n = static_cast<unsigned>(placement_.size());
  config_.workers = n;
  workers_.reserve(n);
  for (unsigned i = 0; i < n; ++i) workers_.push_back(std::make_unique<worker>(*this, i, config_));
  took_part_.reserve(n);

  // Start workers 1..n-1 and wait until each is pinned (or failed to be).
  std::vector<std::future<void>> ready;
  threads_.reserve(n);
  try {
    for (unsigned i = 1; i < n; ++i) {
      auto started = std::make_shared<std::promise<void>>();
      ready.push_back(started->get_future());
      threads_.push_back(std::make_unique<os_thread>(config_.stack_kib * 1024, [this, i, started] {
        try {
          if (config_.pin) pin_current_thread(placement_[i].pin_pu);
          watch_this_thread(i);
          started->set_value();
        } catch (...) {
          started->set_exception(std::current_exception());
          return;
        }
        thread_main(i);
      }));
    }
    for (auto& f : ready) f.get();
  } catch (...) {
    shutdown_.store(true);
    epoch_.fetch_add(1);
    epoch_.notify_all();
    threads_.clear();  // joins
    throw;
  }
}

scheduler::~scheduler() {
  shutdown_.store(true, std::memory_order_seq_cst);
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  epoch_.notify_all();
  threads_.clear();  // joins
}

void scheduler::thread_main(unsigned id) {
  worker& w = *workers_[id];
  tls_worker = &w;
  tls_pool = &w.pool();
  std::uint32_t seen = 0;
  while (await_phase(seen)) {
    if (!join_phase(seen)) continue;  // it closed while this thread was away: skipped
    w.begin_phase(setup_, seen);      // published before joined_ opened, which join_phase acquired
    for (bool in = true; in;) {       // out and back in while it finds nothing to steal (Stepping out)
      const worker::stop why = w.work_until_phase_end();
      w.seal_touches();  // while the caller seals its own
      leave_phase();
      in = why == worker::stop::nothing_visible && w.await_work_outside(seen) && join_phase(seen);
      if (in) w.rejoin_phase();
    }
    w.linger_until_phase_end();  // at once unless it left early (lets_leave)
  }
  tls_worker = nullptr;
  tls_pool = nullptr;
}

// Waits for the next phase (epoch_ != seen): the block-time window of spinning
// and yielding first, kept open by the caller's alone phases (block_window.hpp),
// then parked on the epoch word (protocol in the header).
bool scheduler::await_phase(std::uint32_t& seen) {
  auto next = [&] { return epoch_.load(std::memory_order_acquire) != seen; };
  if (config_.blocktime_us > 0) {
    block_window window(now_ns(), block_ns(), keepalive_.load(std::memory_order_relaxed));
    for (unsigned round = 0; !next(); ++round) {
      if (round % 64 != 63) {  // the clock (vDSO) and the keep-alive word once every 64 polls
        cpu_relax();
        continue;
      }
      const block_window::stage at = window.at(now_ns(), keepalive_.load(std::memory_order_relaxed));
      if (at == block_window::stage::over) break;
      if (at == block_window::stage::yield) std::this_thread::yield();
    }
  }
  if (!next()) {
    parked_.fetch_add(1, std::memory_order_seq_cst);
    for (std::uint32_t e; (e = epoch_.load(std::memory_order_seq_cst)) == seen;)
      epoch_.wait(e, std::memory_order_seq_cst);
    parked_.fetch_sub(1, std::memory_order_relaxed);
  }
  seen = epoch_.load(std::memory_order_acquire);
  return !shutdown_.load(std::memory_order_acquire);
}

bool scheduler::join_phase(std::uint32_t epoch) noexcept {
  // The first attempt assumes the phase is open and nobody joined yet (the
  // usual case with one helper): the CAS then fetches the line once, where a
  // load first would fetch it twice (shared, then exclusive).
  std::uint64_t word = (std::uint64_t{epoch} << 32) | phase_open;
  while (is_open(word, epoch))
    if (joined_.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel, std::memory_order_acquire))
      return true;
  return false;
}

void scheduler::leave_phase() noexcept {
  // seq_cst: pairs with await_helpers' caller_parked_ announcement.
  if ((joined_.fetch_sub(1, std::memory_order_seq_cst) & helpers_in) == 1 &&
      caller_parked_.load(std::memory_order_seq_cst))
    joined_.notify_one();
}

// The caller's half of block_window.hpp: a phase run alone bumps the
// keep-alive word when a quarter window has passed since it last did (or
// since the last shared phase ended). Only the caller writes it.
void scheduler::keep_helpers_waiting(std::uint64_t now) noexcept {
  if (!block_window::keepalive_due(now, keepalive_last_ns_, block_ns())) return;
  keepalive_.store(keepalive_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  keepalive_last_ns_ = now;
}

void scheduler::wake_helpers() {
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  if (parked_.load(std::memory_order_seq_cst) != 0) epoch_.notify_all();
}

// Until every joined helper has left its work loop (the phase is closed, so
// no helper joins meanwhile): spin, then yield, then sleep.
void scheduler::await_helpers() {
  for (unsigned round = 0; round < 4096; ++round) {
    if ((joined_.load(std::memory_order_acquire) & helpers_in) == 0) return;
    if (round < 1024)
      cpu_relax();
    else
      std::this_thread::yield();
  }
  caller_parked_.store(true, std::memory_order_seq_cst);
  for (std::uint64_t w; ((w = joined_.load(std::memory_order_seq_cst)) & helpers_in) != 0;)
    joined_.wait(w, std::memory_order_seq_cst);
  caller_parked_.store(false, std::memory_order_relaxed);
}

namespace {
using clock = std::chrono::steady_clock;
double seconds_between(std::uint64_t from_ns, std::uint64_t to_ns) noexcept {
  return to_ns > from_ns ? static_cast<double>(to_ns - from_ns) * 1e-9 : 0.0;
}
}  // namespace

std::exception_ptr scheduler::run(const phase_info& info, scheduling_policy& policy, void (*fn)(void*), void* arg,
                                  run_report& stats, touch_map& touches, locality_memo& memo,
                                  std::optional<clock::time_point> called) {
  if (tls_worker != nullptr)
    throw error("cws::runtime::run called from inside a phase; nested phases are not supported (use cws::spawn)");
  std::unique_lock lock(run_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) throw error("cws::runtime::run called from two threads at once; phases run one at a time");
  policy.begin_phase(info);  // may refuse the phase (a template for another worker count): nothing changed yet
  caller_.enter();           // sticky: a system call at the first phase only
  watch_this_thread(0);

  task_observers_.clear();  // capacity kept: no allocation in steady state
  for (observer* o : observers_)
    if (o->wants_task_events()) task_observers_.push_back(o);
  setup_ = phase_setup{&policy,    policy.routes_spawns(), policy.routes_hints(),
                       observers_, task_observers_,        policy.idle_grace_ns()};
  if (setup_.hints)
    for (auto& w : workers_) w->make_places();
  for (observer* o : observers_) o->on_phase_begin(info);
  const std::uint32_t epoch = epoch_.load(std::memory_order_relaxed) + 1;  // the caller is its only writer
  workers_[0]->begin_phase(setup_, epoch);  // the helpers arm themselves once they joined (thread_main)

  // Build the root before waking anyone: allocation may throw.
  worker& w0 = *workers_[0];
  task* root = w0.pool().allocate();
  root->emplace([fn, arg] { fn(arg); });

  const bool alone = workers_.size() == 1 || policy.runs_alone();  // see Alone in the header
  const auto t0 = clock::now();
  active_.store(true, std::memory_order_release);
  if (!alone) {
    joined_.store((std::uint64_t{epoch} << 32) | phase_open, std::memory_order_release);
    wake_helpers();
  } else if (workers_.size() > 1) {
    keep_helpers_waiting(ns_of(t0));
  }

  tls_worker = &w0;
  tls_pool = &w0.pool();
  std::exception_ptr error = w0.run_root(root, ns_of(t0));
  tls_worker = nullptr;
  tls_pool = nullptr;
  const auto root_done = called ? clock::now() : t0;  // timed phases only (phase_timeline)

  // Every task has finished. Close the phase first: a helper joining from
  // here on would only arm itself to find the phase over, and make the
  // caller wait for it to leave. Then send the helpers back to their window.
  // Only helpers asleep inside the phase need a wake-up, and sleepers_ says
  // whether there are any: one read of a line nobody writes while everyone
  // spins, instead of one read per helper (the pair with worker::park).
  // seq_cst: pairs with still_open(), read by a helper that left early and
  // counted itself a sleeper (a plain locked instruction on x86 either way).
  const bool joined = !alone && (joined_.fetch_and(~phase_open, std::memory_order_seq_cst) & helpers_in) != 0;
  active_.store(false, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) != 0) wake_all();
  w0.seal_touches();  // while the helpers seal theirs
  if (joined) await_helpers();
  const auto t1 = clock::now();
  caller_.leave();
  if (!alone) keepalive_last_ns_ = ns_of(t1);  // the helpers' windows open about now

  // After the phase (phase_timeline): each step's end is a clock read, in
  // timed phases only.
  phase_timeline times;
  auto lap_start = t1;
  const auto lap = [&](double& part) {
    if (!called) return;
    const auto now = clock::now();
    part = std::chrono::duration<double>(now - lap_start).count();
    lap_start = now;
  };

  stats.wall_s = std::chrono::duration<double>(t1 - t0).count();
  stats.per_worker.resize(workers_.size());
  touches.per_worker.resize(workers_.size());
  bool touched = false;
  took_part_.clear();  // capacity kept: no allocation in steady state
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    if (!workers_[i]->took_part_in(epoch)) {  // skipped the phase (see Joining): did nothing in it
      stats.per_worker[i] = worker_stats{};
      touches.per_worker[i].clear();
      continue;
    }
    took_part_.push_back(static_cast<unsigned>(i));
    stats.per_worker[i] = workers_[i]->stats();
    const worker::phase_marks& m = workers_[i]->marks();
    if (m.left_ns != 0)  // out before the end: idle since
      stats.per_worker[i].idle_s += seconds_between(m.left_ns, ns_of(t1));
    if (i > 0)  // a helper that joined late did nothing before (load_balance::busy_over_fair)
      stats.per_worker[i].idle_s += seconds_between(ns_of(t0), m.entered_ns);
    workers_[i]->take_touches(touches.per_worker[i]);
    touched |= !touches.per_worker[i].empty();
  }
  stats.workers_joined = static_cast<unsigned>(took_part_.size());
  stats.balance = balance_of(stats);  // O(workers), after the idle times are complete
  lap(times.collect_s);
  if (touched)
    times.locality_pages = data_.measure(touches, memo, stats.locality);
  else
    stats.locality.reset();  // the memo stays: a later run may touch the same bytes again
  lap(times.locality_s);
  stats.timeline.reset();  // filled below, once the policy is done
  for (observer* o : observers_) o->on_phase_end(stats);
  lap(times.observers_s);
  // The policy's part starts from "nothing known" (strings keep capacity).
  stats.ran_as = stats.planned = ran_as::other;
  stats.reason.clear();
  stats.template_from.clear();
  stats.note.clear();
  stats.distance_to_previous.reset();
  stats.converged = false;
  policy.end_phase(stats);  // after the observers: a replaying policy reads the tree just recorded
  lap(times.policy_s);
  if (called) {
    fill_phase_times(times, *called, t0, root_done, t1);
    stats.timeline = times;
  }
  return error;
}

// The fork/join part of the timeline, from the caller's reads and the
// joined helpers' marks (which they wrote before leaving their loop: the
// count's handshake in await_helpers makes them visible here).
void scheduler::fill_phase_times(phase_timeline& t, clock::time_point called, clock::time_point woken,
                                 clock::time_point root_done, clock::time_point helpers_out) const {
  const std::uint64_t wake = ns_of(woken), root = ns_of(root_done);
  std::uint64_t all_in = wake, first_steal = 0, last_end = 0;
  for (const unsigned i : took_part_) {  // the others' marks are another phase's
    const worker::phase_marks& m = workers_[i]->marks();
    if (i > 0) all_in = std::max(all_in, m.entered_ns);
    if (m.first_segment_ns != 0 && (first_steal == 0 || m.first_segment_ns < first_steal))
      first_steal = m.first_segment_ns;
    last_end = std::max(last_end, m.last_segment_end_ns);
  }
  // A helper reads its segment's end after completing it, so after the root
  // may have returned: the leaves ended by then at the latest.
  const std::uint64_t last_leaf = last_end != 0 ? std::min(last_end, root) : root;
  t.setup_s = std::chrono::duration<double>(woken - called).count();
  t.fork_s = seconds_between(wake, all_in);
  if (first_steal != 0) t.first_steal_s = seconds_between(wake, first_steal);
  t.leaves_s = seconds_between(wake, last_leaf);
  t.join_s = seconds_between(last_leaf, root);
  t.helpers_out_s = std::chrono::duration<double>(helpers_out - root_done).count();
}

relocalization_report scheduler::relocalize(const touch_map& touches, const std::string& schedule,
                                            std::uint64_t iteration) {
  std::unique_lock lock(run_mutex_, std::try_to_lock);
  if (!lock.owns_lock() || tls_worker != nullptr)
    throw error("cws::runtime::relocalize called during a phase; relocalize between phases");
  relocalization_report r = data_.relocalize(touches);
  r.schedule = schedule;
  r.iteration = iteration;
  for (observer* o : observers_) o->on_relocalize(r);
  return r;
}

// Observers are read by every worker during a phase without locks, so the
// list only changes between phases.
void scheduler::add_observer(observer& o) {
  std::unique_lock lock(run_mutex_, std::try_to_lock);
  if (!lock.owns_lock() || tls_worker != nullptr)
    throw error("cws::runtime::add_observer called during a phase; add observers between phases");
  if (std::find(observers_.begin(), observers_.end(), &o) == observers_.end()) observers_.push_back(&o);
}

void scheduler::remove_observer(observer& o) {
  std::unique_lock lock(run_mutex_, std::try_to_lock);
  if (!lock.owns_lock() || tls_worker != nullptr)
    throw error("cws::runtime::remove_observer called during a phase; remove observers between phases");
  std::erase(observers_, &o);
}

void scheduler::wake_one() noexcept {
  const unsigned n = workers();
  const unsigned start = wake_cursor_.fetch_add(1, std::memory_order_relaxed);
  for (unsigned i = 0; i < n; ++i)
    if (workers_[(start + i) % n]->unpark()) return;
}

void scheduler::wake_all() noexcept {
  for (auto& w : workers_) w->unpark();
}

// Not one atomic snapshot: each word is read at its own moment. What the
// readers need still holds. A worker counted idle in two reads with the
// same exits in between was idle all along, so "every worker idle, and no
// exit between two reads" means every worker was idle at once (the stall
// watch); a single read is a snapshot, as it was with one shared word.
worker_view::idleness scheduler::idle_state() const noexcept {
  worker_view::idleness sum;
  for (const auto& w : workers_) {
    const worker_view::idleness v = w->idleness_now();
    sum.idle += v.idle;
    sum.exits += v.exits;
  }
  return sum;
}

bool scheduler::work_visible(unsigned self) const noexcept {
  const unsigned node = places_.node_of_worker(self);
  for (unsigned i = 0; i < workers_.size(); ++i)
    if (i != self && (workers_[i]->has_visible_work() || workers_[i]->has_placed_work_for(node))) return true;
  return false;
}

}  // namespace cws::detail
