#pragma once
// The serial floyd-warshall program as PolyBench/C 4.2 writes it (init, then
// the triple loop, every i and j of every step, row and column k included),
// kept apart from the tile kernel of paths.cpp so that the verification does
// not trust the code it checks.

#include <cstddef>
#include <vector>

namespace floyd {

// The matrix after the first `steps` steps (k = 0 .. steps-1; steps = n is
// the whole algorithm) on n vertices.
std::vector<int> reference_run(std::size_t n, std::size_t steps);

}  // namespace floyd
