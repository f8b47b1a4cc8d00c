#include "lulesh/runners.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <utility>

#include "common/hinted_counts.hpp"

namespace lulesh {

cws_runner::cws_runner(cws::runtime& rt, std::vector<cws::schedule*> schedules, cws_apps::recursion shape,
                       grain_rule grain)
    : rt_(rt), schedules_(std::move(schedules)), shape_(shape), grain_(grain) {
  schedules_.resize(loop_count, nullptr);
  declare_.resize(loop_count);
}

void cws_runner::declare_for(loop_id leader, std::function<void(extent, std::size_t, std::size_t)> declare) {
  declare_[index(leader)] = std::move(declare);
}

void cws_runner::run(loop_id id, std::size_t n, const hint_target& hint, range_fn body) {
  cws::schedule* s = schedules_[index(id)];
  const std::size_t tile = grain_(n);
  const auto& declare = declare_[index(id)];
  const extent over = site(id).over;
  const auto declaring = [&](std::size_t lo, std::size_t hi) {
    declare(over, lo, hi);
    body(lo, hi);
  };
  const cws::run_report& r = rt_.run(*s, [&] {
    if (declare)
      cws_apps::hinted_for(shape_, 0, n, tile, hint, range_fn(declaring));
    else
      cws_apps::hinted_for(shape_, 0, n, tile, hint, body);
  });
  if (!measuring_) return;
  cws_totals& t = totals_;
  ++t.phases;
  t.phase_wall_s += r.wall_s;
  if (r.timeline) t.timeline.add(*r.timeline);
  cws_apps::add_counts(t.work, r);
  if (r.locality) {
    ++t.locality_phases;
    t.touched_bytes += r.locality->touched_bytes;
    t.local_bytes += r.locality->local_bytes;
    t.unknown_bytes += r.locality->unknown_bytes;
    t.min_share = std::min(t.min_share, r.locality->share());
    t.loop_touched[index(id)] += r.locality->touched_bytes;
    t.loop_local[index(id)] += r.locality->local_bytes;
  }
  if (const cws::relocalization_report* m = r.relocalization()) {
    ++t.relocalizations;
    t.pages_moved += m->pages_moved;
    t.relocalization_s += m->seconds;
  }
  t.ran_as.add(r.ran_as);
  t.converged_phases += r.converged;
}

void tbb_runner::run(loop_id, std::size_t n, const hint_target&, range_fn body) {
  const tbb::blocked_range<std::size_t> all(0, n, grain_(n));
  env_.in_tbb([&] {
    tbb::parallel_for(
        all, [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); }, tbb::simple_partitioner());
  });
}

void omp_runner::run(loop_id, std::size_t n, const hint_target&, range_fn body) {
  const std::size_t grain = grain_(n);
  const std::size_t blocks = (n + grain - 1) / grain;
#pragma omp parallel for schedule(static)
  for (std::size_t b = 0; b < blocks; ++b) body(b * grain, std::min(n, (b + 1) * grain));
}

}  // namespace lulesh
