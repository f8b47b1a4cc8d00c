#pragma once
// The variant names of the loop flavours (block_loops.hpp) the apps share,
// so that an app lists its baselines by name ({"tbb-simple", "omp-static"})
// and every app calls a flavour the same: serial, tbb-auto, tbb-simple,
// tbb-static, tbb-affinity, omp-static. A cws variant's flavour depends on
// its policy instead (cws_flavour_of).

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <cws/cws.hpp>

#include "common/block_loops.hpp"

namespace cws_apps {

// The flavour of the variant named `name`; throws std::invalid_argument for
// a name that is none of the above.
inline loop_flavour flavour_named(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, loop_flavour>, 6> names{
      {{"serial", loop_flavour::serial},
       {"tbb-auto", loop_flavour::tbb_auto},
       {"tbb-simple", loop_flavour::tbb_simple},
       {"tbb-static", loop_flavour::tbb_static},
       {"tbb-affinity", loop_flavour::tbb_affinity},
       {"omp-static", loop_flavour::omp_static}}};
  for (const auto& [n, flavour] : names)
    if (n == name) return flavour;
  throw std::invalid_argument("no loop flavour is called '" + std::string(name) + "'");
}

// The flavour of a cws variant under `policy`: the owned ranges of
// parallel_for_range_owned under `user`, the recursive bisection otherwise.
inline loop_flavour cws_flavour_of(std::string_view policy) noexcept {
  return policy == cws::policy::user ? loop_flavour::cws_owned : loop_flavour::cws;
}

}  // namespace cws_apps
