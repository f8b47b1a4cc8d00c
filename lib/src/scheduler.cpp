#include "scheduler.hpp"

#include <algorithm>
#include <chrono>
#include <future>

#include <fmt/format.h>

#include "cws/detail/entry.hpp"
#include "cws/error.hpp"
#include "pinning.hpp"

namespace cws::detail {

namespace {
cws::topology load_topology(const runtime_config& cfg) {
  return cfg.topology ? cws::topology::synthetic(*cfg.topology) : cws::topology::discover();
}
}  // namespace

namespace {
std::vector<worker_placement> place(const runtime_config& cfg, const cws::topology& topo) {
  // Throws for 0 or too many workers.
  return topo.place_workers(cfg.workers ? cfg.workers : static_cast<unsigned>(topo.cores().size()));
}
}  // namespace

scheduler::scheduler(const runtime_config& cfg)
    : config_(cfg),
      topology_(load_topology(cfg)),
      placement_(place(cfg, topology_)),
      data_(cfg, topology_, placement_) {
  const unsigned n = static_cast<unsigned>(placement_.size());
  config_.workers = n;
  workers_.reserve(n);
  for (unsigned i = 0; i < n; ++i)
    workers_.push_back(std::make_unique<worker>(*this, i, placement_[i].numa_node, config_));

  // Start workers 1..n-1 and wait until each is pinned (or failed to be).
  std::vector<std::future<void>> ready;
  threads_.reserve(n);
  for (unsigned i = 1; i < n; ++i) {
    auto started = std::make_shared<std::promise<void>>();
    ready.push_back(started->get_future());
    threads_.emplace_back([this, i, started] {
      try {
        if (config_.pin) pin_current_thread(placement_[i].pin_pu);
        started->set_value();
      } catch (...) {
        started->set_exception(std::current_exception());
        return;
      }
      thread_main(i);
    });
  }
  try {
    for (auto& f : ready) f.get();
  } catch (...) {
    shutdown_.store(true);
    epoch_.fetch_add(1);
    epoch_.notify_all();
    for (auto& t : threads_) t.join();
    throw;
  }
}

scheduler::~scheduler() {
  shutdown_.store(true, std::memory_order_release);
  epoch_.fetch_add(1, std::memory_order_release);
  epoch_.notify_all();
  for (auto& t : threads_) t.join();
}

void scheduler::thread_main(unsigned id) {
  worker& w = *workers_[id];
  tls_worker = &w;
  tls_pool = &w.pool();
  std::uint64_t seen = 0;
  for (;;) {
    epoch_.wait(seen, std::memory_order_acquire);  // asleep between phases: no CPU
    seen = epoch_.load(std::memory_order_acquire);
    if (shutdown_.load(std::memory_order_acquire)) break;
    w.work_until_phase_end();
    if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) running_.notify_one();
  }
  tls_worker = nullptr;
  tls_pool = nullptr;
}

// The calling thread is worker 0 only for the phase: it is pinned on entry
// and gets its own affinity back on exit, so threads the program creates
// later (a TBB arena, an OpenMP team) do not inherit a one-PU mask.
std::optional<thread_binding> scheduler::pin_caller() {
  if (!config_.pin) return std::nullopt;
  std::optional<thread_binding> saved = thread_binding::save_current();
  pin_current_thread(placement_[0].pin_pu);
  return saved;
}

std::exception_ptr scheduler::run(const phase_info& info, scheduling_policy& policy, void (*fn)(void*), void* arg,
                                  phase_stats& stats, touch_map& touches) {
  if (tls_worker != nullptr)
    throw error("cws::runtime::run called from inside a phase; nested phases are not supported (use cws::spawn)");
  std::unique_lock lock(run_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) throw error("cws::runtime::run called from two threads at once; phases run one at a time");
  policy.begin_phase(info);  // may refuse the phase (a template for another worker count): nothing changed yet
  const std::optional<thread_binding> caller_affinity = pin_caller();

  task_observers_.clear();
  for (observer* o : observers_)
    if (o->wants_task_events()) task_observers_.push_back(o);
  const phase_setup setup{&policy, policy.routes_spawns(), observers_, task_observers_};
  for (observer* o : observers_) o->on_phase_begin(info);
  for (auto& w : workers_) w->begin_phase(setup);

  // Build the root before waking anyone: allocation may throw.
  worker& w0 = *workers_[0];
  task* root = w0.pool().allocate();
  root->emplace([fn, arg] { fn(arg); });

  const auto t0 = std::chrono::steady_clock::now();
  running_.store(workers() - 1, std::memory_order_relaxed);
  active_.store(true, std::memory_order_release);
  epoch_.fetch_add(1, std::memory_order_release);
  epoch_.notify_all();

  tls_worker = &w0;
  tls_pool = &w0.pool();
  std::exception_ptr error = w0.run_root(root);
  tls_worker = nullptr;
  tls_pool = nullptr;

  // Every task has finished; send the helpers back to sleep.
  active_.store(false, std::memory_order_seq_cst);
  for (auto& w : workers_) w->unpark();
  for (unsigned r; (r = running_.load(std::memory_order_acquire)) != 0;) running_.wait(r, std::memory_order_acquire);
  const auto t1 = std::chrono::steady_clock::now();
  if (caller_affinity) caller_affinity->restore();

  stats.phase = info;
  stats.wall_s = std::chrono::duration<double>(t1 - t0).count();
  stats.per_worker.clear();
  for (auto& w : workers_) stats.per_worker.push_back(w->stats());
  touches.per_worker.clear();
  for (auto& w : workers_) touches.per_worker.push_back(w->take_touches());
  stats.locality.reset();
  if (!touches.empty()) stats.locality = data_.measure(touches);
  for (observer* o : observers_) o->on_phase_end(stats);
  policy.end_phase(stats);  // after the observers: a replaying policy reads the tree just recorded
  return error;
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

bool scheduler::work_visible(unsigned self) const noexcept {
  for (unsigned i = 0; i < workers_.size(); ++i)
    if (i != self && workers_[i]->has_visible_work()) return true;
  return false;
}

}  // namespace cws::detail
