#include "lulesh/loops.hpp"

namespace lulesh {

const loop_site& site(loop_id id) noexcept {
  static constexpr loop_site sites[loop_count] = {{"setup_nodes", extent::nodes},
                                                  {"setup_elements", extent::elements},
                                                  {"setup_mass", extent::nodes},
                                                  {"stress_init", extent::elements},
                                                  {"stress_integrate", extent::elements},
                                                  {"stress_gather", extent::nodes},
                                                  {"hourglass_prep", extent::elements},
                                                  {"hourglass_force", extent::elements},
                                                  {"hourglass_gather", extent::nodes},
                                                  {"acceleration", extent::nodes},
                                                  {"velocity", extent::nodes},
                                                  {"position", extent::nodes},
                                                  {"kinematics", extent::elements},
                                                  {"strain", extent::elements},
                                                  {"monoq_gradients", extent::elements},
                                                  {"monoq_region", extent::elements},
                                                  {"material", extent::elements},
                                                  {"eos_gather", extent::elements},
                                                  {"eos_compression", extent::elements},
                                                  {"energy_predict", extent::elements},
                                                  {"pressure_half", extent::elements},
                                                  {"energy_correct", extent::elements},
                                                  {"energy_work", extent::elements},
                                                  {"pressure_full", extent::elements},
                                                  {"energy_final", extent::elements},
                                                  {"pressure_final", extent::elements},
                                                  {"viscosity_final", extent::elements},
                                                  {"eos_store", extent::elements},
                                                  {"sound_speed", extent::elements},
                                                  {"volume_update", extent::elements},
                                                  {"time_constraints", extent::elements}};
  return sites[index(id)];
}

}  // namespace lulesh
