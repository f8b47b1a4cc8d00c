#include "phases/kernel.hpp"

namespace phases {

void scale_add(double* a, const double* b, std::size_t lo, std::size_t hi) {
  for (std::size_t i = lo; i < hi; ++i) a[i] = a[i] * scale + b[i];
}

void fill(double* a, double* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = 1.0 + static_cast<double>(i % 7) / 8.0;
    b[i] = 1.0 + static_cast<double>(i % 5) / 8.0;
  }
}

double checksum(const double* a, std::size_t n) {
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += a[i];
  return sum;
}

}  // namespace phases
