#pragma once
// The few out-of-line entry points the inline API (spawn.hpp) calls into.

#include <exception>

#include "cws/detail/frame.hpp"
#include "cws/detail/task_pool.hpp"

namespace cws::detail {

class worker;

// Set on a thread while it works for a runtime inside a phase; null elsewhere.
// constinit: no dynamic initialisation, so spawn reads them directly instead
// of through a TLS wrapper call.
extern constinit thread_local worker* tls_worker;
extern constinit thread_local task_pool* tls_pool;
// Whether the innermost segment of this thread's worker runs under a serial
// elision plan (policy.hpp's elision_node): spawn asks elision_begin first.
extern constinit thread_local bool tls_elides;

void submit(worker& w, task* t);       // push (or route) a freshly spawned task
void sync(worker& w);                  // cws::sync on the innermost frame
void open_frame(worker& w, frame& f);  // cws::finish / cws::scope begin
// Waits for f's children, closes it, then rethrows `body_error` or the first
// child's exception (unless `rethrow` is false).
void close_frame(worker& w, frame& f, std::exception_ptr body_error, bool rethrow);
unsigned worker_id(const worker& w) noexcept;
unsigned worker_count(const worker& w) noexcept;
void designate_next_spawn(worker& w, unsigned to);  // throws cws::error for a bad worker id
// Serial elision: true when the next spawn runs as a plain call, in frame
// `f` (opened here); the caller then runs the callable and elision_end().
// False: spawn a task as usual.
bool elision_begin(worker& w, frame& f);
// Closes `f` after the call; its exception, if any, goes to the spawning
// task's frame like a child task's (rethrown by the next sync).
void elision_end(worker& w, frame& f, std::exception_ptr error);

}  // namespace cws::detail
