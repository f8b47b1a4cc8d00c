#pragma once
// The phase sizes of cws-phases (--sizes, KiB per array) and how often each
// is called: the timed calls per run of a size, and the phases per gap length
// of the CPU-in-gaps figure.

#include <cstddef>
#include <string>
#include <vector>

namespace phases {

struct size_case {
  std::size_t kib = 0;       // bytes of each array / 1024; 0: the empty phase
  std::size_t elements = 0;  // doubles of each array the phase covers
  std::string label;         // "empty", "1KiB", "64MiB": table column, timer series, schedule name
  unsigned calls = 0;        // timed calls per run
};

// "empty", "<k>KiB", or "<m>MiB" for whole MiB.
std::string label_of(std::size_t kib);

// Timed calls per run: about 256 MiB of the two arrays per size and run, so a
// run of a large size takes tens of milliseconds, not seconds; at least 3,
// at most `most` (--iters).
unsigned calls_for(std::size_t kib, unsigned most);

// Phases per gap length and run: about 100 ms of gaps, at least 5, so that
// the CPU clocks' tick granularity at both ends (gap_cpu.hpp) stays small.
unsigned cycles_for(double gap_s);

// The cases of --sizes, in their order, without repeats; `most_calls`: --iters.
std::vector<size_case> size_cases(const std::vector<std::size_t>& sizes_kib, unsigned most_calls);

// The phases between the gaps: `kib` per array, label "gaps", no timed calls.
size_case gap_case(std::size_t kib);

}  // namespace phases
