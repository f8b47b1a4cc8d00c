#pragma once
// LagrangeElements' first half: the element kinematics (new volumes, strain
// rates) and the monotonic artificial viscosity (gradients, then the limited
// linear and quadratic terms). Four loops.

#include "lulesh/domain.hpp"
#include "lulesh/loops.hpp"

namespace lulesh {

// Throws std::runtime_error when a volume became negative or q exceeded qstop.
void lagrange_elements(domain& d, loop_runner& loops);

}  // namespace lulesh
