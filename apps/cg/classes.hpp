#pragma once
// The NAS CG problem classes (NPB 3.3 / 3.4): sizes, the official zeta each
// must reproduce, NPB's verification tolerance and its operation count.

#include <optional>
#include <string>
#include <string_view>

namespace cg {

struct problem_class {
  char name = 'S';
  int na = 0;        // rows (and columns) of the matrix
  int nonzer = 0;    // random nonzeros per generating vector
  int niter = 0;     // outer (inverse power) iterations of the timed loop
  double shift = 0;  // the eigenvalue shift
  double rcond = 0.1;
  double zeta_ref = 0;  // NPB's zeta_verify_value after niter iterations
};

// NPB's relative tolerance on zeta: |zeta - zeta_ref| / zeta_ref <= 1e-10.
inline constexpr double zeta_tolerance = 1.0e-10;

// Conjugate-gradient steps per outer iteration (NPB's cgitmax), no convergence test.
inline constexpr int cg_steps = 25;

// Class S, W, A, B or C; std::nullopt for any other name.
std::optional<problem_class> find_class(std::string_view name);
// "S, W, A, B, C".
std::string class_names();

// NPB's operation count of `iterations` outer iterations (the numerator of its
// Mop/s): 2 iterations na (3 + nonzer (nonzer + 1) + 25 (5 + nonzer (nonzer + 1)) + 3).
double operations(const problem_class& c, int iterations);

// zeta after `iterations` outer iterations from x = 1: the official value at
// the class's niter; for classes S and W also a few intermediate values
// (1, 2, 5, 10 iterations) of an independent reproduction, useful to verify
// short runs. std::nullopt when no reference is known.
std::optional<double> reference_zeta(const problem_class& c, int iterations);

// |zeta - ref| / ref <= zeta_tolerance (false for NaN).
bool zeta_matches(double zeta, double ref) noexcept;

}  // namespace cg
