#pragma once
// The two SC14 workloads with declared touches, for the locality suites: the
// same code runs on synthetic topologies (simulated page homes) and inside
// numa-vm on real multi-node kernels (kernel page homes).
//
//   memcopy   init phase A[i] = B[i] = 0 (first touch), copy phase B[i] = A[i];
//   heat      a Jacobi sweep over rows of one page each (512 doubles), reading
//             rows lo-1 .. hi of `cur`, writing rows lo .. hi-1 of `next`.
// Leaves declare exactly what they touch (touch.hpp). Arrays come from
// cws::numa (first touch or interleaved) and are checked with checksums.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cws/cws.hpp"

namespace cws::test {

inline std::size_t system_page() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

// Mean local share of the given runs' locality reports (phases without one count as 0).
inline double mean_share(const std::vector<double>& shares) {
  double sum = 0;
  for (double s : shares) sum += s;
  return shares.empty() ? 0 : sum / static_cast<double>(shares.size());
}

inline double share_of(const cws::schedule& s) {
  return s.last() && s.last()->locality ? s.last()->locality->share() : 0.0;
}

struct memcopy_scenario {
  cws::runtime& rt;
  std::size_t n;      // elements per array
  std::size_t grain;  // elements per leaf
  cws::numa::array<double> a, b;

  memcopy_scenario(cws::runtime& r, std::size_t pages_per_worker, cws::numa::placement where = cws::numa::first_touch)
      : rt(r),
        n(pages_per_worker * r.workers() * (system_page() / sizeof(double))),
        grain(system_page() / sizeof(double) * 4),  // four pages per leaf
        a(cws::numa::allocate<double>(n, where)),
        b(cws::numa::allocate<double>(n, where)) {}

  void init(cws::schedule& s) {
    leaves(s, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) a[i] = static_cast<double>(i), b[i] = 0;
    });
  }
  // `jitter` != 0: each leaf first spins 0..31 us, a different pseudo-random
  // amount per leaf and per jitter value, as uneven leaves (cache misses,
  // faults, noise) do on a real machine. With uniform leaves a responsive
  // thief on two workers steals the same task every time, and "random"
  // stealing repeats init's split.
  void copy(cws::schedule& s, std::uint64_t jitter = 0) {
    leaves(s, [&](std::size_t lo, std::size_t hi) {
      if (jitter != 0) {
        const std::uint64_t h = (lo / grain + 1) * 0x9e3779b97f4a7c15ull ^ jitter * 0xbf58476d1ce4e5b9ull;
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds((h >> 40) % 32);
        while (std::chrono::steady_clock::now() < until) {
        }
      }
      std::copy(&a[lo], &a[lo] + (hi - lo), &b[lo]);
    });
  }
  // One phase over [0, n): each leaf declares a[lo, hi) and b[lo, hi), then runs `body`.
  template <class Body>
  void leaves(cws::schedule& s, const Body& body) {
    rt.run(s, [&] {
      cws::parallel_for_range(
          0, n,
          [&](std::size_t lo, std::size_t hi) {
            cws::touch(&a[lo], (hi - lo) * sizeof(double));
            cws::touch(&b[lo], (hi - lo) * sizeof(double));
            body(lo, hi);
          },
          grain);
    });
  }
  bool copied() const {
    for (std::size_t i = 0; i < n; ++i)
      if (b[i] != static_cast<double>(i)) return false;
    return true;
  }
};

struct heat_scenario {
  static constexpr std::size_t cols = 512;  // one 4 KiB page per row of doubles
  cws::runtime& rt;
  std::size_t rows;
  std::size_t block;  // rows per leaf
  cws::numa::array<double> grid[2];
  int cur = 0;

  heat_scenario(cws::runtime& r, std::size_t rows_per_worker, std::size_t block_rows,
                cws::numa::placement where = cws::numa::first_touch)
      : rt(r),
        rows(rows_per_worker * r.workers()),
        block(block_rows),
        grid{cws::numa::allocate<double>(rows * cols, where), cws::numa::allocate<double>(rows * cols, where)} {}

  double* row(int g, std::size_t r) { return grid[g].data() + r * cols; }

  void init(cws::schedule& s) {
    rt.run(s, [&] {
      cws::parallel_for_range(
          0, rows,
          [&](std::size_t lo, std::size_t hi) {
            for (int g = 0; g < 2; ++g) {
              cws::touch(row(g, lo), (hi - lo) * cols * sizeof(double));
              for (std::size_t r = lo; r < hi; ++r) std::fill(row(g, r), row(g, r) + cols, r == 0 ? 100.0 : 1.0);
            }
          },
          block);
    });
    cur = 0;
  }
  void step(cws::schedule& s) {
    const int in = cur, out = 1 - cur;
    rt.run(s, [&] {
      cws::parallel_for_range(
          0, rows,
          [&](std::size_t lo, std::size_t hi) {
            const std::size_t rlo = lo == 0 ? 0 : lo - 1, rhi = std::min(rows, hi + 1);
            cws::touch(row(in, rlo), (rhi - rlo) * cols * sizeof(double));
            cws::touch(row(out, lo), (hi - lo) * cols * sizeof(double));
            for (std::size_t r = std::max<std::size_t>(lo, 1); r < std::min(hi, rows - 1); ++r)
              for (std::size_t c = 1; c + 1 < cols; ++c)
                row(out, r)[c] = 0.25 * (row(in, r - 1)[c] + row(in, r + 1)[c] + row(in, r)[c - 1] + row(in, r)[c + 1]);
          },
          block);
    });
    cur = out;
  }
  // Sum of the current grid, to compare against a serial run of the same steps.
  double checksum() {
    double sum = 0;
    for (std::size_t i = 0; i < rows * cols; ++i) sum += grid[cur][i];
    return sum;
  }
  // The same computation without a runtime (spawn and touch run inline).
  static double serial_checksum(std::size_t rows, unsigned steps) {
    std::vector<double> g[2] = {std::vector<double>(rows * cols), std::vector<double>(rows * cols)};
    for (int k = 0; k < 2; ++k)
      for (std::size_t r = 0; r < rows; ++r) std::fill(&g[k][r * cols], &g[k][r * cols] + cols, r == 0 ? 100.0 : 1.0);
    int c = 0;
    for (unsigned s = 0; s < steps; ++s) {
      for (std::size_t r = 1; r + 1 < rows; ++r)
        for (std::size_t j = 1; j + 1 < cols; ++j)
          g[1 - c][r * cols + j] = 0.25 * (g[c][(r - 1) * cols + j] + g[c][(r + 1) * cols + j] +
                                           g[c][r * cols + j - 1] + g[c][r * cols + j + 1]);
      c = 1 - c;
    }
    double sum = 0;
    for (double v : g[c]) sum += v;
    return sum;
  }
};

}  // namespace cws::test
