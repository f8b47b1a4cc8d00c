#pragma once
// LagrangeNodal: the forces on the nodes (stresses and hourglass control,
// each computed per element corner and then gathered per node), then the
// accelerations, velocities and positions. Nine loops; the state they read
// and write is in the domain.

#include "lulesh/domain.hpp"
#include "lulesh/loops.hpp"

namespace lulesh {

// One nodal half of a leapfrog step with the domain's current time step.
// Throws std::runtime_error when an element's volume became negative.
void lagrange_nodal(domain& d, loop_runner& loops);

}  // namespace lulesh
