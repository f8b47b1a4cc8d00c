#pragma once
// The runtime's data-placement state (DESIGN §5): the page-home backend it
// picked, and the two things done with the touches of a phase run: the
// locality report (after every phase that declared touches) and
// relocalization (runtime::relocalize). Used between phases only, on the
// runtime's calling thread.
//
// On a machine with one NUMA node every page is on it: the report comes from
// the run's touches alone (every declared byte local), at O(ranges), and no
// page is gone over. Elsewhere it costs O(pages touched) to make (usage per page, a home
// per page). A phase that repeats touches the same bytes run after run, so
// each schedule keeps what its last two reports were made from
// (locality_memo: two, for a phase that alternates two buffers) and the next
// run reuses one, at O(ranges) for the comparison (each worker's ranges
// arrive sorted: node_coverage merges them) and without an allocation, when
//   * the run touched the same bytes from the same nodes, as many times
//     (however the work was split among a node's workers), and
//   * no page home can have changed since: the homes epoch counts every move
//     and first-touch placement made through the backend (cws's
//     relocalization, or a program's own calls on runtime::page_homes()) and
//     every cws::numa region registered or released (simulated homes come
//     from a region's placement), and
//   * the report knew every page's home (a page not yet faulted in gets one
//     later without any move), and
//   * fewer than `refresh_runs` runs reused it: then the kernel is asked again
//     for every page (pages moved behind cws's back -- automatic NUMA
//     balancing, a program's own move_pages or mbind -- show within that many
//     reuses, as they did through cached_page_homes).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cws/config.hpp"
#include "cws/detail/locality_memo.hpp"
#include "cws/locality.hpp"
#include "cws/page_homes.hpp"
#include "cws/topology.hpp"

namespace cws::detail {

class cached_page_homes;

// The backend as the runtime hands it out (runtime::page_homes()): forwards
// everything, counting the calls that may change a home.
class counted_page_homes final : public numa::page_homes {
 public:
  explicit counted_page_homes(std::unique_ptr<numa::page_homes> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  void query(std::span<const std::uintptr_t> pages, std::span<int> homes) override { inner_->query(pages, homes); }
  void first_touch(std::span<const std::uintptr_t> pages, std::span<const unsigned> nodes,
                   std::span<int> homes) override {
    ++changes_;
    inner_->first_touch(pages, nodes, homes);
  }
  numa::move_outcome move(std::span<const std::uintptr_t> pages, std::span<const unsigned> nodes) override {
    ++changes_;
    return inner_->move(pages, nodes);
  }
  std::size_t page_size() const noexcept override { return inner_->page_size(); }
  std::uint64_t changes() const noexcept { return changes_; }

 private:
  std::unique_ptr<numa::page_homes> inner_;
  std::uint64_t changes_ = 0;
};

// The canonical per-node form of `touches` (locality_memo.hpp) into
// m.current, from each worker's ranges sorted and merged (touch_log::take):
// per node, the workers' sorted sequences merged pairwise, O(R log workers)
// for R ranges. Allocates only to grow m's scratch vectors.
void node_coverage(const touch_map& touches, std::span<const unsigned> node_of_worker, unsigned nodes,
                   locality_memo& m);

class data_placement {
 public:
  // Runs a memo may be reused before the homes are asked again (see above).
  static constexpr unsigned refresh_runs = 256;

  // Picks the backend (runtime_config::pages). Throws cws::error when the
  // kernel backend was asked for and cannot work here.
  data_placement(const runtime_config& cfg, const cws::topology& topo, const std::vector<worker_placement>& placement);

  numa::page_homes& homes() noexcept { return *homes_; }
  // "simulated (synthetic topology)", "kernel (auto)", ...: which backend and why.
  const std::string& description() const noexcept { return description_; }

  // Where the bytes of `touches` (one phase run) lived, into `out`. Pages
  // nobody placed yet take their first toucher's node (simulated first touch)
  // first. Reuses a report of `memo` when it still holds (see above), else
  // makes the report and keeps it in place of the one used least recently.
  // Returns the pages gone over: 0 when a report was reused, or on one node.
  std::uint64_t measure(const touch_map& touches, locality_memo& memo, std::optional<locality_report>& out);
  // Moves every page of `touches` whose home is not its desired node. The
  // report's schedule and iteration are left for the caller.
  relocalization_report relocalize(const touch_map& touches);

  // Changes whenever a page home may have changed (see above).
  std::uint64_t homes_epoch() const noexcept;

 private:
  page_usage usage(const touch_map& touches) const;

  std::unique_ptr<counted_page_homes> homes_;
  cached_page_homes* kernel_cache_ = nullptr;  // inside homes_, when the kernel backend is in use
  std::string description_;
  std::vector<unsigned> node_of_worker_;
  unsigned nodes_;
};

}  // namespace cws::detail
