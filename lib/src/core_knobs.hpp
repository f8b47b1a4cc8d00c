#pragma once
// The core's own CWS_* table (config.cpp), first in the knob registry
// (env_knobs.cpp).

#include <span>

#include "cws/env_knobs.hpp"

namespace cws::detail {

std::span<const env_knobs::knob> core_knobs() noexcept;

}  // namespace cws::detail
