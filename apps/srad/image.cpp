#include "srad/image.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "common/cell_values.hpp"

namespace srad {

namespace {

using cws_apps::unit_value;

}  // namespace

void init_rows(const image& m, std::size_t lo, std::size_t hi) {
  for (std::size_t i = lo; i < hi; ++i) {
    const std::size_t row = i * m.cols;
    for (std::size_t j = 0; j < m.cols; ++j) {
      const float v = unit_value(i, j);
      m.I[row + j] = v;
      m.J[row + j] = std::exp(v);
    }
    for (float* a : {m.c, m.dN, m.dS, m.dW, m.dE}) std::fill(a + row, a + row + m.cols, 0.0f);
  }
}

float q0sqr(const image& m) {
  const std::size_t rows = std::min(roi_edge, m.rows), cols = std::min(roi_edge, m.cols);
  double sum = 0, sum2 = 0;
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      const double v = m.J[i * m.cols + j];
      sum += v;
      sum2 += v * v;
    }
  const double size = static_cast<double>(rows * cols);
  const double mean = sum / size, variance = sum2 / size - mean * mean;
  return static_cast<float>(variance / (mean * mean));
}

void coefficient_rows(const image& m, std::size_t lo, std::size_t hi, float q0sqr) {
  const std::size_t cols = m.cols;
  const float scale = q0sqr * (1.0f + q0sqr);
  for (std::size_t i = lo; i < hi; ++i) {
    const std::size_t north = (i == 0 ? 0 : i - 1) * cols, south = (i + 1 == m.rows ? i : i + 1) * cols;
    const std::size_t row = i * cols;
    for (std::size_t j = 0; j < cols; ++j) {
      const std::size_t k = row + j, west = j == 0 ? 0 : j - 1, east = j + 1 == cols ? j : j + 1;
      const float centre = m.J[k];
      const float n = m.J[north + j] - centre, s = m.J[south + j] - centre;
      const float w = m.J[row + west] - centre, e = m.J[row + east] - centre;
      m.dN[k] = n, m.dS[k] = s, m.dW[k] = w, m.dE[k] = e;
      const float g2 = (n * n + s * s + w * w + e * e) / (centre * centre);
      const float l = (n + s + w + e) / centre;
      const float num = 0.5f * g2 - 0.0625f * (l * l);
      const float den = 1.0f + 0.25f * l;
      const float qsqr = num / (den * den);
      const float coefficient = 1.0f / (1.0f + (qsqr - q0sqr) / scale);
      m.c[k] = coefficient < 0.0f ? 0.0f : coefficient > 1.0f ? 1.0f : coefficient;
    }
  }
}

void update_rows(const image& m, std::size_t lo, std::size_t hi) {
  const std::size_t cols = m.cols;
  constexpr float step = 0.25f * lambda;
  for (std::size_t i = lo; i < hi; ++i) {
    const std::size_t row = i * cols, south = (i + 1 == m.rows ? i : i + 1) * cols;
    for (std::size_t j = 0; j < cols; ++j) {
      const std::size_t k = row + j, east = j + 1 == cols ? j : j + 1;
      const float d = m.c[k] * m.dN[k] + m.c[south + j] * m.dS[k] + m.c[k] * m.dW[k] + m.c[row + east] * m.dE[k];
      m.J[k] = m.J[k] + step * d;
    }
  }
}

std::vector<float> serial_run(std::size_t rows, std::size_t cols, unsigned iterations, float& first_q0sqr) {
  const std::size_t n = rows * cols;
  std::vector<float> J(n);
  {
    std::vector<float> I(n), c(n), dN(n), dS(n), dW(n), dE(n);
    const image m{I.data(), J.data(), c.data(), dN.data(), dS.data(), dW.data(), dE.data(), rows, cols};
    init_rows(m, 0, rows);
    first_q0sqr = q0sqr(m);
    for (unsigned it = 0; it < iterations; ++it) {
      const float q = q0sqr(m);
      coefficient_rows(m, 0, rows, q);
      update_rows(m, 0, rows);
    }
  }
  return J;
}

}  // namespace srad
