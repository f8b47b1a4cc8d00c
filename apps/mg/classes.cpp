#include "mg/classes.hpp"

#include <cmath>
#include <stdexcept>

namespace mg {

namespace {

// Smoothers: S, W and A share one, B (and larger) another.
constexpr std::array<double, 4> smoother_swa{-3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0};
constexpr std::array<double, 4> smoother_b{-3.0 / 17.0, 1.0 / 33.0, -1.0 / 61.0, 0.0};

// Official values: NPB 3.3 mg.f (W is NPB 3.3's 128^3 with 4 iterations).
const class_params classes[] = {
    {'S', 5, 4, smoother_swa, 0.5307707005734e-04}, {'W', 7, 4, smoother_swa, 0.6467329375339e-05},
    {'A', 8, 4, smoother_swa, 0.2433365309069e-05}, {'B', 8, 20, smoother_b, 0.1800564401355e-05},
    {'C', 9, 20, smoother_b, 0.5706732285740e-06},  {'D', 10, 50, smoother_b, 0.1583275060440e-09},
};

}  // namespace

const class_params& class_named(char name) {
  for (const class_params& c : classes)
    if (c.name == name) return c;
  throw std::invalid_argument(std::string("unknown NAS MG class '") + name + "' (expected one of S, W, A, B, C, D)");
}

std::string_view class_names() noexcept { return "SWABCD"; }

double relative_error(double rnm2, const class_params& c) noexcept {
  return std::abs(rnm2 - c.verify_value) / c.verify_value;
}

bool verified(double rnm2, const class_params& c) noexcept { return relative_error(rnm2, c) <= verify_epsilon; }

double mops(const class_params& c, double seconds) noexcept {
  const double n = static_cast<double>(c.size());
  return seconds > 0 ? 58.0 * c.iterations * n * n * n * 1.0e-6 / seconds : 0.0;
}

}  // namespace mg
