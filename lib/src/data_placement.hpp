#pragma once
// The runtime's data-placement state (DESIGN §5): the page-home backend it
// picked, and the two things done with the touches of a phase run: the
// locality report (after every phase that declared touches) and
// relocalization (runtime::relocalize). Used between phases only, on the
// runtime's calling thread.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cws/config.hpp"
#include "cws/locality.hpp"
#include "cws/page_homes.hpp"
#include "cws/topology.hpp"

namespace cws::detail {

class data_placement {
 public:
  // Picks the backend (runtime_config::pages). Throws cws::error when the
  // kernel backend was asked for and cannot work here.
  data_placement(const runtime_config& cfg, const cws::topology& topo, const std::vector<worker_placement>& placement);

  numa::page_homes& homes() noexcept { return *homes_; }
  // "simulated (synthetic topology)", "kernel (auto)", ...: which backend and why.
  const std::string& description() const noexcept { return description_; }

  // Where the bytes of `touches` (one phase run) lived. Pages nobody placed
  // yet take their first toucher's node (simulated first touch) first.
  locality_report measure(const touch_map& touches);
  // Moves every page of `touches` whose home is not its desired node. The
  // report's schedule and iteration are left for the caller.
  relocalization_report relocalize(const touch_map& touches);

 private:
  page_usage usage(const touch_map& touches) const;

  std::unique_ptr<numa::page_homes> homes_;
  std::string description_;
  std::vector<unsigned> node_of_worker_;
  unsigned nodes_;
};

}  // namespace cws::detail
