#pragma once
// fib(n) with one spawn per call and no cutoff, so nearly all the time is
// task creation, sync and stealing: cws-fib's benchmark, and the kernel of
// cws-recording's overhead figure. Under cws (cws::spawn / cws::sync) and
// under TBB (a task_group per call), the serial recursion that gives the
// expected value, and the counts to check them against.

#include <cstdint>

namespace cws_apps::spawning_fib {

std::uint64_t serial(unsigned n);
// Call inside a cws phase (rt.run): every call with n >= 2 spawns fib(n - 1).
std::uint64_t with_cws(unsigned n);
// Call inside the TBB arena: every call with n >= 2 runs fib(n - 1) in its task_group.
std::uint64_t with_tbb(unsigned n);

// fib(n) by iteration: the value the recursions must give, in n steps.
std::uint64_t value(unsigned n);
// Calls with n >= 2, i.e. spawns (cws) or task_group::run calls (TBB): fib(n+1) - 1.
std::uint64_t spawn_count(unsigned n);

// v, hidden from the optimizer behind an empty asm: serial() may be proved
// pure and an earlier result reused; an opaque argument forces a fresh
// evaluation each time.
unsigned opaque(unsigned v);

}  // namespace cws_apps::spawning_fib
