#pragma once
// The `coarsen` policy's search (policies.hpp), once evolve converged: one
// stows run per pruning depth of the converged template (steal_tree::coarsen's
// max_level), then the fastest depth stays. Kept in the schedule's state
// (schedule_store.hpp) so that it lives as long as the schedule; read and
// written by the coarsen policy only (schedulers/src/coarsen_search.cpp).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cws/config.hpp"
#include "cws/run_report.hpp"
#include "cws/steal_tree/tree.hpp"

namespace cws::schedulers {

struct schedule_state;
class schedule_store;

namespace detail {

class coarsen_search {
 public:
  // A depth was kept for the current convergence: nothing left to try until
  // evolve restarts or converges again (either resets the search).
  bool done() const noexcept { return done_; }

  // After a stows run of the converged template: the first call starts the
  // search from the schedule's template, later ones time the depth that run
  // tried. Then the schedule's template becomes the next depth to try or,
  // once every depth ran, the fastest one (r.note says which).
  void after_run(schedule_state& s, run_report& r, const runtime_config& cfg, schedule_store& store);

 private:
  // The depths to try, from the converged tree: the levels at which it has
  // steals, shallowest first, keeping those whose pruned tree still gives
  // every worker work, and the unpruned tree last.
  void start(std::shared_ptr<const steal_tree::tree> converged, const runtime_config& cfg);
  void keep_fastest(schedule_state& s, run_report& r, schedule_store& store);

  std::shared_ptr<const steal_tree::tree> base_;  // the converged, unpruned template
  std::vector<std::uint32_t> depths_;             // to try, in order
  std::size_t next_ = 0;                          // depths_[next_] is the one being tried
  std::uint32_t best_depth_ = 0;
  double best_s_ = 0;
  bool active_ = false;  // trying depths
  bool done_ = false;
};

}  // namespace detail
}  // namespace cws::schedulers
