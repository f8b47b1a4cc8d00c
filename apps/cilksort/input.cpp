#include "cilksort/input.hpp"

#include <fmt/format.h>

#include <utility>

namespace cilksort {

void fill(value* a, const generator& g, std::size_t lo, std::size_t hi) noexcept {
  for (std::size_t i = lo; i < hi; ++i) a[i] = value_at(g, i);
}

digest digest_of(const generator& g, std::size_t n) noexcept {
  digest d;
  for (std::size_t i = 0; i < n; ++i) d.add(value_at(g, i));
  return d;
}

std::string check_sorted(const value* a, std::size_t n, const digest& expected) {
  digest got;
  std::size_t first_descent = n;
  for (std::size_t i = 0; i < n; ++i) {
    got.add(a[i]);
    if (first_descent == n && i > 0 && a[i - 1] > a[i]) first_descent = i;
  }
  if (first_descent < n)
    return fmt::format("output not sorted: a[{}] = {} > a[{}] = {}", first_descent - 1, a[first_descent - 1],
                       first_descent, a[first_descent]);
  if (got == expected) return "";
  std::string fields;
  for (const auto& [name, g, e] : {std::tuple{"count", got.count, expected.count},
                                   {"sum", got.sum, expected.sum},
                                   {"xor", got.xor_all, expected.xor_all},
                                   {"hashed sum", got.mixed_sum, expected.mixed_sum}})
    if (g != e) fields += fmt::format("{}{} {:#x} instead of {:#x}", fields.empty() ? "" : ", ", name, g, e);
  return "output is not a permutation of the input: " + fields;
}

void corrupt(value* a, std::size_t n) noexcept {
  if (n == 0) return;
  if (a[0] != a[n - 1])
    std::swap(a[0], a[n - 1]);
  else
    a[n - 1] += 1;
}

}  // namespace cilksort
