#pragma once
// The variants of cws-pcg and their solves: serial (the reference, built
// first: its matrix gives the pattern hash of the schedule names), cws under
// each policy (with evolve also cws-evolve-follow: every kernel follows
// spmv's template; kernel_schedules.hpp), tbb-affinity, tbb-static and
// omp-static. Each variant has its own matrix, vectors, block loops and
// solver (loops_executor.hpp); a run is one solve from x = 0, and every
// solve is recorded with what its phases ran as.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/block_loops.hpp"
#include "common/rounds.hpp"
#include "pcg/loops_executor.hpp"
#include "pcg/options.hpp"
#include "pcg/schedule_file.hpp"

namespace pcg {

struct solve_record {
  double seconds = 0;
  bool warmup = false;
  unsigned iterations = 0;
  double relres = 0;
  phase_tally tally;
};

struct variant {
  std::string name;
  cws_apps::loop_flavour loop;
  std::string policy{};  // cws variants
  bool follow = false;   // every kernel follows spmv's template
  std::vector<cws::schedule*> schedules{};
  std::unique_ptr<cws_apps::block_loops> loops{};
  std::unique_ptr<system> sys{};
  std::unique_ptr<vectors> vec{};
  std::unique_ptr<loops_executor> exec{};
  std::unique_ptr<pcg::solver> solver{};
  solve_result last{};
  std::vector<solve_record> solves{};
  std::vector<std::uint64_t> first_measured{};  // per kernel: the schedule's iterations at the first measured solve
  bool measuring = false;

  bool runs_cws() const noexcept { return loops->runs_cws_phases(); }
};

class variant_set {
 public:
  // Builds serial, writes its matrix (--write-matrix), loads the schedule
  // file (--schedules) and makes every other variant with its schedules; an
  // unknown policy throws here, before anything runs.
  variant_set(cws_apps::bench_env& env, const options& o, const std::vector<std::string>& policies);
  variant_set(const variant_set&) = delete;
  variant_set& operator=(const variant_set&) = delete;

  using finish_fn = std::function<void(variant&, const cws_apps::phase_timer&)>;
  // Runs the solves of every variant as plan says; finish(v, timer) after its last.
  void measure(const cws_apps::run_plan& plan, const finish_fn& finish);

  const slab& part() const noexcept { return part_; }
  const std::vector<std::string>& kernels() const noexcept { return kernels_; }
  const std::string& key() const noexcept { return key_; }  // the problem part of the schedule names
  const std::optional<schedule_file_status>& file() const noexcept { return file_; }
  std::uint64_t nnz() const noexcept { return nnz_; }

 private:
  void build(variant& v);  // its matrix, vectors, loops and solver, then the init phase
  void one_run(variant& v, cws_apps::phase_timer& t);

  cws_apps::bench_env& env_;
  const problem& prob_;
  solve_options so_;
  slab part_;
  std::vector<std::string> kernels_;
  std::vector<variant> variants_;
  std::string key_;
  std::optional<schedule_file_status> file_;
  std::uint64_t nnz_ = 0;
};

}  // namespace pcg
