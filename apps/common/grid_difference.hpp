#pragma once
// The verification step the grid apps share: where a variant's result first
// differs from the serial program's, compared bit for bit (the kernels compute
// each value with the same operations in the same order in every variant, so
// even a NaN or the sign of a zero must match).

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace cws_apps {

// First index where a and b differ (n values), n when they are equal; `count`
// gets the number of differing values.
template <class T>
std::size_t first_difference(const T* a, const T* b, std::size_t n, std::size_t& count) {
  const auto bits = [](T x) {
    if constexpr (std::floating_point<T>)
      return std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(x);
    else
      return x;
  };
  std::size_t first = n;
  count = 0;
  for (std::size_t k = 0; k < n; ++k)
    if (bits(a[k]) != bits(b[k]) && count++ == 0) first = k;
  return first;
}

// "<name>: 3 <what> differ from the serial program, first at row 1 column 2
// (0.5 instead of 0.25)" for a row-major grid of n values, `cols` per row, when
// `got` is not `want` (`what`: "cell(s)"); "" when they are equal.
template <class T>
std::string grid_difference(const std::string& name, const std::string& what, const T* got, const T* want,
                            std::size_t n, std::size_t cols) {
  std::size_t count = 0;
  const std::size_t first = first_difference(got, want, n, count);
  if (count == 0) return "";
  return fmt::format("{}: {} {} differ from the serial program, first at row {} column {} ({} instead of {})", name,
                     count, what, first / cols, first % cols, got[first], want[first]);
}

}  // namespace cws_apps
