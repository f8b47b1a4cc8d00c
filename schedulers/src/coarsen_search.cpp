#include "cws/schedulers/coarsen_search.hpp"

#include <fmt/format.h>

#include <iterator>
#include <string>
#include <utility>

#include "cws/schedulers/knobs.hpp"
#include "cws/schedulers/schedule_store.hpp"
#include "cws/steal_tree/coarsen.hpp"
#include "balanced_cuts.hpp"
#include "evolve_controller.hpp"
#include "format_into.hpp"

namespace cws::schedulers::detail {

namespace {
steal_tree::coarsen_options pruned_at(std::uint32_t depth) {
  steal_tree::coarsen_options o;
  o.max_level = depth;
  return o;
}
}  // namespace

void coarsen_search::start(std::shared_ptr<const steal_tree::tree> converged, const runtime_config& cfg) {
  *this = {};
  base_ = std::move(converged);
  const std::vector<std::uint32_t> levels = steal_levels(*base_);
  const unsigned tries = knobs_of(cfg).replay.coarsen_tries;  // the unpruned tree is one of them
  for (const balanced_cut& c : balanced_cuts(*base_, levels, knobs_of(cfg).replay, tries > 0 ? tries - 1 : 0))
    depths_.push_back(c.level);
  depths_.push_back(levels.empty() ? 0 : levels.back());  // unpruned
  active_ = true;
}

void coarsen_search::after_run(schedule_state& s, run_report& r, const runtime_config& cfg, schedule_store& store) {
  if (!active_) {
    start(s.templ, cfg);
  } else {
    if (best_s_ == 0 || r.wall_s < best_s_) {
      best_s_ = r.wall_s;
      best_depth_ = depths_[next_];
    }
    ++next_;
  }
  if (next_ >= depths_.size()) return keep_fastest(s, r, store);
  s.templ = store.share(steal_tree::coarsen(*base_, pruned_at(depths_[next_])));
  format_into(s.template_from, "coarsened to depth {} (try {} of {})", depths_[next_], next_ + 1, depths_.size());
}

void coarsen_search::keep_fastest(schedule_state& s, run_report& r, schedule_store& store) {
  s.templ = store.share(steal_tree::coarsen(*base_, pruned_at(best_depth_)));
  format_into(s.template_from, "coarsened to depth {} (fastest of {} depths)", best_depth_, depths_.size());
  std::string tried;
  for (std::uint32_t d : depths_) fmt::format_to(std::back_inserter(tried), "{}{}", tried.empty() ? "" : ",", d);
  format_into(r.note, "coarsen: tried depths {}; kept depth {} ({:.3f} ms)", tried, best_depth_, best_s_ * 1e3);
  active_ = false;
  done_ = true;
  base_.reset();
}

}  // namespace cws::schedulers::detail
