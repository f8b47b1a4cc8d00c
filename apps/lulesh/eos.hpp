#pragma once
// LagrangeElements' second half: the material update. The relative volumes
// are bounded, the ideal-gas equation of state advances energy, pressure and
// artificial viscosity through LULESH's predictor-corrector stages (the
// pressure evaluated three times), then the sound speed and the volumes are
// updated. Fifteen loops (LULESH 2.0 with a single region: every element has
// the same material, so the region index lists are the identity).

#include "lulesh/domain.hpp"
#include "lulesh/loops.hpp"

namespace lulesh {

// Throws std::runtime_error when a relative volume is not positive.
void apply_material(domain& d, loop_runner& loops);

}  // namespace lulesh
