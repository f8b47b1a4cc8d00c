#pragma once
// Counts every call of the global operator new (all forms, all threads) in the
// test binary that links counting_new.cpp, which replaces operator new and
// delete. Used to show that per-phase bookkeeping allocates nothing in steady
// state: read the count before and after a stretch of phases.

#include <cstdint>

namespace cws::test {

// Global operator new calls so far (relaxed: read between phases, when the
// workers are parked).
std::uint64_t allocations() noexcept;
// False in a sanitizer build, where operator new is not replaced (the count
// stays 0).
bool counting() noexcept;

}  // namespace cws::test
