// Oracles of the NAS MG kernels (apps/mg, library cws_mg_kernels), checked
// without the app: the NPB generator, the charges of zran3 against a brute
// force over the whole stream, periodic ghosts, the independence of the
// kernels from how their planes are split, and the residual norms of class
// S (initial, after every V-cycle, and the official final value).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include <cws/cws.hpp>

#include "mg/classes.hpp"
#include "mg/hierarchy.hpp"
#include "mg/kernels.hpp"
#include "mg/lcg.hpp"
#include "mg/solver.hpp"
#include "mg/zran3.hpp"

namespace {

__extension__ using u128 = unsigned __int128;

std::uint64_t multiply_wide(std::uint64_t a, std::uint64_t x) {
  return static_cast<std::uint64_t>((u128{a} * u128{x}) & mg::lcg_mask);
}

TEST(MgLcg, MultiplyIsExactModulo2To46) {
  std::mt19937_64 gen(7);
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t a = gen() & mg::lcg_mask, x = gen() & mg::lcg_mask;
    ASSERT_EQ(mg::lcg_multiply(a, x), multiply_wide(a, x)) << a << " * " << x;
  }
  EXPECT_EQ(mg::lcg_multiply(mg::lcg_mask, mg::lcg_mask), 1u);  // (-1)^2
}

TEST(MgLcg, PowerJumpsAhead) {
  std::uint64_t x = mg::zran3_seed;
  for (std::uint64_t n = 0; n < 300; ++n) {
    ASSERT_EQ(mg::lcg_multiply(mg::lcg_power(mg::lcg_multiplier, n), mg::zran3_seed), x) << n;
    x = mg::lcg_multiply(mg::lcg_multiplier, x);
  }
  // The first value NPB draws from MG's seed: 5^13 x 314159265 mod 2^46, over 2^46.
  EXPECT_DOUBLE_EQ(mg::lcg_value(mg::lcg_multiply(mg::lcg_multiplier, mg::zran3_seed)),
                   static_cast<double>(multiply_wide(mg::lcg_multiplier, mg::zran3_seed)) / 70368744177664.0);
}

// The charges of an n^3 field by brute force: one sequential pass over the
// stream (no jump-ahead), every value kept, sorted.
mg::charges brute_force_charges(std::size_t n) {
  std::vector<std::pair<double, mg::grid_point>> all;
  all.reserve(n * n * n);
  std::uint64_t x = mg::zran3_seed;
  for (std::size_t i3 = 1; i3 <= n; ++i3)
    for (std::size_t i2 = 1; i2 <= n; ++i2)
      for (std::size_t i1 = 1; i1 <= n; ++i1) {
        x = mg::lcg_multiply(mg::lcg_multiplier, x);
        all.push_back({mg::lcg_value(x), {i1, i2, i3}});
      }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 1; i < all.size(); ++i)
    if (all[i].first == all[i - 1].first) throw std::logic_error("equal values in the stream");
  mg::charges c;
  for (std::size_t i = 0; i < mg::charges_per_sign; ++i) {
    c.minus[i] = all[i].second;
    c.minus_values[i] = all[i].first;
    c.plus[i] = all[all.size() - 1 - i].second;
    c.plus_values[i] = all[all.size() - 1 - i].first;
  }
  return c;
}

TEST(MgZran3, ClassSChargesMatchTheWholeStream) {
  const mg::charges got = mg::find_charges(32);
  const mg::charges want = brute_force_charges(32);
  for (std::size_t i = 0; i < mg::charges_per_sign; ++i) {
    EXPECT_EQ(got.plus[i], want.plus[i]) << "+1 #" << i;
    EXPECT_EQ(got.minus[i], want.minus[i]) << "-1 #" << i;
    EXPECT_EQ(got.plus_values[i], want.plus_values[i]);
    EXPECT_EQ(got.minus_values[i], want.minus_values[i]);
  }
}

// The class S charges (ghost-inclusive coordinates i1, i2, i3; largest /
// smallest first), as this implementation finds them; the brute force above
// and the official final norm below both depend on them.
TEST(MgZran3, ClassSChargePositions) {
  const mg::charges c = mg::find_charges(32);
  const std::vector<mg::grid_point> plus = {{8, 2, 21},  {20, 30, 32}, {3, 1, 4},   {5, 23, 4},  {2, 17, 22},
                                            {22, 32, 7}, {13, 16, 13}, {31, 5, 26}, {29, 1, 29}, {18, 27, 18}};
  const std::vector<mg::grid_point> minus = {{1, 12, 3}, {14, 9, 18},  {6, 15, 1},   {5, 29, 16}, {13, 3, 2},
                                             {6, 18, 9}, {21, 20, 12}, {27, 16, 32}, {9, 26, 23}, {8, 15, 27}};
  for (std::size_t i = 0; i < mg::charges_per_sign; ++i) {
    EXPECT_EQ(c.plus[i], plus[i]) << "+1 #" << i;
    EXPECT_EQ(c.minus[i], minus[i]) << "-1 #" << i;
  }
}

TEST(MgZran3, ChargesAreInteriorAndDistinct) {
  const mg::charges c = mg::find_charges(64);
  std::vector<mg::grid_point> all(c.plus.begin(), c.plus.end());
  all.insert(all.end(), c.minus.begin(), c.minus.end());
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (std::size_t d : {all[i].i1, all[i].i2, all[i].i3}) {
      EXPECT_GE(d, 1u);
      EXPECT_LE(d, 64u);
    }
    for (std::size_t j = 0; j < i; ++j) EXPECT_FALSE(all[i] == all[j]);
  }
  for (std::size_t i = 1; i < mg::charges_per_sign; ++i) {
    EXPECT_GT(c.plus_values[i - 1], c.plus_values[i]);
    EXPECT_LT(c.minus_values[i - 1], c.minus_values[i]);
  }
  EXPECT_LT(c.minus_values.back(), c.plus_values.back());
}

// A cube of extent m with distinct values everywhere.
std::vector<double> random_cube(std::size_t m, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<double> g(m * m * m);
  for (double& x : g) x = d(gen);
  return g;
}

std::size_t wrap(std::size_t i, std::size_t m) { return i == 0 ? m - 2 : i == m - 1 ? 1 : i; }

TEST(MgKernels, Comm3FillsEveryGhostWithItsPeriodicImage) {
  const std::size_t m = 10;
  std::vector<double> g = random_cube(m, 1);
  mg::comm3(g.data(), m);
  for (std::size_t i3 = 0; i3 < m; ++i3)
    for (std::size_t i2 = 0; i2 < m; ++i2)
      for (std::size_t i1 = 0; i1 < m; ++i1)
        ASSERT_EQ(g[i1 + m * (i2 + m * i3)], g[wrap(i1, m) + m * (wrap(i2, m) + m * wrap(i3, m))])
            << i1 << "," << i2 << "," << i3;  // corners and edges included
}

// Runs f(p0, p1) over [first, last) in ranges of `step` planes.
template <class F>
void in_ranges(std::size_t first, std::size_t last, std::size_t step, F f) {
  for (std::size_t p = first; p < last; p += step) f(p, std::min(last, p + step));
}

TEST(MgKernels, SplittingThePlanesChangesNoBit) {
  const std::size_t mc = 10, mf = 2 * mc - 2;
  const auto& c = mg::class_named('S');
  std::vector<double> u = random_cube(mf, 2), v = random_cube(mf, 3), coarse = random_cube(mc, 4);
  mg::comm3(u.data(), mf);
  mg::comm3(v.data(), mf);
  mg::comm3(coarse.data(), mc);
  for (std::size_t step : {1, 3, 5}) {
    std::vector<double> whole(mf * mf * mf), split(mf * mf * mf);
    mg::resid(u.data(), v.data(), whole.data(), mf, 1, mf - 1, mg::operator_a);
    in_ranges(1, mf - 1, step,
              [&](auto p0, auto p1) { mg::resid(u.data(), v.data(), split.data(), mf, p0, p1, mg::operator_a); });
    EXPECT_EQ(whole, split) << "resid, " << step << " planes per range";

    std::vector<double> uw = u, us = u;
    mg::psinv(v.data(), uw.data(), mf, 1, mf - 1, c.smoother);
    in_ranges(1, mf - 1, step, [&](auto p0, auto p1) { mg::psinv(v.data(), us.data(), mf, p0, p1, c.smoother); });
    EXPECT_EQ(uw, us) << "psinv";

    std::vector<double> cw(mc * mc * mc), cs(mc * mc * mc);
    mg::rprj3(u.data(), mf, cw.data(), mc, 1, mc - 1);
    in_ranges(1, mc - 1, step, [&](auto p0, auto p1) { mg::rprj3(u.data(), mf, cs.data(), mc, p0, p1); });
    EXPECT_EQ(cw, cs) << "rprj3";

    std::vector<double> fw = u, fs = u;
    mg::interp(coarse.data(), mc, fw.data(), mf, 0, mf, false);
    in_ranges(0, mf, step, [&](auto p0, auto p1) { mg::interp(coarse.data(), mc, fs.data(), mf, p0, p1, false); });
    EXPECT_EQ(fw, fs) << "interp";
  }
}

TEST(MgKernels, InterpolationKeepsTheGhostsPeriodic) {
  const std::size_t mc = 6, mf = 2 * mc - 2;
  std::vector<double> coarse = random_cube(mc, 5), fine(mf * mf * mf, 0.0);
  mg::comm3(coarse.data(), mc);
  mg::interp(coarse.data(), mc, fine.data(), mf, 0, mf, true);
  std::vector<double> filled = fine;
  mg::comm3(filled.data(), mf);
  EXPECT_EQ(fine, filled);  // interp wrote every ghost as comm3 would
}

// The whole benchmark of class `name` on the caller; the norms after the
// initial residual and after every V-cycle.
std::vector<double> residual_history(char name, double& final_rnm2) {
  cws::runtime_config one_worker;
  one_worker.workers = 1;
  cws::runtime rt(one_worker);  // numa::allocate takes its topology
  const mg::class_params& c = mg::class_named(name);
  mg::hierarchy grids(c.log2_size, cws::numa::first_touch);
  mg::serial_runner runner;
  mg::solver s(c, grids, runner);
  s.first_touch();
  s.set_rhs(mg::find_charges(c.size()));
  s.reset();
  std::vector<double> history;
  final_rnm2 = s.benchmark([&](unsigned, mg::solver& at) { history.push_back(at.norm().rnm2); }).rnm2;
  return history;
}

TEST(MgBenchmark, ClassSResidualNormsPerIteration) {
  double rnm2 = 0;
  const std::vector<double> h = residual_history('S', rnm2);
  // Initial sqrt(20 / 32^3), then after each V-cycle (independent reproductions of NPB).
  const std::vector<double> want = {2.4705294220065e-02, 2.9337960976328e-03, 6.3150017906228e-04, 1.7360856792372e-04,
                                    5.3077070057349e-05};
  ASSERT_EQ(h.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(h[i] / want[i], 1.0, 1e-12) << "after V-cycle " << i;
  EXPECT_DOUBLE_EQ(h[0], std::sqrt(20.0 / (32.0 * 32.0 * 32.0)));
  EXPECT_EQ(rnm2, h.back());
}

TEST(MgBenchmark, ClassSMatchesTheOfficialValue) {
  double rnm2 = 0;
  residual_history('S', rnm2);
  const mg::class_params& s = mg::class_named('S');
  EXPECT_DOUBLE_EQ(s.verify_value, 0.5307707005734e-04);
  EXPECT_TRUE(mg::verified(rnm2, s)) << rnm2;
  EXPECT_LT(mg::relative_error(rnm2, s), 1e-12) << rnm2;
  // A norm off by 2e-8 fails NPB's test.
  EXPECT_FALSE(mg::verified(rnm2 * (1 + 2e-8), s));
}

TEST(MgClasses, TableAndRate) {
  EXPECT_EQ(mg::class_named('W').size(), 128u);
  EXPECT_EQ(mg::class_named('A').log2_size, 8u);
  EXPECT_EQ(mg::class_named('B').iterations, 20u);
  EXPECT_NE(mg::class_named('B').smoother, mg::class_named('A').smoother);
  EXPECT_EQ(mg::class_named('D').size(), 1024u);  // SC14's NX = NY = NZ = 1024
  EXPECT_EQ(mg::class_named('D').iterations, 50u);
  EXPECT_THROW(mg::class_named('E'), std::invalid_argument);
  // 58 x 4 x 32^3 operations in one second.
  EXPECT_DOUBLE_EQ(mg::mops(mg::class_named('S'), 1.0), 58.0 * 4 * 32768 * 1e-6);
}

}  // namespace
