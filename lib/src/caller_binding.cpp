#include "caller_binding.hpp"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "cws/detail/entry.hpp"
#include "cws/error.hpp"
#include "cws/platform/pinning.hpp"

namespace cws::detail {
namespace {

std::atomic<std::uint64_t> binding_syscalls{0};

// A CPU set as the kernel's sched_{get,set}affinity take it, large enough for
// any Linux build (NR_CPUS <= 8192). Raw system calls, not glibc's wrappers:
// sched_getaffinity is interposed below and must not see our own queries.
struct cpu_mask {
  std::array<unsigned long, 8192 / (8 * sizeof(unsigned long))> bits{};
  std::size_t bytes = 0;  // as the kernel reported it
};

bool read_affinity(pid_t tid, cpu_mask& m) noexcept {
  const long n = ::syscall(SYS_sched_getaffinity, tid, sizeof(m.bits), m.bits.data());
  if (n < 0) return false;
  m.bytes = static_cast<std::size_t>(n);
  return true;
}

bool write_affinity(pid_t tid, const cpu_mask& m) noexcept {
  binding_syscalls.fetch_add(1, std::memory_order_relaxed);
  return ::syscall(SYS_sched_setaffinity, tid, m.bytes, m.bits.data()) == 0;
}

pid_t this_tid() noexcept { return static_cast<pid_t>(::syscall(SYS_gettid)); }

// The one sticky pin of the process (one caller at a time; runtimes hand it
// over). `active` and `generation` are read lock-free on the fast paths; every
// change happens under `m`.
struct sticky_pin {
  std::mutex m;
  std::atomic<const void*> owner{nullptr};  // the caller_binding that took it (gives it back when destroyed)
  std::atomic<bool> active{false};
  std::atomic<std::uint64_t> generation{1};  // bumped whenever the pin is given back
  std::atomic<bool> in_phase{false};         // the pinned thread is running a phase as worker 0
  std::atomic<pid_t> tid{0};                 // of the pinned thread (sched_getaffinity compares pids lock-free)
  std::atomic<unsigned> pu{0};               // read lock-free on the fast path of enter()
  cpu_mask saved;
};

sticky_pin& the_pin() {
  static sticky_pin p;  // never destroyed before threads stop using it: no destructor work
  return p;
}

// Which generation of the sticky pin this thread holds (0: none).
constinit thread_local std::uint64_t tls_held_generation = 0;

// Restores the pinned thread's original CPU set. Caller holds p.m.
void give_back_locked(sticky_pin& p) noexcept {
  if (!p.active.load(std::memory_order_relaxed)) return;
  if (!write_affinity(p.tid.load(std::memory_order_relaxed), p.saved) && errno != ESRCH)
    std::fprintf(stderr, "cws: warning: cannot restore the CPU set of thread %d: %s\n",
                 static_cast<int>(p.tid.load(std::memory_order_relaxed)), std::strerror(errno));
  p.active.store(false, std::memory_order_relaxed);
  p.owner.store(nullptr, std::memory_order_relaxed);
  p.generation.fetch_add(1, std::memory_order_release);
}

// True when the calling thread holds the sticky pin.
bool self_holds_pin() noexcept {
  return tls_held_generation != 0 && tls_held_generation == the_pin().generation.load(std::memory_order_acquire);
}

// The interposers' test: the calling thread holds the pin and is between
// phases. Inside a phase it is worker 0 and stays pinned: what it starts or
// reads there sees worker 0's binding, as with CWS_PIN_CALLER=phase.
bool pin_to_give_back() noexcept { return tls_worker == nullptr && self_holds_pin(); }

void give_back_now() noexcept {
  sticky_pin& p = the_pin();
  std::lock_guard lock(p.m);
  give_back_locked(p);
}

// Gives the pin back if `owner` took it (another runtime may hold it now).
void give_back_if_owner(const void* owner) noexcept {
  sticky_pin& p = the_pin();
  std::lock_guard lock(p.m);
  if (p.owner.load(std::memory_order_relaxed) == owner) give_back_locked(p);
}

// A thread that holds the pin and exits takes its binding with it.
struct exit_guard {
  bool armed = false;
  ~exit_guard() {
    if (!armed || !self_holds_pin()) return;
    sticky_pin& p = the_pin();
    std::lock_guard lock(p.m);
    p.active.store(false, std::memory_order_relaxed);
    p.owner.store(nullptr, std::memory_order_relaxed);
    p.generation.fetch_add(1, std::memory_order_release);
  }
};
thread_local exit_guard tls_exit_guard;

template <class F>
F real(const char* name) noexcept {
  void* f = ::dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    std::fprintf(stderr, "cws: fatal: cannot find the C library's %s (dlsym: %s)\n", name, ::dlerror());
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

}  // namespace

std::uint64_t caller_binding_syscalls() noexcept { return binding_syscalls.load(std::memory_order_relaxed); }

bool interposers_in_effect() noexcept {
  // Not the case when cws lives in a shared library loaded with RTLD_LOCAL
  // (a Python extension, a plugin): the program's threads would then inherit
  // a sticky pin unnoticed.
  return ::dlsym(RTLD_DEFAULT, "pthread_create") == reinterpret_cast<void*>(&::pthread_create);
}

struct caller_binding::phase_mask {
  cpu_mask saved;
};

caller_binding::caller_binding(caller_pinning mode, bool pin, unsigned pu_os_index)
    : mode_(pin ? mode : caller_pinning::off), pu_(pu_os_index) {
  if (mode_ == caller_pinning::sticky && !interposers_in_effect()) mode_ = caller_pinning::phase;
  if (mode_ == caller_pinning::phase) phase_saved_ = std::make_unique<phase_mask>();
}

caller_binding::~caller_binding() {
  if (mode_ == caller_pinning::sticky) give_back_if_owner(this);
}

void caller_binding::enter() {
  switch (mode_) {
    case caller_pinning::off:
      return;
    case caller_pinning::phase: {
      cpu_mask saved;
      if (!read_affinity(0, saved))
        throw error(fmt::format("cannot read the calling thread's CPU binding: {}", std::strerror(errno)));
      pin_current_thread(pu_);
      binding_syscalls.fetch_add(1, std::memory_order_relaxed);
      phase_saved_->saved = saved;
      phase_pinned_ = true;
      return;
    }
    case caller_pinning::sticky: {
      sticky_pin& p = the_pin();
      if (self_holds_pin() && p.pu.load(std::memory_order_relaxed) == pu_) {  // steady state: no system call, no lock
        p.in_phase.store(true, std::memory_order_relaxed);
        // Pinned by another runtime driven from this thread, on the same PU:
        // ours now (one relaxed load per phase otherwise).
        if (p.owner.load(std::memory_order_relaxed) != this) p.owner.store(this, std::memory_order_relaxed);
        return;
      }
      std::lock_guard lock(p.m);
      give_back_locked(p);  // another thread's (an earlier caller), or ours on another PU
      cpu_mask saved;
      if (!read_affinity(0, saved))
        throw error(fmt::format("cannot read the calling thread's CPU binding: {}", std::strerror(errno)));
      pin_current_thread(pu_);
      binding_syscalls.fetch_add(1, std::memory_order_relaxed);
      p.saved = saved;
      p.tid.store(this_tid(), std::memory_order_relaxed);
      p.pu.store(pu_, std::memory_order_relaxed);
      p.owner.store(this, std::memory_order_relaxed);
      p.active.store(true, std::memory_order_relaxed);
      tls_held_generation = p.generation.load(std::memory_order_relaxed);
      tls_exit_guard.armed = true;
      p.in_phase.store(true, std::memory_order_relaxed);
      return;
    }
  }
}

void caller_binding::leave() {
  if (mode_ == caller_pinning::sticky) the_pin().in_phase.store(false, std::memory_order_relaxed);
  if (!std::exchange(phase_pinned_, false)) return;
  if (!write_affinity(0, phase_saved_->saved))
    throw error(fmt::format("cannot restore the calling thread's CPU binding: {}", std::strerror(errno)));
}

}  // namespace cws::detail

// ---------------------------------------------------------------- interposers
//
// Defined in the program (cws::core is a static library, and its link options
// export these symbols), so every call from the program and its shared
// libraries (libstdc++'s std::thread, libgomp, libtbb) comes here first; each
// gives a sticky pin back when the pinned thread is the one that would
// otherwise pass it on or read it, then calls the C library's function. They
// cost one thread-local read (and one relaxed load) when nothing is pinned.

using cws::detail::pin_to_give_back;

extern "C" int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*),
                              void* arg) noexcept {
  using fn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static const fn next = cws::detail::real<fn>("pthread_create");
  if (pin_to_give_back()) cws::detail::give_back_now();
  return next(thread, attr, start, arg);
}

extern "C" int sched_getaffinity(pid_t pid, std::size_t size, cpu_set_t* mask) noexcept {
  using fn = int (*)(pid_t, std::size_t, cpu_set_t*);
  static const fn next = cws::detail::real<fn>("sched_getaffinity");
  cws::detail::sticky_pin& p = cws::detail::the_pin();
  if (p.active.load(std::memory_order_acquire)) {
    const bool give_back =
        pid == 0 ? pin_to_give_back()
                 : pid == p.tid.load(std::memory_order_relaxed) && !p.in_phase.load(std::memory_order_acquire);
    if (give_back) cws::detail::give_back_now();
  }
  return next(pid, size, mask);
}

extern "C" int pthread_getaffinity_np(pthread_t thread, std::size_t size, cpu_set_t* mask) noexcept {
  using fn = int (*)(pthread_t, std::size_t, cpu_set_t*);
  static const fn next = cws::detail::real<fn>("pthread_getaffinity_np");
  if (pin_to_give_back() && ::pthread_equal(thread, ::pthread_self())) cws::detail::give_back_now();
  return next(thread, size, mask);
}
