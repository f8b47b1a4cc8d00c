#include "cws/platform/stack_guard.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "cws/error.hpp"

namespace cws::detail {
namespace {

// How far below a stack's lowest usable byte a fault still counts as an
// overflow: glibc's guard for helper threads is sized to this, and the
// kernel's stack guard gap for the main thread is 256 pages (1 MiB).
constexpr std::uintptr_t guard_zone = std::uintptr_t{1} << 20;
constexpr std::size_t alt_stack_bytes = 64 * 1024;

struct thread_watch {
  std::uintptr_t stack_lo = 0;  // lowest usable address of the thread's stack
  std::uintptr_t stack_hi = 0;
  unsigned worker = 0;
  bool active = false;
  void* alt_stack = nullptr;
  ~thread_watch() {
    if (alt_stack == nullptr) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    ::sigaltstack(&off, nullptr);
    ::munmap(alt_stack, alt_stack_bytes);
  }
};
thread_local thread_watch tls_watch;

// Handler state: written under `install_mutex` while no phase runs, read by the handler.
std::mutex install_mutex;
unsigned installs = 0;
struct sigaction previous_segv {
}, previous_bus{};
std::atomic<std::size_t> helper_stack_kib{0};
std::atomic<unsigned (*)() noexcept> depth_reader{nullptr};

// Async-signal-safe output: no stdio, no allocation.
void put(const char* s) noexcept { (void)!::write(2, s, std::strlen(s)); }
void put(std::uint64_t v) noexcept {
  char buf[24];
  char* p = buf + sizeof(buf);
  *--p = '\0';
  do *--p = static_cast<char>('0' + v % 10);
  while ((v /= 10) != 0);
  put(p);
}

void chain(int sig, siginfo_t* info, void* context) noexcept {
  const struct sigaction& prev = sig == SIGBUS ? previous_bus : previous_segv;
  if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction != nullptr) {
    prev.sa_sigaction(sig, info, context);
    return;
  }
  if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler != nullptr) {
    prev.sa_handler(sig);
    return;
  }
  // Default action: reinstall it and return; the faulting instruction runs again and kills the process.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
}

// The stack pointer at the fault, or 0 where we do not know how to read it.
std::uintptr_t stack_pointer_of(const void* context) noexcept {
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  return static_cast<std::uintptr_t>(uc->uc_mcontext.sp);
#else
  (void)uc;
  return 0;
#endif
}

void on_fault(int sig, siginfo_t* info, void* context) noexcept {
  const thread_watch& w = tls_watch;
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  // Up to 128 KiB above stack_lo too: glibc may count a helper's guard in its reported stack.
  const std::uintptr_t floor = w.stack_lo + (128u << 10);
  // An overflow has also run the stack pointer down to the floor. The address
  // alone is not enough: a wild pointer (say, a child task writing through a
  // local of a frame an exception already unwound, which corrupts the frames
  // now living there) can land near the floor of a shallow stack, and was
  // then reported as "stack overflow at task nesting depth 1".
  // (Code never touches more than the 128-byte red zone below the stack
  // pointer, so at a genuine overflow sp is within a page of the fault.)
  const std::uintptr_t sp = stack_pointer_of(context);
  const bool overflow = w.active && addr < floor && addr + guard_zone >= w.stack_lo && (sp == 0 || sp < floor + 4096);
  if (!overflow) return chain(sig, info, context);
  put("cws: stack overflow on worker ");
  put(w.worker);
  if (auto depth = depth_reader.load(std::memory_order_relaxed)) {
    put(" at task nesting depth ");
    put(depth());
  }
  put(" (helper stacks: CWS_STACK_KIB=");
  put(helper_stack_kib.load(std::memory_order_relaxed));
  put("; worker 0 is the calling thread, stack limit ");
  const std::size_t limit = caller_stack_limit_kib();
  if (limit == 0)
    put("unlimited");
  else {
    put(limit);
    put(" KiB, ulimit -s");
  }
  put(")\n");
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigemptyset(&dfl.sa_mask);
  ::sigaction(SIGABRT, &dfl, nullptr);
  std::abort();
}

}  // namespace

std::size_t caller_stack_limit_kib() noexcept {
  rlimit r{};
  if (::getrlimit(RLIMIT_STACK, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return 0;
  return static_cast<std::size_t>(r.rlim_cur / 1024);
}

overflow_handler::overflow_handler(std::size_t stack_kib, unsigned (*depth_of_this_thread)() noexcept) {
  std::lock_guard lock(install_mutex);
  helper_stack_kib.store(stack_kib, std::memory_order_relaxed);
  depth_reader.store(depth_of_this_thread, std::memory_order_relaxed);
  if (installs++ != 0) return;
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  ::sigemptyset(&sa.sa_mask);
  if (::sigaction(SIGSEGV, &sa, &previous_segv) != 0 || ::sigaction(SIGBUS, &sa, &previous_bus) != 0) {
    --installs;
    throw error(std::string("cannot install the stack-overflow handler: ") + std::strerror(errno));
  }
}

overflow_handler::~overflow_handler() {
  std::lock_guard lock(install_mutex);
  if (--installs != 0) return;
  // Put back what was there, unless someone replaced our handler meanwhile.
  struct sigaction current {};
  if (::sigaction(SIGSEGV, nullptr, &current) == 0 && current.sa_sigaction == on_fault)
    ::sigaction(SIGSEGV, &previous_segv, nullptr);
  if (::sigaction(SIGBUS, nullptr, &current) == 0 && current.sa_sigaction == on_fault)
    ::sigaction(SIGBUS, &previous_bus, nullptr);
}

void watch_this_thread(unsigned id) {
  thread_watch& w = tls_watch;
  w.worker = id;
  if (w.active) return;
  pthread_attr_t attr;
  if (::pthread_getattr_np(::pthread_self(), &attr) != 0) return;  // no bounds: faults pass through
  void* addr = nullptr;
  std::size_t size = 0;
  const bool bounds = ::pthread_attr_getstack(&attr, &addr, &size) == 0;
  ::pthread_attr_destroy(&attr);
  if (!bounds) return;
  // Keep an alternate stack the program installed; else give the thread ours.
  stack_t current{};
  if (::sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
    void* mem = ::mmap(nullptr, alt_stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return;
    stack_t ss{};
    ss.ss_sp = mem;
    ss.ss_size = alt_stack_bytes;
    if (::sigaltstack(&ss, nullptr) != 0) {
      ::munmap(mem, alt_stack_bytes);
      return;
    }
    w.alt_stack = mem;
  }
  w.stack_lo = reinterpret_cast<std::uintptr_t>(addr);
  w.stack_hi = w.stack_lo + size;
  w.active = true;
}

}  // namespace cws::detail
