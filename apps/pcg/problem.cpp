#include "pcg/problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>
#include <system_error>

#include "pcg/names.hpp"

namespace pcg {

namespace {

constexpr name_table<coefficient_kind, 3> coefficient_names{{{coefficient_kind::constant, "constant"},
                                                             {coefficient_kind::aniso, "aniso"},
                                                             {coefficient_kind::variable, "variable"}}};

// splitmix64: a well-mixed 64-bit hash of the cell coordinates.
std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// kappa of cell (i, j, k): 1, or log-uniform in [0.1, 10) for `variable`.
double kappa(const problem& p, std::size_t i, std::size_t j, std::size_t k) noexcept {
  if (p.coef != coefficient_kind::variable) return 1.0;
  const std::uint64_t h = mix(i + p.n * (j + p.n * k) + 0x5eedull * p.n);
  const double u = static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1)
  return std::pow(10.0, 2.0 * u - 1.0);
}

// The pair weight w(d) of an offset (di, dj, dk): only its move along z matters.
double weight(const problem& p, int dk) noexcept {
  if (p.coef != coefficient_kind::aniso) return 1.0;
  return dk != 0 ? p.anisotropy : 1.0;
}

bool in_stencil(const problem& p, int di, int dj, int dk) noexcept {
  if (p.stencil == stencil_kind::twenty_seven) return true;
  return std::abs(di) + std::abs(dj) + std::abs(dk) <= 1;
}

// Neighbours of coordinate c along one axis, itself included: 1 to 3.
std::size_t span_of(std::size_t c, std::size_t n) noexcept { return 3 - (c == 0 ? 1 : 0) - (c + 1 == n ? 1 : 0); }

std::size_t row_length(const problem& p, std::size_t i, std::size_t j, std::size_t k) noexcept {
  const std::size_t a = span_of(i, p.n), b = span_of(j, p.n), c = span_of(k, p.n);
  return p.stencil == stencil_kind::twenty_seven ? a * b * c : 1 + (a - 1) + (b - 1) + (c - 1);
}

}  // namespace

const char* to_string(coefficient_kind c) noexcept { return name_in(coefficient_names, c); }

coefficient_kind parse_coefficient(const std::string& s) { return value_in(coefficient_names, s, "coefficient kind"); }

std::string problem::describe() const {
  std::string s = fmt::format("n={},{}pt,{}", n, static_cast<int>(stencil), to_string(coef));
  if (coef == coefficient_kind::aniso) s += fmt::format("({:g})", anisotropy);
  return s;
}

double problem::condition_bound() const {
  const double theta = std::numbers::pi / static_cast<double>(n + 1);
  const double c = std::cos(theta);
  const double lambda_min_const =
      stencil == stencil_kind::seven ? 6.0 * (1.0 - c) : 27.0 - std::pow(1.0 + 2.0 * c, 3.0);
  const double neighbours = stencil == stencil_kind::seven ? 6.0 : 26.0;
  double c_min = 1.0, c_max = 1.0;
  if (coef == coefficient_kind::aniso) c_min = std::min(1.0, anisotropy), c_max = std::max(1.0, anisotropy);
  if (coef == coefficient_kind::variable) c_min = 0.1, c_max = 10.0;
  return 2.0 * neighbours * c_max / (c_min * lambda_min_const);
}

std::size_t slab::block_last(std::size_t b) const noexcept {
  return std::min((first_block + b + 1) * block_rows, grid_rows);
}

std::size_t default_block_rows(const problem& p, unsigned total_workers) {
  const std::size_t target = std::max<std::size_t>(1, 16 * std::size_t{std::max(total_workers, 1u)});
  std::size_t rows = (p.rows() + target - 1) / target;
  rows = (rows + 511) / 512 * 512;
  return std::max<std::size_t>(rows, 1);
}

slab make_slab(const problem& p, std::size_t block_rows, unsigned rank, unsigned ranks) {
  if (block_rows == 0) throw std::invalid_argument("block rows must be positive");
  slab s;
  s.grid_rows = p.rows();
  s.block_rows = block_rows;
  s.global_blocks = (s.grid_rows + block_rows - 1) / block_rows;
  if (s.global_blocks < ranks)
    throw std::invalid_argument(
        fmt::format("{} blocks of {} rows cannot be split over {} ranks", s.global_blocks, block_rows, ranks));
  s.first_block = s.global_blocks * rank / ranks;
  s.blocks = s.global_blocks * (rank + 1) / ranks - s.first_block;
  s.first = s.first_block * block_rows;
  s.last = std::min((s.first_block + s.blocks) * block_rows, s.grid_rows);
  const std::size_t reach = ranks > 1 ? p.reach() : 0;
  if (ranks > 1 && s.owned() < reach)
    throw std::invalid_argument(
        fmt::format("rank {} would own {} rows, fewer than the stencil's reach of {} rows", rank, s.owned(), reach));
  s.ext_first = s.first >= reach ? s.first - reach : 0;
  s.ext_last = std::min(s.last + reach, s.grid_rows);
  return s;
}

double exact_solution(const problem& /*p*/, std::size_t row) {
  const std::uint64_t h = mix(row ^ 0xc0ffee00ull);
  return static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1)
}

system::system(const problem& p, const slab& s, cws::numa::placement where)
    : prob(p),
      part(s),
      row_ptr(cws::numa::allocate<std::uint64_t>(s.owned() + 1, where)),
      inv_diag(cws::numa::allocate<double>(s.owned(), where)),
      b(cws::numa::allocate<double>(s.owned(), where)) {
  if (s.held() >= (std::size_t{1} << 32)) throw std::invalid_argument("too many rows for 32-bit column indices");
  block_nnz.assign(s.blocks + 1, 0);
  const std::size_t n = p.n;
  for (std::size_t blk = 0; blk < s.blocks; ++blk) {
    std::uint64_t count = 0;
    for (std::size_t g = s.block_first(blk); g < s.block_last(blk); ++g)
      count += row_length(p, g % n, (g / n) % n, g / (n * n));
    block_nnz[blk + 1] = block_nnz[blk] + count;
  }
  nnz = block_nnz.back();
  cols = cws::numa::allocate<std::uint32_t>(nnz, where);
  vals = cws::numa::allocate<double>(nnz, where);
}

void system::fill_blocks(std::size_t lo, std::size_t hi) {
  const problem& p = prob;
  const std::size_t n = p.n;
  std::array<double, 27> coupling{};
  std::array<std::uint64_t, 27> column{};
  for (std::size_t blk = lo; blk < hi; ++blk) {
    std::uint64_t at = block_nnz[blk];
    if (blk == 0) row_ptr[0] = 0;
    for (std::size_t g = part.block_first(blk); g < part.block_last(blk); ++g) {
      const std::size_t i = g % n, j = (g / n) % n, k = g / (n * n);
      const double kp = kappa(p, i, j, k);
      double diag = 0;
      std::size_t entries = 0, diag_at = 0;
      for (int dk = -1; dk <= 1; ++dk)
        for (int dj = -1; dj <= 1; ++dj)
          for (int di = -1; di <= 1; ++di) {
            if (!in_stencil(p, di, dj, dk)) continue;
            if (di == 0 && dj == 0 && dk == 0) {
              diag_at = entries;
              column[entries++] = g;
              continue;
            }
            const auto ni = static_cast<std::ptrdiff_t>(i) + di, nj = static_cast<std::ptrdiff_t>(j) + dj,
                       nk = static_cast<std::ptrdiff_t>(k) + dk;
            const auto sn = static_cast<std::ptrdiff_t>(n);
            const bool inside = ni >= 0 && nj >= 0 && nk >= 0 && ni < sn && nj < sn && nk < sn;
            const double kq = inside ? kappa(p, static_cast<std::size_t>(ni), static_cast<std::size_t>(nj),
                                             static_cast<std::size_t>(nk))
                                     : kp;
            const double mean = p.coef == coefficient_kind::variable ? 2.0 * kp * kq / (kp + kq) : 0.5 * (kp + kq);
            const double c = weight(p, dk) * mean;
            diag += c;
            if (!inside) continue;
            coupling[entries] = -c;
            column[entries++] = static_cast<std::uint64_t>(ni) +
                                n * (static_cast<std::uint64_t>(nj) + n * static_cast<std::uint64_t>(nk));
          }
      coupling[diag_at] = diag;
      const std::size_t lr = g - part.first;
      double rhs = 0;
      for (std::size_t e = 0; e < entries; ++e) {
        const std::uint64_t c = column[e];
        cols[at + e] = static_cast<std::uint32_t>(c - part.ext_first);
        vals[at + e] = coupling[e];
        rhs += coupling[e] * exact_solution(p, c);
      }
      at += entries;
      row_ptr[lr + 1] = at;
      inv_diag[lr] = 1.0 / diag;
      b[lr] = rhs;
    }
  }
}

std::uint64_t system::pattern_hash() const {
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto add = [&h](std::uint64_t v) {
    for (int byte = 0; byte < 8; ++byte) {
      h ^= (v >> (8 * byte)) & 0xff;
      h *= 0x100000001b3ull;
    }
  };
  add(part.first);
  add(part.owned());
  for (std::size_t r = 0; r < part.owned(); ++r) {
    add(row_ptr[r + 1] - row_ptr[r]);
    for (std::uint64_t e = row_ptr[r]; e < row_ptr[r + 1]; ++e) add(cols[e] + part.ext_first);
  }
  return h;
}

void write_matrix_market(const system& s, const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw std::runtime_error(fmt::format("{}: cannot open for writing: {}", path, std::strerror(errno)));
  // fmt::print throws std::system_error without the file's name (a full disk,
  // /dev/full): every failure is reported here, naming the file.
  std::string failed;
  try {
    std::uint64_t lower = 0;
    for (std::size_t r = 0; r < s.part.owned(); ++r)
      for (std::uint64_t e = s.row_ptr[r]; e < s.row_ptr[r + 1]; ++e)
        lower += s.cols[e] + s.part.ext_first <= r + s.part.first;
    fmt::print(f, "%%MatrixMarket matrix coordinate real symmetric\n% cws-pcg {} (lower triangle, 1-based)\n",
               s.prob.describe());
    fmt::print(f, "{} {} {}\n", s.part.grid_rows, s.part.grid_rows, lower);
    for (std::size_t r = 0; r < s.part.owned(); ++r)
      for (std::uint64_t e = s.row_ptr[r]; e < s.row_ptr[r + 1]; ++e) {
        const std::size_t row = r + s.part.first, col = s.cols[e] + s.part.ext_first;
        if (col <= row) fmt::print(f, "{} {} {:.17g}\n", row + 1, col + 1, s.vals[e]);
      }
    if (std::fflush(f) != 0 || std::ferror(f)) failed = std::strerror(errno);
  } catch (const std::system_error& e) {
    failed = e.code().message();
  }
  if (std::fclose(f) != 0 && failed.empty()) failed = std::strerror(errno);
  if (!failed.empty()) throw std::runtime_error(fmt::format("{}: write failed: {}", path, failed));
}

}  // namespace pcg
