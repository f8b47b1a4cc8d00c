#pragma once
// The serial fdtd-2d program as PolyBench/C 4.2 writes it (init, then tmax
// time steps of four whole-array sweeps), kept apart from the row kernels of
// fields.cpp so that the verification does not trust the code it checks.
// Compiled with the same -ffp-contract=off.

#include <cstddef>
#include <vector>

namespace fdtd {

struct reference_fields {
  std::vector<double> ex, ey, hz;
};

// The fields after `tmax` time steps of an nx x ny problem.
reference_fields reference_run(std::size_t nx, std::size_t ny, unsigned tmax);

}  // namespace fdtd
