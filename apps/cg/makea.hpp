#pragma once
// NPB CG's matrix: makea, the sum of na scaled outer products of random
// sparse vectors plus a shifted diagonal, generated serially from NPB's
// random stream and stored as CSR (columns ascending in every row).
//
// The values are bit-identical to NPB's: every cell is summed in the order
// of the generating vectors, starting from 0.0, as NPB's insertion-based
// `sparse` sums it. Only the assembly differs: instead of inserting every
// term into a sorted row by linear scan (quadratic in the row length), the
// terms are bucketed by row in generation order and each row is stably
// sorted by column, then duplicates are summed in that order.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cg/classes.hpp"

namespace cg {

struct csr_matrix {
  int n = 0;
  std::vector<std::int64_t> rowstr;  // n + 1 offsets into colidx / a
  std::vector<std::int32_t> colidx;  // 0-based columns, ascending in each row
  std::vector<double> a;

  std::size_t nnz() const noexcept { return a.size(); }
};

// One generating vector: `nonzer` distinct random positions with random
// values, plus 0.5 at the vector's own index (NPB's sprnvc + vecset).
struct sparse_vector {
  std::vector<std::int32_t> index;  // 0-based
  std::vector<double> value;
};

// NPB's sprnvc + vecset for vector `own` (0-based) of a problem of n rows:
// draws (value, position) pairs from `seed` (advancing it) until `nonzer`
// distinct positions in [0, n) are found, positions being floor(u nn1) with
// nn1 the smallest power of two >= n (a draw out of range or repeated
// consumes both numbers), then sets position `own` to 0.5 (replacing a drawn
// value there, or appended).
sparse_vector generate_vector(int n, int nonzer, int own, double& seed);

// The class's matrix, from the random stream `seed` as it stands (the CG
// driver draws one number and discards it before calling makea; see
// npb_matrix). Advances `seed`.
csr_matrix makea(int n, int nonzer, double rcond, double shift, double& seed);

// The matrix of class `c` exactly as NPB's driver builds it: seed
// 314159265, one discarded randlc call, then makea.
csr_matrix npb_matrix(const problem_class& c);

}  // namespace cg
