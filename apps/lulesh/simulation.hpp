#pragma once
// The driver: LULESH's time-step loop (TimeIncrement, then LagrangeLeapFrog:
// nodal, elements, material, time constraints) until the stop time or a
// cycle limit, and what a run is checked by: its cycle count, the final
// energy of the element at the origin, and the symmetry of the energies in
// plane 0 (the problem is symmetric under swapping x and y).

#include <cstdint>
#include <optional>

#include "lulesh/domain.hpp"
#include "lulesh/loops.hpp"

namespace lulesh {

// One leapfrog step: nodal, elements, material, time constraints.
void leapfrog(domain& d, loop_runner& loops);

// Plane 0's energies compared across the diagonal (LULESH's final check):
// e(row j, col k) against e(row k, col j).
struct symmetry {
  double max_abs_diff = 0;
  double total_abs_diff = 0;
  double max_rel_diff = 0;  // |difference| / e(k, j); 0 when both are 0, infinite when only the divisor is
};
symmetry plane0_symmetry(const domain& d);

struct outcome {
  std::int64_t cycles = 0;
  double final_time = 0;
  double origin_energy = 0;  // e of element 0 at the end
  symmetry sym;
};

// Runs cycles from the domain's current state (d.setup() first) until the
// stop time, or until `max_cycles` cycles (0: no limit), and summarizes the
// final state. Throws std::runtime_error when the physics failed (negative
// volume, excessive q).
outcome simulate(domain& d, loop_runner& loops, std::int64_t max_cycles = 0);

// LULESH 2.0's published results of a full run (single domain, run to the
// stop time): cycles and final origin energy (six decimals, %.6e) for the
// sizes it lists; nullopt for other sizes or other initial conditions.
struct reference {
  std::int64_t cycles;
  double origin_energy;
};
std::optional<reference> published_reference(std::size_t edge, initial_conditions start);

// Whether `energy` printed as %.6e reads as `ref.origin_energy` does.
bool matches_printed(double energy, double printed);

}  // namespace lulesh
