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

void submit(worker& w, task* t);       // push (or route) a freshly spawned task
void sync(worker& w);                  // cws::sync on the innermost frame
void open_frame(worker& w, frame& f);  // cws::finish / cws::scope begin
// Waits for f's children, closes it, then rethrows `body_error` or the first
// child's exception (unless `rethrow` is false).
void close_frame(worker& w, frame& f, std::exception_ptr body_error, bool rethrow);
unsigned worker_id(const worker& w) noexcept;
unsigned worker_count(const worker& w) noexcept;
void designate_next_spawn(worker& w, unsigned to);  // throws cws::error for a bad worker id

}  // namespace cws::detail
