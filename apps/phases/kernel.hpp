#pragma once
// The loop body of cws-phases, compiled once (kernel.cpp) so that every
// variant runs the same machine code over its leaves and their results can
// be compared exactly: a[i] = a[i] * scale + b[i].
//
// With scale = 0.5 and a, b in [1, 2), a stays in [1, 4) however many
// phases run (it tends to 2 b): no overflow, no denormals, the same cost for
// every call.

#include <cstddef>

namespace phases {

inline constexpr double scale = 0.5;

// a[i] = a[i] * scale + b[i] for i in [lo, hi).
void scale_add(double* a, const double* b, std::size_t lo, std::size_t hi);

// The initial contents of a[0, n) and b[0, n): values in [1, 2) that differ
// from one element to the next, so a leaf run twice or skipped shows up in
// the checksum.
void fill(double* a, double* b, std::size_t n);

// The sum of a[0, n), added up serially in index order (the same rounding
// for every variant).
double checksum(const double* a, std::size_t n);

}  // namespace phases
