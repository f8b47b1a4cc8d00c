#pragma once
// The CPU binding of the thread that calls rt.run(): it is worker 0 during a
// phase and must run on worker 0's PU, but between phases it belongs to the
// program (runtime_config::pin_caller, CWS_PIN_CALLER).
//
//   sticky  The first phase pins the thread (one system call) and it stays
//           pinned: later phases make no system call. The pin is given back
//           (the thread's original CPU set restored) when
//             * the runtime is destroyed,
//             * another thread calls rt.run() (the new caller takes the pin),
//             * the pinned thread creates a thread (pthread_create: std::thread,
//               an OpenMP team, a TBB worker) or asks for its own affinity
//               (sched_getaffinity, pthread_getaffinity_np: TBB and OpenMP size
//               their pools from it) -- cws interposes these three functions,
//               so what the program starts or measures between phases sees the
//               CPU set it had before cws touched it. The next phase pins again.
//               (Inside a phase the thread is worker 0 and stays pinned: what it
//               starts or reads there sees the one-PU binding.)
//           When the interposers are not in effect (cws linked into a shared
//           library loaded with RTLD_LOCAL), sticky falls back to phase, and
//           describe() says so.
//   phase   Pinned on entry, restored on exit of every phase (two system calls
//           per phase).
//   off     Never pinned; worker 0 runs wherever the kernel puts the thread.
//
// Threading: enter()/leave() run on the calling thread between the phase's
// start and end; release paths may run on any thread and take a mutex (never
// on a phase's path once the pin is in place).
//
// Several runtimes: there is one sticky pin per process, held by the thread
// that last entered a phase in sticky mode; a runtime whose caller is another
// thread takes it over (so two runtimes driven from two threads pay a system
// call per phase each), and a runtime gives it back when destroyed only if it
// is the one that took it. Phase mode keeps the mask it restores per binding.

#include <atomic>
#include <cstdint>
#include <memory>

#include "cws/config.hpp"

namespace cws::detail {

class caller_binding {
 public:
  // `pin` false (CWS_PIN=0) turns every mode into off.
  caller_binding(caller_pinning mode, bool pin, unsigned pu_os_index);
  ~caller_binding();  // gives a sticky pin back
  caller_binding(const caller_binding&) = delete;
  caller_binding& operator=(const caller_binding&) = delete;

  // Before / after a phase, on the thread that runs it. Throw cws::error when
  // the kernel refuses the binding.
  void enter();
  void leave();

  // The mode in effect (sticky may have fallen back to phase).
  caller_pinning mode() const noexcept { return mode_; }

 private:
  struct phase_mask;  // the CPU set phase mode restores (defined in the .cpp)
  caller_pinning mode_;
  unsigned pu_;
  bool phase_pinned_ = false;                // mode phase: pinned by the current enter()
  std::unique_ptr<phase_mask> phase_saved_;  // mode phase only
};

// Binding system calls made for callers so far (pins and restores, every mode,
// process-wide). Tests use it to check that steady-state phases make none.
std::uint64_t caller_binding_syscalls() noexcept;

// Whether this program's calls to pthread_create reach cws's interposer.
bool interposers_in_effect() noexcept;

}  // namespace cws::detail
