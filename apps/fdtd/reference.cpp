#include "fdtd/reference.hpp"

namespace fdtd {

reference_fields reference_run(std::size_t nx, std::size_t ny, unsigned tmax) {
  reference_fields r{std::vector<double>(nx * ny), std::vector<double>(nx * ny), std::vector<double>(nx * ny)};
  double* const ex = r.ex.data();
  double* const ey = r.ey.data();
  double* const hz = r.hz.data();
  const auto at = [ny](std::size_t i, std::size_t j) { return i * ny + j; };
  for (std::size_t i = 0; i < nx; ++i)
    for (std::size_t j = 0; j < ny; ++j) {
      ex[at(i, j)] = static_cast<double>(i) * static_cast<double>(j + 1) / static_cast<double>(nx);
      ey[at(i, j)] = static_cast<double>(i) * static_cast<double>(j + 2) / static_cast<double>(ny);
      hz[at(i, j)] = static_cast<double>(i) * static_cast<double>(j + 3) / static_cast<double>(nx);
    }
  for (unsigned t = 0; t < tmax; ++t) {
    for (std::size_t j = 0; j < ny; ++j) ey[at(0, j)] = static_cast<double>(t);
    for (std::size_t i = 1; i < nx; ++i)
      for (std::size_t j = 0; j < ny; ++j) ey[at(i, j)] = ey[at(i, j)] - 0.5 * (hz[at(i, j)] - hz[at(i - 1, j)]);
    for (std::size_t i = 0; i < nx; ++i)
      for (std::size_t j = 1; j < ny; ++j) ex[at(i, j)] = ex[at(i, j)] - 0.5 * (hz[at(i, j)] - hz[at(i, j - 1)]);
    for (std::size_t i = 0; i + 1 < nx; ++i)
      for (std::size_t j = 0; j + 1 < ny; ++j)
        hz[at(i, j)] = hz[at(i, j)] - 0.7 * (ex[at(i, j + 1)] - ex[at(i, j)] + ey[at(i + 1, j)] - ey[at(i, j)]);
  }
  return r;
}

}  // namespace fdtd
