#include "cg/npb_random.hpp"

namespace cg {

namespace {
constexpr std::uint64_t two_23 = std::uint64_t{1} << 23;
constexpr std::uint64_t mask_23 = two_23 - 1;
constexpr std::uint64_t mask_46 = (std::uint64_t{1} << 46) - 1;
constexpr double r46 = 1.0 / static_cast<double>(std::uint64_t{1} << 46);
}  // namespace

double randlc(double& x, double a) noexcept {
  const auto xi = static_cast<std::uint64_t>(x);
  const auto ai = static_cast<std::uint64_t>(a);
  // a * x mod 2^46 with a = a1 2^23 + a2, x = x1 2^23 + x2: the a1 x1 2^46
  // term vanishes, the cross terms matter modulo 2^23 only.
  const std::uint64_t a1 = ai >> 23, a2 = ai & mask_23;
  const std::uint64_t x1 = xi >> 23, x2 = xi & mask_23;
  const std::uint64_t cross = (a1 * x2 + a2 * x1) & mask_23;
  const std::uint64_t next = ((cross << 23) + a2 * x2) & mask_46;
  x = static_cast<double>(next);
  return r46 * x;
}

}  // namespace cg
