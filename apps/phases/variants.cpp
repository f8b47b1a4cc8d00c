#include "phases/variants.hpp"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "common/loop_flavour_names.hpp"
#include "phases/gap_cpu.hpp"
#include "phases/kernel.hpp"

namespace phases {

namespace {

std::size_t largest_elements(const std::vector<size_case>& sizes, const size_case& gap_size) {
  std::size_t most = std::max<std::size_t>(1, gap_size.elements);
  for (const size_case& s : sizes) most = std::max(most, s.elements);
  return most;
}

}  // namespace

variant_set::variant_set(cws_apps::bench_env& env, const options& o, const std::vector<std::string>& policies,
                         unsigned iters)
    : rt_(env.rt()),
      blocks_(o.blocks == 0 ? env.workers() : o.blocks),
      gaps_ms_(o.no_gaps ? std::vector<double>{} : o.gaps_ms),
      declare_touches_(o.declare_touches),
      skew_(o.skew_pct / 100.0),
      sizes_(size_cases(o.sizes_kib, iters)),
      gap_size_(gap_case(o.gap_kib)),
      gap_phase_(sizes_.size()),
      max_elements_(largest_elements(sizes_, gap_size_)),
      // Both arrays faulted in and filled before anything is timed.
      a_(cws::numa::allocate<double>(max_elements_, cws::numa::first_touch)),
      b_(cws::numa::allocate<double>(max_elements_, cws::numa::first_touch)) {
  cws::numa::prefault_zero(a_);
  cws::numa::prefault_zero(b_);
  // The checksum of every size after verify_calls phases, computed by one
  // serial loop over the whole range: what every variant must match exactly.
  for (const size_case& s : sizes_) {
    fill(a_.data(), b_.data(), s.elements);
    for (unsigned c = 0; c < verify_calls; ++c) scale_add(a_.data(), b_.data(), 0, s.elements);
    expected_.push_back(checksum(a_.data(), s.elements));
  }
  fill(a_.data(), b_.data(), max_elements_);

  // All schedules are created before anything runs, so an unknown policy fails at once (exit 2).
  variants_.push_back({.name = "serial", .loop = cws_apps::loop_flavour::serial});
  for (const std::string& p : policies)
    variants_.push_back({.name = "cws-" + p, .loop = cws_apps::cws_flavour_of(p), .policy = p});
  for (const char* name : {"tbb-simple", "tbb-static", "tbb-affinity", "omp-static"})
    variants_.push_back({.name = name, .loop = cws_apps::flavour_named(name)});
  for (variant& v : variants_) {
    // cws: one schedule per size (a template fits one loop shape) and one
    // for the gaps; TBB affinity: one partitioner per size, kept across runs.
    std::vector<cws::schedule*> schedules(sizes_.size() + 1, nullptr);
    if (cws_apps::runs_cws_phases(v.loop)) {
      for (std::size_t k = 0; k < sizes_.size(); ++k)
        schedules[k] = &rt_.schedule("phases/" + v.policy + "/" + sizes_[k].label, v.policy);
      schedules[gap_phase_] = &rt_.schedule("phases/" + v.policy + "/gaps", v.policy);
    }
    // The loops run over the leaves: `blocks` indices, one per leaf.
    v.schedules = schedules;
    v.loops = std::make_unique<cws_apps::block_loops>(env, v.loop, blocks_, 1, std::move(schedules));
    v.gap_cpu.resize(gaps_ms_.size());
    v.gap_phase.resize(gaps_ms_.size());
  }
}

leaves variant_set::leaves_of(const size_case& s, unsigned* visits) {
  return leaves{a_.data(), b_.data(), s.elements, blocks_, declare_touches_, visits, skew_};
}

std::vector<cws_apps::phase_timer> variant_set::measure(const cws_apps::run_plan& plan) {
  return cws_apps::measure_variants(
      variants_, plan, [](variant&) {}, [this](variant& v, cws_apps::phase_timer& t) { one_run(v, t); },
      [this](variant& v, const cws_apps::phase_timer&) { finish(v); });
}

void variant_set::one_run(variant& v, cws_apps::phase_timer& t) {
  v.loops->begin_run(t);
  for (std::size_t k = 0; k < sizes_.size(); ++k) {
    const leaves body = leaves_of(sizes_[k]);
    v.loops->run(k, body);  // untimed: caches and threads as this variant left them
    t.time_reported(sizes_[k].label, sizes_[k].calls, [&] { return v.loops->run(k, body); });
  }
  if (gaps_ms_.empty()) return;
  // Whatever another variant's threads still did has stopped long ago
  // (this variant's sizes ran since); a short pause makes sure of it even
  // with small --sizes.
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const leaves between = leaves_of(gap_size_);
  for (std::size_t g = 0; g < gaps_ms_.size(); ++g) {
    const double gap_s = gaps_ms_[g] * 1e-3;
    const gap_cycles m = measure_gaps(cycles_for(gap_s), gap_s, [&] { v.loops->run(gap_phase_, between); });
    if (!t.recording()) continue;
    v.gap_cpu[g].add(m.cpu_share_of_gap());
    v.gap_phase[g].add(m.phase_share());
  }
}

// After the runs: the breakdown of the measured cws phases, then the
// verification (untimed): from the initial contents, verify_calls phases
// of each size; every leaf must run once per call and the checksum must
// equal the serial loop's.
void variant_set::finish(variant& v) {
  for (std::size_t k = 0; k < sizes_.size(); ++k) v.clocks.push_back(v.loops->clock(k));
  if (v.loops->runs_cws_phases()) {          // the breakdown: as many calls again, timed (phase_timeline)
    const bool timing = rt_.times_phases();  // --phase-timeline: on for the measured calls too
    rt_.time_phases(true);
    for (std::size_t k = 0; k < sizes_.size(); ++k) {
      const leaves body = leaves_of(sizes_[k]);
      cws_apps::timeline_figures& f = v.timelines.emplace_back();
      for (unsigned c = 0; c < sizes_[k].calls; ++c) {
        v.loops->run(k, body);
        f.add(*v.schedules[k]->last_report()->timeline);
      }
    }
    rt_.time_phases(timing);
  }
  for (std::size_t k = 0; k < sizes_.size(); ++k) {
    const size_case& s = sizes_[k];
    fill(a_.data(), b_.data(), s.elements);
    std::vector<unsigned> visits(blocks_, 0);
    for (unsigned c = 0; c < verify_calls; ++c) v.loops->run(k, leaves_of(s, visits.data()));
    const double sum = checksum(a_.data(), s.elements);
    v.checksums.push_back(sum);
    v.verified.push_back(sum == expected_[k] &&
                         std::all_of(visits.begin(), visits.end(), [](unsigned n) { return n == verify_calls; }));
  }
}

}  // namespace phases
