#pragma once
// The time step: the Courant and hydro constraints of the elements (one
// loop, two min-reductions) and LULESH's TimeIncrement, which turns the
// previous cycle's constraints into the next step (at most 20% longer, at
// most dtmax, landing exactly on the stop time).

#include "lulesh/domain.hpp"
#include "lulesh/loops.hpp"

namespace lulesh {

// Sets d.clock.dtcourant and d.clock.dthydro from the current state.
void time_constraints(domain& d, loop_runner& loops);

// Advances d.clock: the next time step from the constraints (from the second
// cycle on), then time and cycle.
void time_increment(domain& d);

}  // namespace lulesh
