#pragma once
// The few out-of-line entry points the inline API (spawn.hpp) calls into.

#include <cstddef>
#include <cstdint>
#include <exception>

#include "cws/detail/frame.hpp"
#include "cws/detail/task_pool.hpp"

namespace cws {
struct touch_hint;
}

namespace cws::detail {

class worker;

// Set on a thread while it works for a runtime inside a phase; null elsewhere.
// constinit: no dynamic initialisation, so spawn reads them directly instead
// of through a TLS wrapper call. initial-exec: the library is compiled as
// position-independent code (it may be linked into a shared object), where
// the default model makes every read a call to __tls_get_addr (cws::touch
// paid one per declaration); this model reads them at a fixed offset from
// the thread pointer. The price: a shared object holding cws and loaded with
// dlopen takes these few bytes from glibc's spare static TLS.
[[gnu::tls_model("initial-exec")]] extern constinit thread_local worker* tls_worker;
[[gnu::tls_model("initial-exec")]] extern constinit thread_local task_pool* tls_pool;
// Serial elision (policy.hpp's elision_node). tls_elides: the innermost
// segment of this thread's worker runs under an elision plan, so spawn asks
// elide_next_spawn first. tls_elided_calls: nonzero while an elided call
// runs (it counts the calls made so far); inside one, every spawn is a plain
// call and sync, finish and scope do nothing, since nothing below it is a task.
[[gnu::tls_model("initial-exec")]] extern constinit thread_local bool tls_elides;
[[gnu::tls_model("initial-exec")]] extern constinit thread_local std::uint64_t tls_elided_calls;

void submit(worker& w, task* t);  // push (or route) a freshly spawned task
// A spawn with hints (touch.hpp): placed by a policy that routes hints, else submit().
void submit_hinted(worker& w, task* t, const touch_hint* hints, std::size_t count);
// Whether the task running in the innermost frame has spawned nothing so far.
bool spawned_nothing(const worker& w) noexcept;
void sync(worker& w);                  // cws::sync on the innermost frame
void open_frame(worker& w, frame& f);  // cws::finish / cws::scope begin
// Waits for f's children, closes it, then rethrows `body_error` or the first
// child's exception (unless `rethrow` is false).
void close_frame(worker& w, frame& f, std::exception_ptr body_error, bool rethrow);
unsigned worker_id(const worker& w) noexcept;
unsigned worker_count(const worker& w) noexcept;
unsigned worker_numa_node(const worker& w) noexcept;  // the logical NUMA node it is placed on
void designate_next_spawn(worker& w, unsigned to);    // throws cws::error for a bad worker id
// Serial elision: true when the next spawn of the running task has no
// designated steal below it (it then takes its rank and runs as a call);
// false: spawn a task as usual.
bool elide_next_spawn(worker& w);
// After an outermost elided call: counts its calls as tasks of the segment,
// and hands its exception, if any, to the spawning task's frame like a
// child task's (rethrown by the next sync).
void elided_call_done(worker& w, std::uint64_t calls, std::exception_ptr error);

}  // namespace cws::detail
