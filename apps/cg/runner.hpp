#pragma once
// How one variant of cws-cg runs the solver's loops (cg::block_runner):
// common/block_loops.hpp over the row-block indices with one block per
// grain, so a cws leaf is exactly one row block, OpenMP static deals out
// whole blocks, and TBB's partitioners split the block range. Each loop
// (cg::kernel) is one phase of block_loops, so a cws variant runs each in
// its own schedule and tbb-affinity keeps one partitioner per loop.
//
// The init loop can run serially instead (--init serial): one call over all
// blocks on the calling thread, inside a cws phase of the init schedule for
// the cws variants, so that their declared touches give every page a home
// on worker 0's node, as NPB's serial makea first-touches the whole matrix.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cg/solver.hpp"
#include "common/block_loops.hpp"
#include "common/iteration_lines.hpp"
#include "common/ran_as_counts.hpp"

namespace cg {

// What the cws phases of one kernel ran as (their run reports), counted
// over every phase, since the store's history keeps only the latest ones.
struct kernel_log {
  std::uint64_t phases = 0;                   // all phases since the runner was made, init and warm-up included
  cws_apps::ran_as_counts ran_as;            // measured phases per cws::ran_as
  std::optional<std::uint64_t> converged_at;  // first phase (0-based, of `phases`) reported converged (evolve)
};

class loops_runner final : public block_runner {
 public:
  // `schedules`: one per kernel (indexed by cg::index) for the cws flavours, else empty.
  loops_runner(cws_apps::bench_env& env, cws_apps::loop_flavour flavour, std::size_t blocks,
               std::vector<cws::schedule*> schedules, bool serial_init);

  double run(kernel k, const block_body& body) override;
  bool declares_touches() const noexcept override { return loops_.runs_cws_phases(); }

  cws_apps::block_loops& loops() noexcept { return loops_; }
  // Whether the phases from now on belong to measured runs (their ran_as is counted).
  void set_measuring(bool on) noexcept { measuring_ = on; }
  const kernel_log& log(kernel k) const { return logs_.at(index(k)); }
  // Keep the iteration lines of kernel k's phases that `map` covers, taken
  // after each of its phases (cws flavours; common/iteration_lines.hpp).
  void keep_lines(kernel k, const cws_apps::run_map& map) {
    lines_kernel_ = k;
    lines_.emplace(map);
  }
  const std::vector<cws_apps::iteration_line>& lines() const;

 private:
  cws_apps::bench_env& env_;
  std::size_t blocks_;
  std::vector<cws::schedule*> schedules_;
  bool serial_init_;
  cws_apps::block_loops loops_;
  std::vector<kernel_log> logs_;
  bool measuring_ = false;
  kernel lines_kernel_ = kernel::spmv;
  std::optional<cws_apps::line_log> lines_;
};

}  // namespace cg
