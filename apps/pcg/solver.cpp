#include "pcg/solver.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <cws/touch.hpp>

#include "pcg/names.hpp"

namespace pcg {

namespace {
constexpr std::size_t k_init = 0, k_start = 1;
constexpr name_table<preconditioner, 3> preconditioner_names{
    {{preconditioner::none, "none"}, {preconditioner::jacobi, "jacobi"}, {preconditioner::sgs, "sgs"}}};
}  // namespace

const char* to_string(preconditioner p) noexcept { return name_in(preconditioner_names, p); }

preconditioner parse_preconditioner(const std::string& s) {
  return value_in(preconditioner_names, s, "preconditioner");
}

double executor::sum(const std::vector<double>& local_partials) {
  double s = 0;
  for (double v : local_partials) s += v;
  return s;
}

std::vector<std::string> kernel_names(preconditioner pc, unsigned colours) {
  std::vector<std::string> k{"init", "start", "spmv", "update"};
  if (pc == preconditioner::jacobi) k.emplace_back("jacobi");
  if (pc == preconditioner::sgs) {
    for (unsigned c = 0; c < colours; ++c) k.push_back("fwd" + std::to_string(c));
    for (unsigned c = colours - 1; c-- > 0;) k.push_back("bwd" + std::to_string(c));
  }
  k.emplace_back("direction");
  k.emplace_back("check");  // the untimed true-residual check after a solve
  return k;
}

solver::solver(system& a, vectors& v, executor& exec, solve_options o)
    : a_(a), v_(v), exec_(exec), opt_(o), colours_(a.prob.colours()), partial_(a.part.blocks, 0.0) {
  k_spmv_ = 2;
  k_update_ = 3;
  k_precond_ = 4;
  const std::size_t precond_phases = opt_.pc == preconditioner::jacobi ? 1
                                     : opt_.pc == preconditioner::sgs  ? 2 * colours_ - 1
                                                                       : 0;
  k_direction_ = k_precond_ + precond_phases;
}

double solver::run_sum(std::size_t kernel, const std::function<void(std::size_t, std::size_t, double*)>& body) {
  double* partial = partial_.data();
  const bool declare = exec_.declares_touches();
  exec_.run(kernel, [&, partial, declare](std::size_t lo, std::size_t hi) {
    if (declare) touch(kernel, lo, hi);
    body(lo, hi, partial);
  });
  return exec_.sum(partial_);
}

void solver::run_plain(std::size_t kernel, const std::function<void(std::size_t, std::size_t)>& body) {
  const bool declare = exec_.declares_touches();
  exec_.run(kernel, [&, declare](std::size_t lo, std::size_t hi) {
    if (declare) touch(kernel, lo, hi);
    body(lo, hi);
  });
}

// What a leaf of blocks [lo, hi) of `kernel` touches: its rows of every array
// it reads or writes; a vector read at neighbours (p in spmv, z in the sweeps,
// x in check) over the stencil's reach around them, clipped to the held rows.
void solver::touch(std::size_t kernel, std::size_t lo, std::size_t hi) const {
  const slab& s = a_.part;
  const std::size_t r0 = s.block_first(lo) - s.first, r1 = s.block_last(hi - 1) - s.first, off = s.offset();
  const auto rows = [&](const cws::numa::array<double>& v) { cws::touch(v.data() + r0 + off, (r1 - r0) * 8); };
  const auto owned = [&](const cws::numa::array<double>& v) { cws::touch(v.data() + r0, (r1 - r0) * 8); };
  const auto window = [&](const cws::numa::array<double>& v) {
    const std::size_t reach = a_.prob.reach();
    const std::size_t h0 = r0 + off >= reach ? r0 + off - reach : 0, h1 = std::min(r1 + off + reach, s.held());
    cws::touch(v.data() + h0, (h1 - h0) * 8);
  };
  const auto matrix = [&] {
    const std::uint64_t e0 = a_.row_ptr[r0], e1 = a_.row_ptr[r1];
    cws::touch(a_.row_ptr.data() + r0, (r1 - r0 + 1) * 8);
    cws::touch(a_.cols.data() + e0, (e1 - e0) * 4);
    cws::touch(a_.vals.data() + e0, (e1 - e0) * 8);
  };
  if (kernel == k_init) {
    const std::uint64_t e0 = a_.block_nnz[lo], e1 = a_.block_nnz[hi];
    cws::touch(a_.row_ptr.data() + r0, (r1 - r0 + 1) * 8);
    cws::touch(a_.cols.data() + e0, (e1 - e0) * 4);
    cws::touch(a_.vals.data() + e0, (e1 - e0) * 8);
    owned(a_.inv_diag), owned(a_.b);
    rows(v_.x), rows(v_.r), rows(v_.z), rows(v_.p), rows(v_.q);
  } else if (kernel == k_start) {
    owned(a_.b), rows(v_.x), rows(v_.r);
  } else if (kernel == k_spmv_) {
    matrix(), window(v_.p), rows(v_.q);
  } else if (kernel == k_update_) {
    rows(v_.x), rows(v_.p), rows(v_.r), rows(v_.q);
  } else if (kernel < k_direction_) {  // the preconditioner's phases
    if (opt_.pc == preconditioner::sgs) matrix(), window(v_.z);
    if (opt_.pc == preconditioner::jacobi) rows(v_.z);
    owned(a_.inv_diag), rows(v_.r);
  } else if (kernel == k_direction_) {
    rows(opt_.pc == preconditioner::none ? v_.r : v_.z), rows(v_.p);
  } else {  // check
    matrix(), window(v_.x), owned(a_.b);
  }
}

void solver::init() {
  run_plain(k_init, [this](std::size_t lo, std::size_t hi) {
    a_.fill_blocks(lo, hi);
    kernels::zero(a_, v_, lo, hi);
  });
}

double solver::precondition(double rr) {
  switch (opt_.pc) {
    case preconditioner::none:
      return rr;
    case preconditioner::jacobi:
      return run_sum(k_precond_,
                     [this](std::size_t lo, std::size_t hi, double* part) { kernels::jacobi(a_, v_, lo, hi, part); });
    case preconditioner::sgs:
      break;
  }
  std::size_t k = k_precond_;
  for (unsigned c = 0; c < colours_; ++c, ++k) {
    if (c > 0) exec_.exchange(v_.z.data());
    run_plain(k, [this, c](std::size_t lo, std::size_t hi) { kernels::sgs_forward(a_, v_, c, lo, hi); });
  }
  double rz = 0;
  for (unsigned c = colours_ - 1; c-- > 0; ++k) {
    exec_.exchange(v_.z.data());
    if (c > 0) {
      run_plain(k, [this, c](std::size_t lo, std::size_t hi) { kernels::sgs_backward(a_, v_, c, lo, hi, nullptr); });
    } else {
      rz = run_sum(
          k, [this](std::size_t lo, std::size_t hi, double* part) { kernels::sgs_backward(a_, v_, 0, lo, hi, part); });
    }
  }
  return rz;
}

solve_result solver::solve() {
  solve_result res;
  const double bb =
      run_sum(k_start, [this](std::size_t lo, std::size_t hi, double* part) { kernels::start(a_, v_, lo, hi, part); });
  const double bnorm = std::sqrt(bb);
  if (bnorm == 0) {
    res.converged = true;
    return res;
  }
  const double* z = opt_.pc == preconditioner::none ? v_.r.data() : v_.z.data();
  double rz = precondition(bb);
  run_plain(k_direction_,
            [this, z](std::size_t lo, std::size_t hi) { kernels::direction(a_, v_, z, 0.0, true, lo, hi); });
  res.relres = 1.0;
  for (unsigned it = 1; it <= opt_.max_iters; ++it) {
    exec_.exchange(v_.p.data());
    const double pq =
        run_sum(k_spmv_, [this](std::size_t lo, std::size_t hi, double* part) { kernels::spmv(a_, v_, lo, hi, part); });
    const double alpha = rz / pq;
    const double rr = run_sum(k_update_, [this, alpha](std::size_t lo, std::size_t hi, double* part) {
      kernels::update(a_, v_, alpha, lo, hi, part);
    });
    res.iterations = it;
    res.relres = std::sqrt(rr) / bnorm;
    res.history.push_back(res.relres);
    if (!(res.relres > opt_.tol)) {  // a NaN stops too (and is not converged)
      res.converged = res.relres <= opt_.tol;
      break;
    }
    const double rz_new = precondition(rr);
    const double beta = rz_new / rz;
    rz = rz_new;
    run_plain(k_direction_,
              [this, z, beta](std::size_t lo, std::size_t hi) { kernels::direction(a_, v_, z, beta, false, lo, hi); });
  }
  return res;
}

double solver::true_relres() {
  exec_.exchange(v_.x.data());
  std::vector<double> bb_part(a_.part.blocks, 0.0);
  double* bbp = bb_part.data();
  const double rr = run_sum(k_direction_ + 1, [this, bbp](std::size_t lo, std::size_t hi, double* part) {
    kernels::residual(a_, v_, lo, hi, part);
    for (std::size_t blk = lo; blk < hi; ++blk) {
      double s = 0;
      for (std::size_t lr = a_.part.block_first(blk) - a_.part.first; lr < a_.part.block_last(blk) - a_.part.first;
           ++lr)
        s += a_.b[lr] * a_.b[lr];
      bbp[blk] = s;
    }
  });
  return std::sqrt(rr) / std::sqrt(exec_.sum(bb_part));
}

solver::errors solver::error_parts() const {
  errors e;
  const std::size_t off = a_.part.offset();
  for (std::size_t lr = 0; lr < a_.part.owned(); ++lr) {
    const double u = exact_solution(a_.prob, lr + a_.part.first), d = v_.x[lr + off] - u;
    e.max_abs = std::max(e.max_abs, std::abs(d));
    e.max_exact = std::max(e.max_exact, std::abs(u));
    e.sq_diff += d * d;
    e.sq_exact += u * u;
  }
  return e;
}

}  // namespace pcg
