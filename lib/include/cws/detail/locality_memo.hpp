#pragma once
// What a schedule's latest locality reports were made from, so that a run
// that touched the same bytes from the same NUMA nodes while no page moved
// reuses one instead of going over every touched page again
// (data_placement::measure, lib/src). Lives in the schedule; only the runtime
// reads or writes it, between phases.
//
// The key is the run's touches per node, in a canonical form: per node, the
// address runs over which the same number of that node's workers touched
// each byte. The report depends on nothing else but the page homes, and the
// form does not depend on how the work was split among a node's workers, so
// a phase under random stealing on one node reuses its report as a replayed
// one does.
//
// A schedule keeps the last two reports: a phase that alternates two buffers
// (a Jacobi sweep reading one grid and writing the other, the grids swapped
// every run) touches the same bytes every other run, and each of its two
// touch sets finds its own report.

#include <array>
#include <cstdint>
#include <vector>

#include "cws/locality.hpp"

namespace cws::detail {

// [begin, end) touched by `count` workers of `node`.
struct coverage_run {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  std::uint32_t count = 0;
  unsigned node = 0;
  friend bool operator==(const coverage_run&, const coverage_run&) = default;
};

// A range of one worker starting (+1) or ending (-1) at `at`: the sweep that
// makes coverage runs.
struct coverage_event {
  unsigned node = 0;
  std::uintptr_t at = 0;
  int delta = 0;
};

// One report and what it was made from.
struct locality_memo_entry {
  std::vector<coverage_run> coverage;  // of the run the report was made from (by node, then address)
  locality_report report;
  std::uint64_t homes_epoch = 0;  // data_placement::homes_epoch() when it was made
  bool valid = false;             // report matches `coverage` at homes_epoch
  unsigned reuses = 0;            // runs that reused it since it was made
  std::uint64_t used_at = 0;      // locality_memo::runs when it was last made or reused
};

struct locality_memo {
  static constexpr std::size_t kept = 2;
  std::array<locality_memo_entry, kept> entries;
  std::uint64_t runs = 0;  // runs measured (orders the entries: the least recently used one is replaced)
  // Scratch of each run (capacity kept: no allocation in steady state).
  std::vector<coverage_run> current;
  std::vector<coverage_event> events, merged;
  std::vector<std::size_t> block_ends;
};

}  // namespace cws::detail
