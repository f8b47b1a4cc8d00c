// The parts of cws-pcg (apps/pcg): the matrix (pattern, symmetry, slabs,
// Matrix Market output), the preconditioners (M z = r, symmetry of M^-1),
// the solver's convergence and manufactured-solution error, and the schedule
// file's checks (missing, foreign, damaged, other worker count, matching).

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <cws/cws.hpp>
#include <cws/schedulers/schedule_store.hpp>

#include "pcg/kernels.hpp"
#include "pcg/problem.hpp"
#include "pcg/schedule_file.hpp"
#include "pcg/solver.hpp"
#include "support/scratch_files.hpp"

namespace {

using pcg::coefficient_kind;
using pcg::stencil_kind;

pcg::problem make(std::size_t n, stencil_kind s, coefficient_kind c) {
  pcg::problem p;
  p.n = n;
  p.stencil = s;
  p.coef = c;
  return p;
}

// One process, serial: every phase is body(0, blocks).
class serial_executor final : public pcg::executor {
 public:
  void run(std::size_t, const block_body& body) override { body(0, blocks); }
  std::size_t blocks = 0;
};

struct built {
  pcg::slab part;
  pcg::system sys;
  pcg::vectors vec;
  built(const pcg::problem& p, std::size_t block_rows)
      : part(pcg::make_slab(p, block_rows, 0, 1)),
        sys(p, part, cws::numa::first_touch),
        vec(part, cws::numa::first_touch) {
    sys.fill_blocks(0, part.blocks);
  }
  // The matrix as a map (row, col) -> value.
  std::map<std::pair<std::size_t, std::size_t>, double> entries() const {
    std::map<std::pair<std::size_t, std::size_t>, double> m;
    for (std::size_t r = 0; r < part.owned(); ++r)
      for (std::uint64_t e = sys.row_ptr[r]; e < sys.row_ptr[r + 1]; ++e) m[{r, sys.cols[e]}] = sys.vals[e];
    return m;
  }
};

TEST(PcgMatrix, NonzeroCountsMatchTheStencils) {
  for (std::size_t n : {1, 2, 5}) {
    built a7(make(n, stencil_kind::seven, coefficient_kind::constant), 512);
    EXPECT_EQ(a7.sys.nnz, 7 * n * n * n - 6 * n * n) << n;
    built a27(make(n, stencil_kind::twenty_seven, coefficient_kind::constant), 512);
    EXPECT_EQ(a27.sys.nnz, (3 * n - 2) * (3 * n - 2) * (3 * n - 2)) << n;
  }
}

TEST(PcgMatrix, SymmetricDiagonallyDominantWithSortedColumns) {
  for (auto s : {stencil_kind::seven, stencil_kind::twenty_seven})
    for (auto c : {coefficient_kind::constant, coefficient_kind::aniso, coefficient_kind::variable}) {
      const pcg::problem p = make(5, s, c);
      built a(p, 512);
      const auto m = a.entries();
      for (const auto& [rc, v] : m) {
        const auto t = m.find({rc.second, rc.first});
        ASSERT_NE(t, m.end()) << p.describe();
        EXPECT_EQ(t->second, v) << p.describe() << " " << rc.first << "," << rc.second;
      }
      for (std::size_t r = 0; r < a.part.owned(); ++r) {
        double diag = 0, off = 0;
        for (std::uint64_t e = a.sys.row_ptr[r]; e < a.sys.row_ptr[r + 1]; ++e) {
          if (e > a.sys.row_ptr[r]) {
            EXPECT_LT(a.sys.cols[e - 1], a.sys.cols[e]);
          }
          (a.sys.cols[e] == r ? diag : off) += std::abs(a.sys.vals[e]);
        }
        EXPECT_GE(diag, off * (1 - 1e-14)) << p.describe() << " row " << r;
        EXPECT_DOUBLE_EQ(a.sys.inv_diag[r], 1.0 / diag);
      }
    }
  // The textbook values.
  built a(make(3, stencil_kind::seven, coefficient_kind::constant), 512);
  EXPECT_EQ(a.entries().at({13, 13}), 6.0);
  EXPECT_EQ(a.entries().at({13, 12}), -1.0);
  built h(make(3, stencil_kind::twenty_seven, coefficient_kind::constant), 512);
  EXPECT_EQ(h.entries().at({13, 13}), 26.0);
  EXPECT_EQ(h.entries().at({13, 0}), -1.0);
}

TEST(PcgMatrix, RightHandSideIsAOfTheManufacturedSolution) {
  const pcg::problem p = make(4, stencil_kind::twenty_seven, coefficient_kind::variable);
  built a(p, 512);
  for (std::size_t r = 0; r < a.part.owned(); ++r) {
    double s = 0;
    for (std::uint64_t e = a.sys.row_ptr[r]; e < a.sys.row_ptr[r + 1]; ++e)
      s += a.sys.vals[e] * pcg::exact_solution(p, a.sys.cols[e]);
    EXPECT_EQ(a.sys.b[r], s);
  }
}

TEST(PcgMatrix, PatternHashSeesTheStructureNotTheCoefficients) {
  const auto hash = [](const pcg::problem& p) { return built(p, 512).sys.pattern_hash(); };
  const auto h = hash(make(6, stencil_kind::seven, coefficient_kind::constant));
  EXPECT_EQ(h, hash(make(6, stencil_kind::seven, coefficient_kind::variable)));
  EXPECT_NE(h, hash(make(6, stencil_kind::twenty_seven, coefficient_kind::constant)));
  EXPECT_NE(h, hash(make(7, stencil_kind::seven, coefficient_kind::constant)));
}

TEST(PcgMatrix, SlabsCoverTheGridWithHalos) {
  const pcg::problem p = make(16, stencil_kind::seven, coefficient_kind::constant);
  const pcg::slab s0 = pcg::make_slab(p, 512, 0, 2), s1 = pcg::make_slab(p, 512, 1, 2);
  EXPECT_EQ(s0.first, 0u);
  EXPECT_EQ(s0.last, s1.first);
  EXPECT_EQ(s1.last, p.rows());
  EXPECT_EQ(s0.blocks + s1.blocks, s0.global_blocks);
  EXPECT_EQ(s0.ext_first, 0u);
  EXPECT_EQ(s0.ext_last, s0.last + p.reach());
  EXPECT_EQ(s1.ext_first, s1.first - p.reach());
  EXPECT_EQ(s1.ext_last, p.rows());
  // Each rank's rows are the single-process rows, with columns shifted by its halo start.
  built whole(p, 512);
  pcg::system part(p, s1, cws::numa::first_touch);
  part.fill_blocks(0, s1.blocks);
  for (std::size_t r = 0; r < s1.owned(); ++r) {
    const std::size_t g = r + s1.first;
    ASSERT_EQ(part.row_ptr[r + 1] - part.row_ptr[r], whole.sys.row_ptr[g + 1] - whole.sys.row_ptr[g]);
    for (std::uint64_t e = 0; e < part.row_ptr[r + 1] - part.row_ptr[r]; ++e) {
      EXPECT_EQ(part.cols[part.row_ptr[r] + e] + s1.ext_first, whole.sys.cols[whole.sys.row_ptr[g] + e]);
      EXPECT_EQ(part.vals[part.row_ptr[r] + e], whole.sys.vals[whole.sys.row_ptr[g] + e]);
    }
  }
  EXPECT_THROW(pcg::make_slab(p, 512, 0, 9), std::invalid_argument);  // 8 blocks
  EXPECT_THROW(pcg::make_slab(make(16, stencil_kind::seven, coefficient_kind::constant), 64, 0, 32),
               std::invalid_argument);  // 128 rows each, reach 273
}

TEST(PcgMatrix, MatrixMarketFileHoldsTheLowerTriangle) {
  cws::test::scratch_dir dir;
  const std::string path = dir.file("a.mtx");
  built a(make(3, stencil_kind::seven, coefficient_kind::constant), 512);
  pcg::write_matrix_market(a.sys, path);
  std::ifstream in(path);
  std::string banner, comment;
  std::getline(in, banner);
  std::getline(in, comment);
  EXPECT_EQ(banner, "%%MatrixMarket matrix coordinate real symmetric");
  std::size_t rows = 0, cols = 0, count = 0;
  in >> rows >> cols >> count;
  EXPECT_EQ(rows, 27u);
  EXPECT_EQ(cols, 27u);
  EXPECT_EQ(count, (a.sys.nnz + 27) / 2);
  std::size_t lines = 0, i = 0, j = 0;
  double v = 0, trace = 0;
  while (in >> i >> j >> v) {
    ++lines;
    EXPECT_LE(j, i);
    if (i == j) trace += v;
  }
  EXPECT_EQ(lines, count);
  EXPECT_EQ(trace, 27 * 6.0);
}

// z = M^-1 r for the multicolour SGS, checked by multiplying back:
// M z = (D + L) D^-1 (D + U) z, L / U the couplings to lower / higher colours.
TEST(PcgPreconditioner, SgsSolvesItsFactoredForm) {
  for (auto s : {stencil_kind::seven, stencil_kind::twenty_seven}) {
    const pcg::problem p = make(6, s, coefficient_kind::variable);
    built a(p, 512);
    const std::size_t n = a.part.owned();
    std::vector<double> r(n);
    for (std::size_t i = 0; i < n; ++i) a.vec.r[i] = r[i] = std::sin(0.37 * static_cast<double>(i)) + 0.1;
    for (unsigned c = 0; c < p.colours(); ++c) pcg::kernels::sgs_forward(a.sys, a.vec, c, 0, a.part.blocks);
    std::vector<double> partial(a.part.blocks);
    for (unsigned c = p.colours() - 1; c-- > 0;)
      pcg::kernels::sgs_backward(a.sys, a.vec, c, 0, a.part.blocks, c == 0 ? partial.data() : nullptr);
    const auto colour = [&](std::size_t g) { return p.colour_of(g % p.n, (g / p.n) % p.n, g / (p.n * p.n)); };
    std::vector<double> w(n), m(n);
    for (std::size_t i = 0; i < n; ++i) {
      w[i] = a.vec.z[i] / a.sys.inv_diag[i];
      for (std::uint64_t e = a.sys.row_ptr[i]; e < a.sys.row_ptr[i + 1]; ++e)
        if (colour(a.sys.cols[e]) > colour(i)) w[i] += a.sys.vals[e] * a.vec.z[a.sys.cols[e]];
    }
    double rz = 0;
    for (std::size_t i = 0; i < n; ++i) {
      m[i] = w[i];
      for (std::uint64_t e = a.sys.row_ptr[i]; e < a.sys.row_ptr[i + 1]; ++e)
        if (colour(a.sys.cols[e]) < colour(i)) m[i] += a.sys.vals[e] * w[a.sys.cols[e]] * a.sys.inv_diag[a.sys.cols[e]];
      EXPECT_NEAR(m[i], r[i], 1e-12 * (1 + std::abs(r[i]))) << p.describe() << " row " << i;
      rz += r[i] * a.vec.z[i];
    }
    double sum = 0;
    for (double v : partial) sum += v;
    EXPECT_NEAR(sum, rz, 1e-12 * std::abs(rz));
  }
}

// HPCG-style symmetry check of M^-1: |x' M^-1 y - y' M^-1 x| within rounding.
TEST(PcgPreconditioner, SgsInverseIsSymmetric) {
  const pcg::problem p = make(6, stencil_kind::twenty_seven, coefficient_kind::variable);
  built a(p, 512);
  const std::size_t n = a.part.owned();
  const auto apply = [&](const std::vector<double>& v) {
    for (std::size_t i = 0; i < n; ++i) a.vec.r[i] = v[i];
    for (unsigned c = 0; c < p.colours(); ++c) pcg::kernels::sgs_forward(a.sys, a.vec, c, 0, a.part.blocks);
    for (unsigned c = p.colours() - 1; c-- > 0;) pcg::kernels::sgs_backward(a.sys, a.vec, c, 0, a.part.blocks, nullptr);
    return std::vector<double>(a.vec.z.begin(), a.vec.z.begin() + static_cast<long>(n));
  };
  std::vector<double> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = std::cos(1.3 * static_cast<double>(i)), y[i] = std::sin(0.7 * i + 2);
  const auto mx = apply(x), my = apply(y);
  double xmy = 0, ymx = 0, xx = 0, yy = 0;
  for (std::size_t i = 0; i < n; ++i) xmy += x[i] * my[i], ymx += y[i] * mx[i], xx += x[i] * x[i], yy += y[i] * y[i];
  EXPECT_LE(std::abs(xmy - ymx), 64 * 2.2e-16 * std::sqrt(xx * yy)) << xmy << " vs " << ymx;
  EXPECT_GT(std::abs(xmy), 0);
}

TEST(PcgPreconditioner, JacobiDividesByTheDiagonal) {
  built a(make(4, stencil_kind::seven, coefficient_kind::variable), 512);
  std::vector<double> partial(a.part.blocks);
  for (std::size_t i = 0; i < a.part.owned(); ++i) a.vec.r[i] = 1.0 + static_cast<double>(i);
  pcg::kernels::jacobi(a.sys, a.vec, 0, a.part.blocks, partial.data());
  for (std::size_t i = 0; i < a.part.owned(); ++i) EXPECT_EQ(a.vec.z[i], a.vec.r[i] * a.sys.inv_diag[i]);
}

// The solver converges, the error against u* is within cond(A) x residual,
// and better preconditioners need fewer iterations.
TEST(PcgSolver, ConvergesWithinTheManufacturedErrorBound) {
  for (auto c : {coefficient_kind::constant, coefficient_kind::aniso, coefficient_kind::variable}) {
    std::map<pcg::preconditioner, unsigned> its;
    for (auto pc : {pcg::preconditioner::none, pcg::preconditioner::jacobi, pcg::preconditioner::sgs}) {
      const pcg::problem p = make(8, stencil_kind::seven, c);
      built a(p, 128);
      serial_executor exec;
      exec.blocks = a.part.blocks;
      pcg::solver s(a.sys, a.vec, exec, {.pc = pc, .tol = 1e-10, .max_iters = 2000});
      const pcg::solve_result r = s.solve();
      ASSERT_TRUE(r.converged) << p.describe() << " " << pcg::to_string(pc);
      EXPECT_EQ(r.history.size(), r.iterations);
      const double true_relres = s.true_relres();
      EXPECT_LT(true_relres, 1e-9);
      const auto e = s.error_parts();
      EXPECT_LE(std::sqrt(e.sq_diff / e.sq_exact), p.condition_bound() * (true_relres + 64 * 2.2e-16));
      its[pc] = r.iterations;
    }
    EXPECT_LT(its[pcg::preconditioner::sgs], its[pcg::preconditioner::none]) << to_string(c);
    if (c == coefficient_kind::variable) {  // a constant diagonal (the others): Jacobi is plain CG scaled
      EXPECT_LT(its[pcg::preconditioner::jacobi], its[pcg::preconditioner::none]) << to_string(c);
    }
  }
}

// The block split changes nothing but who computes what: the same history for
// one block or many.
TEST(PcgSolver, HistoryDoesNotDependOnTheExecutorButOnTheBlocks) {
  const pcg::problem p = make(8, stencil_kind::twenty_seven, coefficient_kind::variable);
  const auto history = [&](std::size_t block_rows, bool one_by_one) {
    built a(p, block_rows);
    struct stepping final : pcg::executor {
      std::size_t blocks = 0;
      bool single = false;
      void run(std::size_t, const block_body& body) override {
        if (!single) return body(0, blocks);
        for (std::size_t b = blocks; b-- > 0;) body(b, b + 1);  // backwards, one block at a time
      }
    } exec;
    exec.blocks = a.part.blocks;
    exec.single = one_by_one;
    pcg::solver s(a.sys, a.vec, exec, {.pc = pcg::preconditioner::sgs, .tol = 1e-8, .max_iters = 500});
    return s.solve().history;
  };
  EXPECT_EQ(history(64, false), history(64, true));
  EXPECT_EQ(history(512, false), history(512, true));
}

// ------------------------------------------------------------ schedule file

// A leaf with some work, so that the other workers steal.
void busy_leaf(std::size_t) {
  volatile double x = 1;
  for (int i = 0; i < 20000; ++i) x = x * 1.0000001;
}

// Runs `runs` phases of "pcg/evolve/spmv#<key>" under evolve (no return to
// relws on a slow run: timing noise) and saves the file.
void record_file(const std::string& path, const std::string& key, unsigned workers, unsigned runs) {
  cws::runtime_config cfg;
  cfg.workers = workers;
  cws::schedulers::knobs_of(cfg).replay.evolve_slowdown_pct = 0;
  cws::schedulers::knobs_of(cfg).replay.grace_us = 0;  // a released run would be no settled one
  cws::runtime rt(cfg);
  cws::schedule& s = rt.schedule(pcg::schedule_name("evolve", "spmv", key), cws::policy::evolve);
  for (unsigned i = 0; i < runs; ++i) rt.run(s, [] { cws::parallel_for(0, 64, busy_leaf, 4); });
  pcg::save_schedule_file(rt, path);
}

// A schedule file in a scratch directory, left by `runs` runs of evolve's
// spmv schedule under key "key1" on 2 workers.
struct key1_file {
  explicit key1_file(unsigned runs) { record_file(path, "key1", 2, runs); }
  cws::test::scratch_dir dir;
  const std::string path = dir.file("s.cwst");
};

cws::runtime_config two_workers() {
  cws::runtime_config cfg;
  cfg.workers = 2;
  // Its strict replays are checked for what they ran as: not released when
  // ctest -j's other tests take a core for a while (CWS_REPLAY_GRACE_US).
  cws::schedulers::knobs_of(cfg).replay.grace_us = 0;
  return cfg;
}

TEST(PcgScheduleFile, MissingFileMeansLearning) {
  cws::test::scratch_dir dir;
  cws::runtime rt(two_workers());
  const auto st = pcg::load_schedule_file(rt, dir.file("none.cwst"), "k", true);
  EXPECT_FALSE(st.exists);
  EXPECT_FALSE(st.loaded);
  EXPECT_NE(st.message.find("does not exist yet"), std::string::npos);
}

TEST(PcgScheduleFile, MatchingFileSeedsAndStartsEvolveConverged) {
  const key1_file file(8);
  cws::runtime rt(two_workers());
  const auto st = pcg::load_schedule_file(rt, file.path, "key1", true);
  EXPECT_TRUE(st.loaded);
  EXPECT_EQ(st.seeded, 1u);
  EXPECT_EQ(st.evolve_stows, 1u);
  const std::string name = pcg::schedule_name("evolve", "spmv", "key1");
  cws::schedule& s = rt.schedule(name, cws::policy::evolve);
  const cws::run_report& r = rt.run(s, [] { cws::parallel_for(0, 64, busy_leaf, 4); });
  EXPECT_EQ(r.ran_as, cws::ran_as::stows) << r.label();
  EXPECT_NE(r.template_from.find("file"), std::string::npos) << r.template_from;
}

TEST(PcgScheduleFile, FirstRandomRunIsNotTakenAsConverged) {
  const key1_file file(1);  // only the first, random run: nothing learnt yet
  cws::runtime rt(two_workers());
  const auto st = pcg::load_schedule_file(rt, file.path, "key1", false);
  EXPECT_TRUE(st.loaded);
  EXPECT_EQ(st.evolve_stows, 0u);
}

TEST(PcgScheduleFile, ForeignDamagedOrOtherWorkerCountIsIgnoredWithOneLine) {
  const key1_file file(3);
  cws::runtime rt(two_workers());
  const auto other = pcg::load_schedule_file(rt, file.path, "key2", false);
  EXPECT_FALSE(other.loaded);
  EXPECT_NE(other.message.find("another problem (key1; this run: key2)"), std::string::npos) << other.message;
  EXPECT_EQ(other.message.find('\n'), std::string::npos);
  EXPECT_THROW(pcg::load_schedule_file(rt, file.path, "key2", true), cws::error);

  const std::string one = file.dir.file("one.cwst");
  record_file(one, "key1", 1, 3);
  const auto workers = pcg::load_schedule_file(rt, one, "key1", false);
  EXPECT_FALSE(workers.loaded);
  EXPECT_NE(workers.message.find("recorded with 1 workers, this run has 2"), std::string::npos) << workers.message;

  std::string bytes = cws::test::slurp(file.path);
  bytes[bytes.size() / 2] ^= 0x5a;
  const std::string bad = file.dir.file("bad.cwst");
  cws::test::spit(bad, bytes);
  const auto damaged = pcg::load_schedule_file(rt, bad, "key1", false);
  EXPECT_FALSE(damaged.loaded);
  EXPECT_NE(damaged.message.find("unusable"), std::string::npos) << damaged.message;
  EXPECT_THROW(pcg::load_schedule_file(rt, bad, "key1", true), cws::error);

  cws::test::spit(bad, "not a trace");
  EXPECT_FALSE(pcg::load_schedule_file(rt, bad, "key1", false).loaded);
  // Nothing of the rejected files was seeded.
  EXPECT_EQ(cws::schedulers::store_of(rt).find(pcg::schedule_name("evolve", "spmv", "key1")), nullptr);
}

// --schedules: a path the file cannot be saved at is reported at startup
// (check_schedule_file_path), and saving never follows or replaces a symlink.
// A FIFO as schedule file is refused at once (alarm: a reader that blocks
// kills the suite instead of hanging it).
TEST(PcgScheduleFile, UnusablePathsAreReportedUpFrontAndNeverFollowed) {
  cws::test::scratch_dir dir;
  EXPECT_NO_THROW(pcg::check_schedule_file_path(dir.file("s.cwst")));
  std::filesystem::create_directory(dir.file("d"));
  EXPECT_THROW(pcg::check_schedule_file_path(dir.file("d")), cws::error);
  EXPECT_THROW(pcg::check_schedule_file_path(dir.file("no/such/s.cwst")), cws::error);

  const std::string victim = dir.file("victim"), link = dir.file("link.cwst");
  cws::test::spit(victim, "precious");
  std::filesystem::create_symlink(victim, link);
  EXPECT_THROW(pcg::check_schedule_file_path(link), cws::error);
  std::filesystem::create_symlink(victim, dir.file("s.cwst.tmp"));  // a planted temporary name
  record_file(dir.file("s.cwst"), "key1", 2, 1);
  EXPECT_THROW(record_file(link, "key1", 2, 1), cws::error);
  EXPECT_EQ(cws::test::slurp(victim), "precious");
  EXPECT_TRUE(std::filesystem::is_symlink(std::filesystem::symlink_status(link)));

  const std::string fifo = dir.file("fifo.cwst");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  cws::runtime rt(two_workers());
  ::alarm(30);
  const auto st = pcg::load_schedule_file(rt, fifo, "key1", false);
  ::alarm(0);
  EXPECT_FALSE(st.loaded);
  EXPECT_NE(st.message.find("not a regular file (a FIFO)"), std::string::npos) << st.message;
}

}  // namespace
