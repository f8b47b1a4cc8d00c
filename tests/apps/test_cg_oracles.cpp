// Oracles of cws-cg's numerics (apps/cg): NPB's random stream, the matrix
// makea builds, and zeta from the serial solver against NPB's official
// values, with NPB's tolerance.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <utility>

#include "cg/block_sums.hpp"
#include "cg/classes.hpp"
#include "cg/makea.hpp"
#include "cg/npb_random.hpp"
#include "cg/solver.hpp"

namespace {

// zeta after `iterations` outer iterations of the serial solver, from x = 1.
double zeta_after(const cg::problem_class& c, const cg::csr_matrix& m, int iterations, std::size_t rows) {
  cg::workspace w(m, rows, cws::numa::first_touch);
  cg::serial_runner loops(w.blocks().count());
  w.initialize(loops);
  w.reset();
  double zeta = 0;
  for (int it = 0; it < iterations; ++it) zeta = w.iterate(loops, c.shift).zeta;
  return zeta;
}

const cg::csr_matrix& class_s_matrix() {
  static const cg::csr_matrix m = cg::npb_matrix(*cg::find_class("S"));
  return m;
}

// x_k = 5^13 x_{k-1} mod 2^46 from 314159265, computed with exact big integers elsewhere.
TEST(CgRandlc, FirstValuesOfCgStream) {
  double x = cg::npb_seed;
  const std::pair<double, double> expected[] = {{0.7945219111887383, 55909509111989.0},
                                                {0.8690652738745399, 61155031930969.0},
                                                {0.6476317284643329, 45573031421645.0},
                                                {0.7855626502289539, 55279057169489.0}};
  for (const auto& [value, state] : expected) {
    EXPECT_EQ(cg::randlc(x, cg::npb_multiplier), value);
    EXPECT_EQ(x, state);
  }
}

TEST(CgRandlc, StaysInOpenUnitIntervalAndNeverRepeatsEarly) {
  double x = cg::npb_seed;
  std::set<double> seen;
  for (int i = 0; i < 100000; ++i) {
    const double v = cg::randlc(x, cg::npb_multiplier);
    ASSERT_GT(v, 0.0);
    ASSERT_LT(v, 1.0);
    ASSERT_TRUE(seen.insert(v).second) << "value repeated after " << i << " draws";
  }
}

TEST(CgMakea, GeneratedVectorHasDistinctInRangePositionsAndItsOwnHalf) {
  double seed = cg::npb_seed;
  for (int own = 0; own < 200; ++own) {
    const cg::sparse_vector v = cg::generate_vector(1400, 7, own, seed);
    ASSERT_EQ(v.index.size(), v.value.size());
    ASSERT_TRUE(v.index.size() == 7 || v.index.size() == 8);
    std::set<std::int32_t> distinct(v.index.begin(), v.index.end());
    EXPECT_EQ(distinct.size(), v.index.size());
    EXPECT_LT(*distinct.rbegin(), 1400);
    const auto self = std::find(v.index.begin(), v.index.end(), own);
    ASSERT_NE(self, v.index.end());
    EXPECT_EQ(v.value[static_cast<std::size_t>(self - v.index.begin())], 0.5);
  }
}

TEST(CgMakea, ClassSNonzeroCountAndStructure) {
  const cg::csr_matrix& m = class_s_matrix();
  EXPECT_EQ(m.n, 1400);
  EXPECT_EQ(m.nnz(), 78148u);
  ASSERT_EQ(m.rowstr.size(), 1401u);
  std::set<std::pair<std::int32_t, std::int32_t>> cells;
  for (int i = 0; i < m.n; ++i) {
    bool diagonal = false;
    for (auto k = m.rowstr[i]; k < m.rowstr[i + 1]; ++k) {
      if (k > m.rowstr[i]) {
        EXPECT_LT(m.colidx[k - 1], m.colidx[k]) << "row " << i;
      }
      diagonal |= m.colidx[k] == i;
      cells.insert({i, m.colidx[k]});
    }
    EXPECT_TRUE(diagonal) << "row " << i;
  }
  for (const auto& [i, j] : cells) EXPECT_TRUE(cells.count({j, i})) << i << "," << j << " has no mirror";
}

TEST(CgMakea, DiscardedDrawBeforeMakeaMatters) {
  // Without the driver's discarded randlc call the stream shifts by one and the matrix changes.
  const cg::problem_class s = *cg::find_class("S");
  double seed = cg::npb_seed;
  const cg::csr_matrix shifted = cg::makea(s.na, s.nonzer, s.rcond, s.shift, seed);
  EXPECT_NE(shifted.colidx, class_s_matrix().colidx);
}

TEST(CgMakea, ClassWNonzeroCount) { EXPECT_EQ(cg::npb_matrix(*cg::find_class("W")).nnz(), 508402u); }

TEST(CgBlockSums, AddsInBlockOrder) {
  cg::block_sums s(3);
  s.at(0) = 1e16;
  s.at(1) = 1.0;
  s.at(2) = -1e16;
  EXPECT_EQ(s.total(), 0.0);  // (1e16 + 1) - 1e16: the 1 is lost in that order
  s.at(2, 1) = 2.0;
  EXPECT_EQ(s.total(1), 2.0);
}

TEST(CgZeta, ClassSAfterOneIteration) {
  const cg::problem_class s = *cg::find_class("S");
  const double zeta = zeta_after(s, class_s_matrix(), 1, 32);
  EXPECT_TRUE(cg::zeta_matches(zeta, 9.9986441579140)) << zeta;
}

TEST(CgZeta, ClassSOfficialValueForSeveralBlockSizes) {
  const cg::problem_class s = *cg::find_class("S");
  for (std::size_t rows : {1u, 32u, 100u, 1400u}) {
    const double zeta = zeta_after(s, class_s_matrix(), s.niter, rows);
    EXPECT_TRUE(cg::zeta_matches(zeta, s.zeta_ref)) << "rows per block " << rows << ": zeta " << zeta;
    EXPECT_NEAR(zeta, 8.5971775078648, 1e-12);
  }
}

TEST(CgZeta, SameBlocksGiveBitwiseSameZeta) {
  const cg::problem_class s = *cg::find_class("S");
  EXPECT_EQ(zeta_after(s, class_s_matrix(), 3, 32), zeta_after(s, class_s_matrix(), 3, 32));
}

TEST(CgZeta, ClassWOfficialValue) {
  const cg::problem_class w = *cg::find_class("W");
  const double zeta = zeta_after(w, cg::npb_matrix(w), w.niter, 128);
  EXPECT_TRUE(cg::zeta_matches(zeta, w.zeta_ref)) << zeta;
}

TEST(CgClasses, TableAndOperationCount) {
  EXPECT_FALSE(cg::find_class("D").has_value());
  EXPECT_FALSE(cg::find_class("").has_value());
  const cg::problem_class a = *cg::find_class("A");
  EXPECT_EQ(a.na, 14000);
  EXPECT_EQ(a.nonzer, 11);
  EXPECT_EQ(a.niter, 15);
  // 2 * 15 * 14000 * (3 + 132 + 25 * 137 + 3) = 1,496,460,000 (NPB's 1.50 GFlop for class A).
  EXPECT_DOUBLE_EQ(cg::operations(a, a.niter), 1496460000.0);
  EXPECT_EQ(cg::reference_zeta(a, 15), 17.130235054029);
  EXPECT_FALSE(cg::reference_zeta(a, 3).has_value());
  EXPECT_TRUE(cg::zeta_matches(8.5971775078648 * (1 + 0.9e-10), 8.5971775078648));
  EXPECT_FALSE(cg::zeta_matches(8.5971775078648 * (1 + 1.1e-10), 8.5971775078648));
  EXPECT_FALSE(cg::zeta_matches(std::nan(""), 8.5971775078648));
}

}  // namespace
