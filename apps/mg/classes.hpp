#pragma once
// The NAS MG problem classes (NPB 3.3 and later): grid size, V-cycle count,
// smoother coefficients and the official verification value of the final
// residual norm, plus NPB's verification test and Mop/s formula.

#include <array>
#include <string>
#include <string_view>

namespace mg {

// The operator A of the multigrid problem (-Laplacian discretized on 27
// points): weights of the centre, the 6 faces, the 12 edges, the 8 corners.
// The face weight is 0, so the kernels drop that term (as NPB does).
inline constexpr std::array<double, 4> operator_a{-8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0};

struct class_params {
  char name = 'S';
  unsigned log2_size = 5;          // lt: the finest level has 2^lt interior points per dimension
  unsigned iterations = 4;         // nit: V-cycles
  std::array<double, 4> smoother;  // c: centre, faces, edges, corners (corners 0)
  double verify_value = 0;         // official rnm2 after the last V-cycle
  std::size_t size() const noexcept { return std::size_t{1} << log2_size; }
};

// The classes this app runs: S (32^3, 4 its), W (128^3, 4), A (256^3, 4),
// B (256^3, 20, another smoother), C (512^3, 20), D (1024^3, 50; SC14's size).
// Throws std::invalid_argument for any other name (E's official value
// differs between NPB copies).
const class_params& class_named(char name);
// "SWABCD".
std::string_view class_names() noexcept;

// NPB's test: |rnm2 - verify_value| / verify_value <= 1e-8 (NPB 3.3's relative
// epsilon; NPB 3.0's absolute test is vacuous at these magnitudes).
inline constexpr double verify_epsilon = 1.0e-8;
double relative_error(double rnm2, const class_params& c) noexcept;
bool verified(double rnm2, const class_params& c) noexcept;

// NPB's rate for a timed region of `seconds`: 58 x nit x n^3 operations, in
// millions per second.
double mops(const class_params& c, double seconds) noexcept;

}  // namespace mg
