#pragma once
// What every run of cws-lulesh must satisfy: the same number of cycles and
// bit for bit the same final origin energy as the serial run (the loops are
// deterministic, so any difference is a bug), plane 0 symmetric to 1e-8
// relative, and, for the serial run to the stop time at a size LULESH 2.0
// publishes, its cycle count and origin energy as printed there.

#include <optional>
#include <string>

#include "lulesh/simulation.hpp"

namespace lulesh {

inline constexpr double symmetry_tolerance = 1e-8;  // max relative difference in plane 0

// Why `run` differs from `serial`'s result or is not symmetric; nullopt when it passes.
std::optional<std::string> mismatch(const outcome& run, const outcome& serial);

// Why the serial run of an edge^3 problem from `start` disagrees with LULESH's
// published result; nullopt when it agrees or nothing is published for it
// (another size, other initial conditions, or a run cut short by a cycle limit).
std::optional<std::string> against_reference(const outcome& serial, std::size_t edge, initial_conditions start,
                                             bool to_stop_time);

}  // namespace lulesh
