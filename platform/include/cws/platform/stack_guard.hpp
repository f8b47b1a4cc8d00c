#pragma once
// Turning a stack overflow inside a phase into one line that says what to do.
//
// Deep recursion (a task chain 100 000 deep runs 100 000 nested execute/join
// frames on one stack) overflows a worker's stack. Without help the process
// dies of a bare SIGSEGV; with it, stderr gets
//   cws: stack overflow on worker 1 at task nesting depth 41234 (helper stacks:
//   CWS_STACK_KIB=8192; worker 0 is the calling thread, stack limit 8192 KiB)
// and the process aborts as usual (SIGABRT, core dump if enabled).
//
// How: every worker thread records its stack bounds and installs an alternate
// signal stack (the handler cannot run on the stack that just overflowed);
// one SIGSEGV/SIGBUS handler, installed while a runtime lives, checks whether
// the fault lies in the guard zone just below the faulting worker's stack and
// the stack pointer has come down there too (a wild write into that zone from
// a shallow stack is not an overflow). Any
// other fault goes to the handler that was there before (or the default
// action), so sanitizers and the program's own handlers keep working.

#include <cstddef>
#include <cstdint>

namespace cws::detail {

// Installs the process-wide handler (reference counted: one per live runtime).
// `stack_kib` is the helpers' stack size, quoted in the message;
// `depth_of_this_thread` returns the task nesting depth of the worker running
// on the calling thread (called from the signal handler: must only read).
class overflow_handler {
 public:
  overflow_handler(std::size_t stack_kib, unsigned (*depth_of_this_thread)() noexcept);
  ~overflow_handler();
  overflow_handler(const overflow_handler&) = delete;
  overflow_handler& operator=(const overflow_handler&) = delete;
};

// Marks the calling thread as worker `id` for the handler: records its stack
// bounds and gives it an alternate signal stack (once per thread; kept until
// the thread exits). Cheap after the first call on a thread.
void watch_this_thread(unsigned id);

// The calling thread's stack limit in KiB (RLIMIT_STACK; 0 = unlimited).
std::size_t caller_stack_limit_kib() noexcept;

}  // namespace cws::detail
