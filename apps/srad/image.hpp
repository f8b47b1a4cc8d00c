#pragma once
// The kernel of cws-srad: speckle-reducing anisotropic diffusion, Rodinia's
// SRAD v1 as PufferFish's SRAD benchmark runs it, on rows x cols floats.
//
// Seven arrays, row-major: the input I, the image J = exp(I), the diffusion
// coefficient c and the four directional differences dN, dS, dW, dE.
// Neighbours are clamped at the edges (row -1 is row 0, and so on).
//
// One iteration:
//   1. serial: mean and variance of J over the region of interest (rows and
//      columns 0 .. 127) give q0sqr = variance / mean^2;
//   2. loop 1 over rows: dN..dE = the differences to the four neighbours,
//      G2 = (dN^2 + dS^2 + dW^2 + dE^2) / J^2, L = (dN + dS + dW + dE) / J,
//      q^2 = (G2/2 - L^2/16) / (1 + L/4)^2,
//      c = 1 / (1 + (q^2 - q0sqr) / (q0sqr (1 + q0sqr))), clamped to [0, 1];
//   3. loop 2 over rows: D = c dN + c[south] dS + c dW + c[east] dE,
//      J += lambda / 4 * D.
// Loop 1 writes only c and d*, reading J; loop 2 writes only J, reading c
// and d*. Each element is computed by one task from the same operands with
// the same operations as in the serial loops, so any row split gives the
// serial program's bits. All arithmetic is in float (the artifact's element
// type; Rodinia's double literals would promote parts of it to double); the
// region statistics are summed in double. The target is built with
// -ffp-contract=off, so that no build contracts a*b+c into an FMA in one loop
// and not in another.

#include <cstddef>
#include <vector>

namespace srad {

inline constexpr float lambda = 0.5f;
inline constexpr std::size_t roi_edge = 128;  // rows and columns [0, 128) of the region of interest

struct image {
  float* I;
  float* J;
  float* c;
  float* dN;
  float* dS;
  float* dW;
  float* dE;
  std::size_t rows, cols;
};

// Rows [lo, hi) of the initial arrays (their first touch): I a value in
// (0, 1) hashed from (i, j), J = exp(I), c and d* zero.
void init_rows(const image& m, std::size_t lo, std::size_t hi);

// q0sqr of J over the region of interest (clamped to the image). Serial.
float q0sqr(const image& m);

// Loop 1 over rows [lo, hi): dN, dS, dW, dE and c.
void coefficient_rows(const image& m, std::size_t lo, std::size_t hi, float q0sqr);

// Loop 2 over rows [lo, hi): J.
void update_rows(const image& m, std::size_t lo, std::size_t hi);

// The serial program's J after `iterations`, with its own seven arrays (freed
// before it returns, but J), its own loops and the same row kernels.
// `first_q0sqr` gets the first iteration's q0sqr.
std::vector<float> serial_run(std::size_t rows, std::size_t cols, unsigned iterations, float& first_q0sqr);

}  // namespace srad
