#include "phases/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace phases {

std::string label_of(std::size_t kib) {
  if (kib == 0) return "empty";
  return kib % 1024 == 0 ? fmt::format("{}MiB", kib / 1024) : fmt::format("{}KiB", kib);
}

unsigned calls_for(std::size_t kib, unsigned most) {
  if (kib == 0) return most;
  constexpr std::size_t budget_kib = 256 * 1024;
  return static_cast<unsigned>(std::clamp<std::size_t>(budget_kib / (2 * kib), std::min(3u, most), std::size_t{most}));
}

unsigned cycles_for(double gap_s) { return std::max(5u, static_cast<unsigned>(0.1 / gap_s)); }

std::vector<size_case> size_cases(const std::vector<std::size_t>& sizes_kib, unsigned most_calls) {
  std::vector<size_case> sizes;
  for (const std::size_t kib : sizes_kib)
    if (std::none_of(sizes.begin(), sizes.end(), [&](const size_case& s) { return s.kib == kib; }))
      sizes.push_back({kib, kib * 1024 / sizeof(double), label_of(kib), calls_for(kib, most_calls)});
  return sizes;
}

size_case gap_case(std::size_t kib) { return {kib, kib * 1024 / sizeof(double), "gaps", 0}; }

}  // namespace phases
