#pragma once
// Cilk-style fork/join: spawn, sync, finish, scope.
//
//   cws::spawn(f)   run f as a child of the current task; the caller continues.
//   cws::sync()     wait for every child the current task spawned so far and
//                   rethrow the first exception one of them threw.
//   cws::finish(f)  run f; return once everything f spawned has finished.
//   cws::scope s;   RAII: the destructor (or s.wait()) syncs what was spawned
//                   since s was opened.
//
// Every task ends with an implicit sync.
//
// FUNCTION BOUNDARIES ARE INVISIBLE TO THE RUNTIME. A plain function call runs
// inside its caller's task, so:
//   * a sync inside a callee also waits for children its caller spawned before
//     the call (harmless over-synchronization), and
//   * a function whose children use its locals MUST sync (or use cws::finish
//     or a cws::scope) before it returns, or the children outlive the locals.
//
// AN EXCEPTION LEAVING A FUNCTION IS A RETURN. In `spawn(child using locals);
// f(); sync();` a throwing f skips the sync, so join on that path too: open a
// cws::scope before the locals the children use (its destructor joins while
// the exception passes, then lets it go on), or put the body in cws::finish
// (catches, joins, rethrows). cws checks where it can: an exception that
// leaves a task while children it spawned are still pending aborts with
//   cws: error: an exception left a task while N of the children it spawned
//   were still pending; ... use cws::scope
// instead of joining them: by then the unwound frames' stack is being reused
// by the runtime itself, and a child still using a local there would corrupt
// it (worker.cpp, abort_on_pending_children). Whether a child is still
// pending at that moment is timing, so children that capture only values are
// joined on the exception path too.
//
// Outside a phase (no rt.run on this thread) spawn runs f at once and sync is
// a no-op: the serial elision, so library code works in both contexts. Inside
// a phase replayed with serial elision (cws::schedulers: coarsened templates),
// a spawn with no designated steal below it also runs at once, as a call, and
// so does everything it spawns (sync, finish and scope have nothing to wait
// for there); as with any serial elision, an exception it throws unwinds the
// elided calls up to the outermost one, whose spawner's next sync rethrows it.

#include <exception>
#include <type_traits>
#include <utility>

#include "cws/detail/entry.hpp"

namespace cws {

namespace detail {
// f as the call a replay elided a spawn into, on worker w (not inside another
// elided call): everything f spawns is a call too, and an exception it throws
// goes to the spawner's next sync.
template <class F>
void run_elided(worker& w, F&& f) {
  tls_elided_calls = 1;
  std::exception_ptr error;
  try {
    std::forward<F>(f)();
  } catch (...) {
    error = std::current_exception();
  }
  elided_call_done(w, std::exchange(tls_elided_calls, 0), std::move(error));
}

// f as a task of worker w: pushed on its deque, or routed by the policy.
template <class F>
void spawn_task(worker& w, F&& f) {
  task* t = tls_pool->allocate();
  t->emplace(std::forward<F>(f));
  submit(w, t);
}

// A spawn inside a phase (not inside an elided call) that leaves an elided
// one to its caller: true when the replay elides it, f not run (the caller
// runs it later with run_elided; the spawn's rank is taken either way), else
// false with f spawned. For parallel_for, which runs its elided halves where
// their tasks would have run, after the part it keeps.
template <class F>
bool spawn_unless_elided(F&& f) {
  worker& w = *tls_worker;
  if (tls_elides && elide_next_spawn(w)) return true;
  spawn_task(w, std::forward<F>(f));
  return false;
}
}  // namespace detail

template <class F>
void spawn(F&& f) {
  static_assert(std::is_invocable_v<std::decay_t<F>&>, "cws::spawn needs a callable taking no arguments");
  detail::worker* w = detail::tls_worker;
  if (w == nullptr) {
    std::forward<F>(f)();
    return;
  }
  if (detail::tls_elides) [[unlikely]] {  // replay with serial elision: most spawns are plain calls
    if (detail::tls_elided_calls != 0) {  // inside an elided call: everything below is a call too
      ++detail::tls_elided_calls;
      std::forward<F>(f)();
      return;
    }
    if (detail::elide_next_spawn(*w)) {
      detail::run_elided(*w, std::forward<F>(f));
      return;
    }
  }
  detail::spawn_task(*w, std::forward<F>(f));
}

inline void sync() {
  if (detail::worker* w = detail::tls_worker; w != nullptr && detail::tls_elided_calls == 0) detail::sync(*w);
}

template <class F>
void finish(F&& f) {
  detail::worker* w = detail::tls_worker;
  if (w == nullptr || detail::tls_elided_calls != 0) {
    std::forward<F>(f)();
    return;
  }
  detail::frame fr;
  detail::open_frame(*w, fr);
  std::exception_ptr body_error;
  try {
    std::forward<F>(f)();
  } catch (...) {
    body_error = std::current_exception();
  }
  detail::close_frame(*w, fr, std::move(body_error), true);
}

// RAII async-finish scope. wait() syncs and rethrows; the destructor syncs and
// rethrows a child's exception unless the scope is being left by an exception:
// then it still joins the children, before the enclosing function's stack
// frame is released, and lets that exception go on (a child's exception met
// there is dropped: the first one wins). Declare the scope before the locals
// its children use: locals declared after it are destroyed before it joins.
class scope {
 public:
  scope() : worker_(detail::tls_elided_calls == 0 ? detail::tls_worker : nullptr) {
    if (worker_) detail::open_frame(*worker_, frame_);
  }
  scope(const scope&) = delete;
  scope& operator=(const scope&) = delete;
  ~scope() noexcept(false) {
    if (worker_ && open_)
      detail::close_frame(*worker_, frame_, nullptr, std::uncaught_exceptions() == entry_exceptions_);
  }
  void wait() {
    if (worker_ && open_) {
      open_ = false;
      detail::close_frame(*worker_, frame_, nullptr, true);
    }
  }

 private:
  detail::worker* worker_;
  detail::frame frame_;
  bool open_ = true;
  int entry_exceptions_ = std::uncaught_exceptions();
};

// User mappings (SC14): the task created by the calling task's next spawn is
// handed to worker `w` (a cws::finish or cws::scope opened before that spawn
// carries the designation in; children run meanwhile, e.g. during a sync, do
// not consume it). Honoured by the `user` policy (cws::schedulers), which
// runs the phase with STUWS and keeps its designations as the template; other
// policies ignore it. Outside a phase it does nothing. Throws cws::error for a
// worker id the runtime does not have.
inline void designate_after_next_spawn(unsigned w) {
  if (detail::worker* self = detail::tls_worker) detail::designate_next_spawn(*self, w);
}
inline void designateAfterNextSpawn(unsigned w) { designate_after_next_spawn(w); }  // the SC14 spelling

// Worker executing the calling code (0 outside a phase), and the worker count
// of the running phase (1 outside a phase).
inline unsigned this_worker() noexcept {
  detail::worker* w = detail::tls_worker;
  return w ? detail::worker_id(*w) : 0;
}
inline unsigned num_workers() noexcept {
  detail::worker* w = detail::tls_worker;
  return w ? detail::worker_count(*w) : 1;
}

}  // namespace cws
