#include "cg/solver.hpp"

#include <cws/touch.hpp>

#include <algorithm>
#include <cmath>

namespace cg {

namespace {

constexpr std::array<const char*, kernel_count> names{"init",      "start",    "spmv",  "dot",      "update",
                                                      "direction", "residual", "norms", "normalize"};

template <class T>
void touch_rows(const T* v, std::size_t lo, std::size_t hi) {
  cws::touch(v + lo, (hi - lo) * sizeof(T));
}

// One loop over the row blocks `rb`: on each block, the leaf first declares
// what it touches (touch(lo, hi), cws variants only), then does the rows'
// work (work(b, lo, hi)).
// A leaf's declaration of its rows [lo, hi) of the vectors `v`.
template <class... Vectors>
auto touch_vectors(const Vectors*... v) {
  return [=](std::size_t lo, std::size_t hi) { (touch_rows(v, lo, hi), ...); };
}

template <class Touch, class Work>
block_body each_block(row_blocks rb, bool declare, Touch touch, Work work) {
  return [=](std::size_t first, std::size_t last) {
    for (std::size_t b = first; b < last; ++b) {
      const std::size_t lo = rb.lo(b), hi = rb.hi(b);
      if (declare) touch(lo, hi);
      work(b, lo, hi);
    }
  };
}

}  // namespace

const char* kernel_name(kernel k) noexcept { return names[index(k)]; }

double serial_runner::run(kernel, const block_body& body) {
  body(0, blocks_);
  return 0;
}

workspace::workspace(const csr_matrix& m, std::size_t rows_per_block, cws::numa::placement where)
    : source_(m),
      blocks_{static_cast<std::size_t>(m.n), std::max<std::size_t>(1, rows_per_block)},
      rowstr_(cws::numa::allocate<std::int64_t>(m.rowstr.size(), where)),
      colidx_(cws::numa::allocate<std::int32_t>(m.colidx.size(), where)),
      a_(cws::numa::allocate<double>(m.a.size(), where)),
      x_(cws::numa::allocate<double>(blocks_.n, where)),
      z_(cws::numa::allocate<double>(blocks_.n, where)),
      p_(cws::numa::allocate<double>(blocks_.n, where)),
      q_(cws::numa::allocate<double>(blocks_.n, where)),
      r_(cws::numa::allocate<double>(blocks_.n, where)),
      sums_(blocks_.count()) {}

double workspace::run(block_runner& loops, kernel k, const block_body& body,
                      std::array<double, kernel_count>* seconds) {
  const double s = loops.run(k, body);
  if (seconds != nullptr) (*seconds)[index(k)] += s;
  return s;
}

// What every leaf declares (cws::touch) is what it reads and writes row by
// row: its rows of the vectors, and for the two products its rows of the
// matrix (rowstr, colidx, a). The gathered vector of a product (p in spmv, z
// in residual) is not declared: a row reads it at random columns all over,
// so its pages are shared by every block and no schedule can make them local.

double workspace::initialize(block_runner& loops) {
  const row_blocks rb = blocks_;
  const csr_matrix& m = source_;
  std::int64_t* const rowstr = rowstr_.data();
  std::int32_t* const colidx = colidx_.data();
  double* const a = a_.data();
  double *const x = x_.data(), *const z = z_.data(), *const p = p_.data(), *const q = q_.data(), *const r = r_.data();
  const bool declare = loops.declares_touches();
  return run(
      loops, kernel::init,
      [=, &m](std::size_t first, std::size_t last) {
        for (std::size_t b = first; b < last; ++b) {
          const std::size_t lo = rb.lo(b), hi = rb.hi(b);
          const auto k0 = static_cast<std::size_t>(m.rowstr[lo]), k1 = static_cast<std::size_t>(m.rowstr[hi]);
          if (declare) {
            touch_rows(rowstr, lo, hi + 1);
            touch_rows(colidx, k0, k1);
            touch_rows(a, k0, k1);
            for (const double* v : {x, z, p, q, r}) touch_rows(v, lo, hi);
          }
          std::copy(m.rowstr.begin() + static_cast<std::ptrdiff_t>(lo),
                    m.rowstr.begin() + static_cast<std::ptrdiff_t>(hi + 1), rowstr + lo);
          std::copy(m.colidx.begin() + static_cast<std::ptrdiff_t>(k0),
                    m.colidx.begin() + static_cast<std::ptrdiff_t>(k1), colidx + k0);
          std::copy(m.a.begin() + static_cast<std::ptrdiff_t>(k0), m.a.begin() + static_cast<std::ptrdiff_t>(k1),
                    a + k0);
          std::fill(x + lo, x + hi, 1.0);
          for (double* v : {z, p, q, r}) std::fill(v + lo, v + hi, 0.0);
        }
      },
      nullptr);
}

void workspace::reset() { std::fill(x_.begin(), x_.end(), 1.0); }

iteration_result workspace::iterate(block_runner& loops, double shift, std::array<double, kernel_count>* seconds) {
  const csr_view m = view();
  const std::int64_t* const rowstr = rowstr_.data();
  const std::int32_t* const colidx = colidx_.data();
  const double* const a = a_.data();
  double *const x = x_.data(), *const z = z_.data(), *const p = p_.data(), *const q = q_.data(), *const r = r_.data();
  block_sums* const sums = &sums_;
  const auto loop = [&](kernel k, auto touch, auto work) {
    run(loops, k, each_block(blocks_, loops.declares_touches(), touch, work), seconds);
  };
  // The matrix rows of block b, as a product's leaf declares them.
  const auto touch_matrix = [=](std::size_t lo, std::size_t hi) {
    const auto k0 = static_cast<std::size_t>(rowstr[lo]), k1 = static_cast<std::size_t>(rowstr[hi]);
    touch_rows(rowstr, lo, hi + 1);
    touch_rows(colidx, k0, k1);
    touch_rows(a, k0, k1);
  };

  // conj_grad: q = z = 0, r = p = x, rho = r . r.
  loop(kernel::start, touch_vectors(x, q, z, r, p),
       [=](std::size_t b, std::size_t lo, std::size_t hi) { sums->at(b) = start_rows(x, q, z, r, p, lo, hi); });
  double rho = sums->total();

  for (int step = 0; step < cg_steps; ++step) {
    loop(
        kernel::spmv,
        [=](std::size_t lo, std::size_t hi) {
          touch_matrix(lo, hi);
          touch_rows(q, lo, hi);
        },
        [=](std::size_t, std::size_t lo, std::size_t hi) { spmv_rows(m, p, q, lo, hi); });
    loop(kernel::dot, touch_vectors(p, q),
         [=](std::size_t b, std::size_t lo, std::size_t hi) { sums->at(b) = dot_rows(p, q, lo, hi); });
    const double alpha = rho / sums->total();
    const double rho0 = rho;
    loop(kernel::update, touch_vectors(p, q, z, r),
         [=](std::size_t b, std::size_t lo, std::size_t hi) { sums->at(b) = update_rows(alpha, p, q, z, r, lo, hi); });
    rho = sums->total();
    const double beta = rho / rho0;
    loop(kernel::direction, touch_vectors(r, p),
         [=](std::size_t, std::size_t lo, std::size_t hi) { direction_rows(beta, r, p, lo, hi); });
  }

  // conj_grad's residual |x - A z| (r = A z).
  loop(
      kernel::residual,
      [=](std::size_t lo, std::size_t hi) {
        touch_matrix(lo, hi);
        touch_rows(x, lo, hi);
        touch_rows(r, lo, hi);
      },
      [=](std::size_t b, std::size_t lo, std::size_t hi) { sums->at(b) = residual_rows(m, z, x, r, lo, hi); });
  iteration_result out;
  out.rnorm = std::sqrt(sums->total());

  // zeta = shift + 1 / (x . z); x = z / |z| (as NPB: times 1 / sqrt(z . z)).
  loop(kernel::norms, touch_vectors(x, z), [=](std::size_t b, std::size_t lo, std::size_t hi) {
    norms_rows(x, z, lo, hi, sums->at(b, 0), sums->at(b, 1));
  });
  const double scale = 1.0 / std::sqrt(sums->total(1));
  out.zeta = shift + 1.0 / sums->total(0);
  loop(kernel::normalize, touch_vectors(x, z),
       [=](std::size_t, std::size_t lo, std::size_t hi) { normalize_rows(scale, z, x, lo, hi); });
  return out;
}

}  // namespace cg
