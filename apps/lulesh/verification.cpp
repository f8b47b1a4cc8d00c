#include "lulesh/verification.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstdint>

namespace lulesh {

std::optional<std::string> mismatch(const outcome& run, const outcome& serial) {
  if (run.cycles != serial.cycles)
    return fmt::format("{} cycles instead of the serial run's {}", run.cycles, serial.cycles);
  if (std::bit_cast<std::uint64_t>(run.origin_energy) != std::bit_cast<std::uint64_t>(serial.origin_energy))
    return fmt::format("final origin energy {:.17g} differs from the serial run's {:.17g}", run.origin_energy,
                       serial.origin_energy);
  if (!(run.sym.max_rel_diff < symmetry_tolerance))
    return fmt::format("plane 0 is not symmetric: max relative difference {:.3e} (limit {:.0e})", run.sym.max_rel_diff,
                       symmetry_tolerance);
  return std::nullopt;
}

std::optional<std::string> against_reference(const outcome& serial, std::size_t edge, initial_conditions start,
                                             bool to_stop_time) {
  const auto ref = published_reference(edge, start);
  if (!ref || !to_stop_time) return std::nullopt;
  if (serial.cycles != ref->cycles || !matches_printed(serial.origin_energy, ref->origin_energy))
    return fmt::format(
        "the serial run ({} cycles, origin energy {:.6e}) disagrees with LULESH 2.0's published "
        "result for size {} ({} cycles, {:.6e})",
        serial.cycles, serial.origin_energy, edge, ref->cycles, ref->origin_energy);
  return std::nullopt;
}

}  // namespace lulesh
