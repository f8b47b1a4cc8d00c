#pragma once
// Helpers shared by the runtime test suites.

#include <chrono>
#include <cstdint>
#include <string>

#include "cws/cws.hpp"

namespace cws::test {

// A config independent of the caller's CWS_* environment, and of the
// machine's NUMA nodes: stows and stuws take their first run as the template
// (CWS_TEMPLATE_TRIES=1), which by default they do on a NUMA machine only
// (test_template_pick tests the other bounds).
inline runtime_config config(unsigned workers, std::string synthetic = {}) {
  runtime_config c;
  c.workers = workers;
  if (!synthetic.empty()) c.topology = synthetic;
  schedulers::knobs_of(c).replay.template_tries = 1;
  // ctest -j's other tests take the cores: evolve's reaction to that
  // (`contended`) is tested with given switch counts, not left to the machine.
  schedulers::knobs_of(c).replay.evolve_contention = false;
  // Likewise a strict replay's spawner would run a designated task whose
  // thief lost its core (CWS_REPLAY_GRACE_US): tested in test_replay_grace.
  schedulers::knobs_of(c).replay.grace_us = 0;
  // And whether a small replay runs alone is decided by timing it
  // (CWS_REPLAY_ALONE_US): tested in test_alone_trial with given times.
  schedulers::knobs_of(c).replay.alone_us = 0;
  return c;
}

// Four virtual cores on two NUMA nodes, pinned round-robin onto the real PUs.
inline const std::string four_cores = "pack:2 numa:1 core:2 pu:1";
inline const std::string eight_cores = "pack:4 numa:1 core:2 pu:1";

inline std::uint64_t serial_fib(unsigned n) { return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2); }

inline std::uint64_t fib(unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0;
  cws::spawn([&a, n] { a = fib(n - 1); });
  std::uint64_t b = fib(n - 2);
  cws::sync();
  return a + b;
}

// Busy work for about `d` of wall time on any machine (it watches the
// clock), stepping an LCG from `seed` so that the loop does work; returns
// the LCG's state.
inline std::uint64_t spin_for(std::chrono::microseconds d, std::uint64_t seed) {
  const auto until = std::chrono::steady_clock::now() + d;
  std::uint64_t x = seed;
  while (std::chrono::steady_clock::now() < until) x = x * 6364136223846793005ull + 1;
  return x;
}

// Spins until `done()` or a generous deadline; false on the deadline, so
// that a test waiting on another thread fails instead of hanging.
template <class Done>
bool wait_for(Done done, std::chrono::seconds deadline = std::chrono::seconds(20)) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (!done())
    if (std::chrono::steady_clock::now() > until) return false;
  return true;
}

// Number of spawns fib(n) performs (one per call with n >= 2).
inline std::uint64_t fib_spawns(unsigned n) { return n < 2 ? 0 : 1 + fib_spawns(n - 1) + fib_spawns(n - 2); }

}  // namespace cws::test
