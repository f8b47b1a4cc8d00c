#include "floyd/reference.hpp"

namespace floyd {

std::vector<int> reference_run(std::size_t n, std::size_t steps) {
  std::vector<int> path(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      path[i * n + j] = static_cast<int>(i * j % 7) + 1;
      if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0) path[i * n + j] = 999;
    }
  for (std::size_t k = 0; k < steps; ++k)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        const int through = path[i * n + k] + path[k * n + j];
        path[i * n + j] = path[i * n + j] < through ? path[i * n + j] : through;
      }
  return path;
}

}  // namespace floyd
