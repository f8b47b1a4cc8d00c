// cws-pcg-mpi: the solver of cws-pcg distributed over MPI ranks, one cws
// runtime per rank. Slab decomposition: the grid's row blocks are split into
// contiguous runs, one per rank (whole z-planes and more: a slab owns at least
// the stencil's reach of rows, so halos only come from the next ranks);
// before every phase that reads a vector at neighbouring rows (spmv: p; the
// colour sweeps: z) the halo rows are exchanged with MPI_Sendrecv; each dot
// product is an MPI_Allreduce of the per-block partial sums (every block
// belongs to one rank, the others add zeros, which is exact), added up in
// global block order on every rank. So any rank count gives bitwise the
// iteration count and residual history of one rank with the same blocks.
//
//   mpirun -np 2 cws-pcg-mpi --size 64 --workers 1 --json
//
// Per rank: its own trace (--trace-out FILE writes FILE.rank<N>) and schedule
// file (--schedules FILE reads and writes FILE.rank<N>). Rank 0 prints the
// result: the slowest rank's time to solution per solve, iterations, residuals.

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/block_loops.hpp"
#include "common/report.hpp"
#include "pcg/loops_executor.hpp"
#include "pcg/schedule_file.hpp"
#include "pcg/solver.hpp"

namespace {

using cws_apps::json;

// The executor of one rank: the block loops of its slab, plus the halo
// exchanges and global sums.
class mpi_executor final : public pcg::executor {
 public:
  mpi_executor(pcg::loops_executor& local, const pcg::slab& s, std::size_t reach, int rank, int ranks)
      : local_(local), s_(s), reach_(reach), rank_(rank), ranks_(ranks), global_(s.global_blocks, 0.0) {}

  void run(std::size_t kernel, const block_body& body) override { local_.run(kernel, body); }
  bool declares_touches() const noexcept override { return local_.declares_touches(); }

  void exchange(double* held) override {
    if (ranks_ == 1) return;
    const int count = static_cast<int>(reach_);
    const std::size_t off = s_.offset(), owned = s_.owned();
    const int down = rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL, up = rank_ + 1 < ranks_ ? rank_ + 1 : MPI_PROC_NULL;
    // My first rows to the rank below, its first rows into my upper halo; then the other way.
    MPI_Sendrecv(held + off, down == MPI_PROC_NULL ? 0 : count, MPI_DOUBLE, down, 1, held + off + owned,
                 up == MPI_PROC_NULL ? 0 : count, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(held + off + owned - (up == MPI_PROC_NULL ? 0 : reach_), up == MPI_PROC_NULL ? 0 : count, MPI_DOUBLE,
                 up, 2, held, down == MPI_PROC_NULL ? 0 : count, MPI_DOUBLE, down, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  }

  double sum(const std::vector<double>& local_partials) override {
    std::fill(global_.begin(), global_.end(), 0.0);
    std::copy(local_partials.begin(), local_partials.end(), global_.begin() + static_cast<long>(s_.first_block));
    MPI_Allreduce(MPI_IN_PLACE, global_.data(), static_cast<int>(global_.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double total = 0;
    for (double v : global_) total += v;
    return total;
  }

 private:
  pcg::loops_executor& local_;
  const pcg::slab& s_;
  std::size_t reach_;
  int rank_, ranks_;
  std::vector<double> global_;
};

double max_over_ranks(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return v;
}
double sum_over_ranks(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return v;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

int run(int argc, char** argv, int rank, int ranks) {
  CLI::App app{"Preconditioned CG over MPI ranks, one cws runtime per rank", "cws-pcg-mpi"};
  cws_apps::common_options opt;
  opt.policy = "evolve";
  opt.plan.runs = pcg::default_runs;
  pcg::problem prob;
  int stencil = 7;
  std::string coef = "constant", precond = "sgs", loop = "cws", schedules_path;
  pcg::solve_options so;
  std::size_t block_rows = 0;
  app.add_option("--size", prob.n, "Grid side n")->check(CLI::Range(std::size_t{2}, std::size_t{1024}));
  app.add_option("--stencil", stencil, "7 or 27 points")->check(CLI::IsMember({7, 27}));
  app.add_option("--coef", coef, "constant, aniso, variable")->check(CLI::IsMember({"constant", "aniso", "variable"}));
  app.add_option("--anisotropy", prob.anisotropy, "z coupling of --coef aniso")->check(CLI::Range(1e-6, 1e6));
  app.add_option("--precond", precond, "none, jacobi, sgs")->check(CLI::IsMember({"none", "jacobi", "sgs"}));
  app.add_option("--tol", so.tol, "Stop at |r| / |b| <= tol")->check(CLI::Range(1e-15, 0.5));
  app.add_option("--max-iters", so.max_iters, "Give up after this many iterations")->check(CLI::Range(1u, 1000000u));
  app.add_option("--block-rows", block_rows,
                 "Rows per block (0: about 16 blocks per worker over all ranks; give the same value to compare rank "
                 "counts with different worker totals)");
  app.add_option("--loop", loop, "Loops of each rank: cws (the --policy), omp-static, tbb-affinity, serial")
      ->check(CLI::IsMember({"cws", "omp-static", "tbb-affinity", "serial"}))
      ->capture_default_str();
  app.add_option("--schedules", schedules_path, "Per-rank schedule files FILE.rank<N>: loaded if they match, saved");
  cws_apps::add_common_options(app, opt);
  app.remove_option(app.get_option("--iters"));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
  }
  prob.stencil = stencil == 27 ? pcg::stencil_kind::twenty_seven : pcg::stencil_kind::seven;
  prob.coef = pcg::parse_coefficient(coef);
  so.pc = pcg::parse_preconditioner(precond);
  const std::string suffix = fmt::format(".rank{}", rank);
  if (!opt.trace_out.empty()) opt.trace_out += suffix;
  if (!opt.trace_in.empty()) opt.trace_in += suffix;
  // Each rank's workers stay on its own CPUs: cws places them on the CPU set
  // mpirun bound the rank to, or, with --bind-to none, on the rank's share of
  // the node's cores (its local rank from the launcher); cpu_rule() says which.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_ranks = 1;
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_free(&node);
  cws_apps::bench_env env(opt);
  cws::runtime& rt = env.rt();
  const auto total_workers = static_cast<unsigned>(sum_over_ranks(env.workers()));
  if (block_rows == 0) block_rows = pcg::default_block_rows(prob, total_workers);
  const pcg::slab part = pcg::make_slab(prob, block_rows, static_cast<unsigned>(rank), static_cast<unsigned>(ranks));
  const std::vector<std::string> kernels = pcg::kernel_names(so.pc, prob.colours());
  constexpr std::size_t k_spmv = 2;

  pcg::system sys(prob, part, cws::numa::first_touch);
  pcg::vectors vec(part, cws::numa::first_touch);
  // The pattern hash needs the filled matrix, the schedule names need the
  // hash: a serial pre-fill for it, then the real init phase refills in place.
  sys.fill_blocks(0, part.blocks);
  const std::string key = fmt::format("{},{},{}x{},h={:08x},rank={}/{}", prob.describe(), precond, part.global_blocks,
                                      part.block_rows, sys.pattern_hash() & 0xffffffffu, rank, ranks);
  std::optional<pcg::schedule_file_status> file;
  if (!schedules_path.empty()) {
    file = pcg::load_schedule_file(rt, schedules_path + suffix, key, false);
    std::fprintf(stderr, "rank %d: %s\n", rank, file->message.c_str());
  }
  const auto flavour = loop == "omp-static"     ? cws_apps::loop_flavour::omp_static
                       : loop == "tbb-affinity" ? cws_apps::loop_flavour::tbb_affinity
                       : loop == "serial"       ? cws_apps::loop_flavour::serial
                       : opt.policy == "user"   ? cws_apps::loop_flavour::cws_owned
                                                : cws_apps::loop_flavour::cws;
  std::vector<cws::schedule*> schedules;
  if (cws_apps::runs_cws_phases(flavour)) {
    const std::string spmv = pcg::schedule_name(opt.policy, "spmv", key);
    for (const std::string& k : kernels) {
      cws::schedule& s = rt.schedule(pcg::schedule_name(opt.policy, k, key), k == "check" ? "random" : opt.policy);
      if (cws_apps::replays(opt.policy) && k == "init") s.follow(spmv);
      schedules.push_back(&s);
    }
  }
  cws_apps::block_loops loops(env, flavour, part.blocks, 1,
                              schedules.empty() ? std::vector<cws::schedule*>(kernels.size()) : schedules);
  pcg::loops_executor local(loops, schedules, k_spmv);
  mpi_executor exec(local, part, prob.reach(), rank, ranks);
  pcg::solver solver(sys, vec, exec, so);
  solver.init();

  json solves = json::array();
  std::vector<double> measured;
  pcg::solve_result res;
  for (unsigned i = 0; i < opt.plan.warmup + opt.plan.runs; ++i) {
    local.begin_solve();
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    res = solver.solve();
    const double s = max_over_ranks(MPI_Wtime() - t0);
    const pcg::phase_tally& t = local.tally();
    const double relws_it = sum_over_ranks(t.relws_iterations), stows = sum_over_ranks(t.stows);
    if (i >= opt.plan.warmup) measured.push_back(s);
    solves.push_back({{"solve", i},
                      {"warmup", i < opt.plan.warmup},
                      {"seconds", s},
                      {"iterations", res.iterations},
                      {"relres_hex", fmt::format("{:a}", res.relres)},
                      {"relws_iterations_all_ranks", relws_it},
                      {"stows_phases_all_ranks", stows}});
  }
  const double true_relres = solver.true_relres();
  const auto err = solver.error_parts();
  const double rel_err = std::sqrt(sum_over_ranks(err.sq_diff) / sum_over_ranks(err.sq_exact));
  const double bound = prob.condition_bound() * (true_relres + 64 * 2.2e-16);
  const bool ok = res.converged && rel_err <= bound;
  env.save_trace();
  if (!schedules_path.empty()) pcg::save_schedule_file(rt, schedules_path + suffix);

  if (rank == 0) {
    json doc{{"app", "pcg-mpi"},
             {"params",
              {{"ranks", ranks},
               {"ranks_per_node", node_ranks},
               {"pinned", rt.config().pin},
               {"cpus_rank0", rt.topology().cpu_rule()},
               {"workers_per_rank", env.workers()},
               {"total_workers", total_workers},
               {"size", prob.n},
               {"stencil", stencil},
               {"coef", coef},
               {"precond", precond},
               {"tol", so.tol},
               {"loop", loop},
               {"policy", opt.policy},
               {"block_rows", part.block_rows},
               {"blocks", part.global_blocks},
               {"runs", opt.plan.runs},
               {"warmup", opt.plan.warmup}}},
             {"topology", env.topology_json()},
             {"results",
              {{"iterations", res.iterations},
               {"converged", res.converged},
               {"relres", res.relres},
               {"relres_hex", fmt::format("{:a}", res.relres)},
               {"true_relres", true_relres},
               {"error_2", rel_err},
               {"error_bound", bound},
               {"verified", ok},
               {"median_s", median(measured)},
               {"first_s", solves.front()["seconds"]},
               {"solves", solves}}}};
    if (opt.json) {
      fmt::print("{}\n", doc.dump(2));
    } else {
      fmt::print("cws-pcg-mpi: {} ranks x {} workers, {} with {}, {} blocks of {} rows\n", ranks, env.workers(),
                 prob.describe(), precond, part.global_blocks, part.block_rows);
      fmt::print("  {} iterations, |r|/|b| = {:.6e} ({:a}), true {:.3e}, error {:.3e} (bound {:.3e})\n", res.iterations,
                 res.relres, res.relres, true_relres, rel_err, bound);
      for (const json& s : solves)
        fmt::print("  solve {}{}: {:.1f} ms, relws iterations (all ranks) {}\n", s["solve"].get<unsigned>() + 1,
                   s["warmup"].get<bool>() ? " (warm-up)" : "", s["seconds"].get<double>() * 1e3,
                   s["relws_iterations_all_ranks"].get<double>());
      fmt::print("  median time to solution {:.1f} ms\n", median(measured) * 1e3);
    }
    std::fflush(stdout);
    if (!ok)
      std::fprintf(stderr, "cws-pcg-mpi: error: %s\n",
                   res.converged ? "error against the manufactured solution over its bound" : "not converged");
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int code = 0;
  try {
    code = run(argc, argv, rank, ranks);
  } catch (const std::exception& e) {
    // One rank failing leaves the others in a collective: abort them all.
    const bool usage = dynamic_cast<const cws::error*>(&e) != nullptr || dynamic_cast<const std::invalid_argument*>(&e);
    std::fprintf(stderr, "cws-pcg-mpi: rank %d: error: %s\n", rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, usage ? 2 : 1);
  }
  MPI_Finalize();
  return code;
}
