#include "cg/makea.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "cg/npb_random.hpp"

namespace cg {

sparse_vector generate_vector(int n, int nonzer, int own, double& seed) {
  int nn1 = 1;
  do {
    nn1 *= 2;
  } while (nn1 < n);
  sparse_vector v;
  v.index.reserve(static_cast<std::size_t>(nonzer) + 1);
  v.value.reserve(static_cast<std::size_t>(nonzer) + 1);
  while (static_cast<int>(v.index.size()) < nonzer) {
    const double value = randlc(seed, npb_multiplier);  // the value is drawn before the position
    const double where = randlc(seed, npb_multiplier);
    const auto pos = static_cast<std::int32_t>(nn1 * where);  // NPB: icnvrt, then 1-based; here 0-based
    if (pos >= n) continue;
    if (std::find(v.index.begin(), v.index.end(), pos) != v.index.end()) continue;
    v.index.push_back(pos);
    v.value.push_back(value);
  }
  const auto self = std::find(v.index.begin(), v.index.end(), own);
  if (self != v.index.end()) {
    v.value[static_cast<std::size_t>(self - v.index.begin())] = 0.5;
  } else {
    v.index.push_back(own);
    v.value.push_back(0.5);
  }
  return v;
}

namespace {

struct term {
  std::int32_t col;
  double value;
};

}  // namespace

csr_matrix makea(int n, int nonzer, double rcond, double shift, double& seed) {
  std::vector<sparse_vector> vectors;
  vectors.reserve(static_cast<std::size_t>(n));
  for (int o = 0; o < n; ++o) vectors.push_back(generate_vector(n, nonzer, o, seed));

  // Vector o contributes |o|^2 terms, |o| to each row it has an entry in.
  const auto un = static_cast<std::size_t>(n);
  std::vector<std::int64_t> start(un + 1, 0);
  for (const sparse_vector& v : vectors)
    for (std::int32_t r : v.index) start[static_cast<std::size_t>(r) + 1] += static_cast<std::int64_t>(v.index.size());
  std::partial_sum(start.begin(), start.end(), start.begin());

  // Terms bucketed by row in generation order (vector o, then its row
  // entries, then its column entries), as NPB's sparse visits them.
  std::vector<term> terms(static_cast<std::size_t>(start[un]));
  std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
  const double ratio = std::pow(rcond, 1.0 / static_cast<double>(n));
  double size = 1.0;
  for (int o = 0; o < n; ++o) {
    const sparse_vector& v = vectors[static_cast<std::size_t>(o)];
    for (std::size_t i = 0; i < v.index.size(); ++i) {
      const std::int32_t row = v.index[i];
      const double scale = size * v.value[i];
      for (std::size_t j = 0; j < v.index.size(); ++j) {
        const std::int32_t col = v.index[j];
        double value = v.value[j] * scale;
        if (col == row && row == o) value = value + rcond - shift;
        terms[static_cast<std::size_t>(fill[static_cast<std::size_t>(row)]++)] = {col, value};
      }
    }
    size *= ratio;
  }

  // Per row: stable sort by column, then each cell summed in generation order from 0.0.
  csr_matrix m;
  m.n = n;
  m.rowstr.assign(un + 1, 0);
  m.colidx.reserve(terms.size() / 2);
  m.a.reserve(terms.size() / 2);
  for (std::size_t r = 0; r < un; ++r) {
    const auto first = terms.begin() + start[r], last = terms.begin() + start[r + 1];
    std::stable_sort(first, last, [](const term& x, const term& y) { return x.col < y.col; });
    for (auto t = first; t != last; ++t) {
      if (t == first || t->col != (t - 1)->col) {
        m.colidx.push_back(t->col);
        m.a.push_back(0.0);
      }
      m.a.back() = m.a.back() + t->value;
    }
    m.rowstr[r + 1] = static_cast<std::int64_t>(m.a.size());
  }
  return m;
}

csr_matrix npb_matrix(const problem_class& c) {
  double seed = npb_seed;
  randlc(seed, npb_multiplier);  // NPB's driver draws one number before makea and discards it
  return makea(c.na, c.nonzer, c.rcond, c.shift, seed);
}

}  // namespace cg
