#include "mg/variants.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace mg_app {

namespace {
struct strategy_words {
  strategy value;
  std::string_view name;
  std::string_view schedules;  // what --help says the strategy's schedules are
};
constexpr std::array<strategy_words, 3> strategies{
    {{strategy::one, "one", "a single schedule for every kernel call"},
     {strategy::per_kernel, "per-kernel", "one per kernel and level"},
     {strategy::per_level, "per-level", "one per level, shared by its kernels"}}};  // in enum order
}  // namespace

std::string_view to_string(strategy s) noexcept {
  const auto i = static_cast<std::size_t>(s);
  return i < strategies.size() ? strategies[i].name : "?";
}

std::optional<strategy> strategy_named(std::string_view name) noexcept {
  for (const strategy_words& w : strategies)
    if (w.name == name) return w.value;
  return std::nullopt;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const strategy_words& w : strategies) names.emplace_back(w.name);
  return names;
}

std::string strategy_descriptions() {
  std::string text;
  for (const strategy_words& w : strategies)
    text += fmt::format("{}{} ({})", text.empty() ? "" : ", ", w.name, w.schedules);
  return text;
}

std::string schedule_name(strategy s, mg::kernel k, unsigned level, std::string_view suffix) {
  if (k == mg::kernel::init) return fmt::format("mg-init-L{}/{}", level, suffix);
  switch (s) {
    case strategy::one:
      return fmt::format("mg/{}", suffix);
    case strategy::per_kernel:
      return fmt::format("mg-{}-L{}/{}", mg::to_string(k), level, suffix);
    case strategy::per_level:
      return fmt::format("mg-L{}/{}", level, suffix);
  }
  return {};
}

void phase_tally::put(cws_apps::json& e) const {
  using cws_apps::json;
  e["phases"] = phases;
  e["schedule_names"] = schedules;
  // The split of a phase's rt.run: the phase itself (first task to last), and
  // the rest (waking the workers, the join, the locality report, evolve's
  // relocalization, the policy's bookkeeping).
  e["phase_wall_s"] = phases ? json(phase_wall_s / static_cast<double>(phases)) : json(nullptr);
  e["outside_wall_s"] = phases ? json((run_call_s - phase_wall_s) / static_cast<double>(phases)) : json(nullptr);
  if (timeline.calls() > 0) e["phase_timeline"] = timeline.to_json();
  json kinds = json::object();
  for (const auto& [kind, n] : ran_as.by_token()) kinds[kind] = n;
  e["ran_as"] = kinds;
  const std::uint64_t replayed = ran_as.of(cws::ran_as::stows) + ran_as.of(cws::ran_as::stuws) +
                                 ran_as.of(cws::ran_as::relws) + ran_as.of(cws::ran_as::user);
  e["replayed_share"] = phases ? json(static_cast<double>(replayed) / static_cast<double>(phases)) : json(nullptr);
  e["diverged_phases"] = diverged;
  e["local_share"] = reported ? json(share_sum / static_cast<double>(reported)) : json(nullptr);
  e["local_share_min"] = reported ? json(share_min) : json(nullptr);
  e["local_share_last"] = reported ? json(last_run_share) : json(nullptr);
  e["local_bytes_share"] =
      touched_bytes ? json(static_cast<double>(local_bytes) / static_cast<double>(touched_bytes)) : json(nullptr);
  e["unknown_bytes"] = unknown_bytes;
  json by_loop = json::object();
  for (const auto& [loop, sum] : share_by_loop) by_loop[loop] = sum.first / static_cast<double>(sum.second);
  e["local_share_by_loop"] = by_loop;
  e["relocalizations"] = relocalizations;
  e["pages_moved"] = pages_moved;
  e["relocalization_s"] = relocalization_s;
}

variant_runner::variant_runner(cws_apps::bench_env& env, cws_apps::loop_flavour flavour, unsigned levels,
                               unsigned first_parallel_level, std::size_t block_planes,
                               const std::vector<std::vector<cws::schedule*>>& schedules)
    : flavour_(flavour), first_parallel_(first_parallel_level), loops_(levels + 1), schedules_(schedules) {
  if (flavour_ == cws_apps::loop_flavour::serial) return;  // every level on the caller
  for (unsigned k = first_parallel_level; k <= levels; ++k) {
    std::vector<cws::schedule*> per_kernel(mg::kernel_count, nullptr);
    if (cws_apps::runs_cws_phases(flavour_)) per_kernel = schedules_.at(k);
    const std::size_t planes = mg::interior_of(k);
    loops_[k] = std::make_unique<cws_apps::block_loops>(env, flavour_, planes, std::min(block_planes, planes),
                                                        std::move(per_kernel));
  }
}

void variant_runner::begin_run(bool measured) {
  measured_ = measured;
  calls_s_ = 0;
  run_share_sum_ = 0;
  run_reported_ = 0;
}

void variant_runner::run(mg::kernel k, unsigned level, std::size_t planes, const body_fn& body) {
  if (!parallel(level)) {
    body(0, planes);
    return;
  }
  const double call_s = loops_[level]->run(static_cast<std::size_t>(k), body);
  calls_s_ += call_s;
  if (cws_apps::runs_cws_phases(flavour_) && measured_ && k != mg::kernel::init)
    if (const cws::run_report* r = schedules_[level][static_cast<std::size_t>(k)]->last_report())
      count(*r, k, level, call_s);
}

void variant_runner::count(const cws::run_report& r, mg::kernel k, unsigned level, double call_s) {
  phase_tally& t = tally_;
  ++t.phases;
  t.run_call_s += call_s;
  t.phase_wall_s += r.wall_s;
  if (r.timeline) t.timeline.add(*r.timeline);
  t.schedules.insert(r.phase.schedule);
  t.ran_as.add(r.ran_as);
  t.diverged += r.diverged();
  if (r.locality) {
    const double share = r.locality->share();
    ++t.reported;
    t.share_sum += share;
    t.share_min = std::min(t.share_min, share);
    t.touched_bytes += r.locality->touched_bytes;
    t.local_bytes += r.locality->local_bytes;
    t.unknown_bytes += r.locality->unknown_bytes;
    auto& loop = t.share_by_loop[fmt::format("{}-L{}", mg::to_string(k), level)];
    loop.first += share;
    ++loop.second;
    run_share_sum_ += share;
    ++run_reported_;
    t.last_run_share = run_share_sum_ / static_cast<double>(run_reported_);  // so far in this run
  }
  if (const cws::relocalization_report* moved = r.relocalization()) {
    ++t.relocalizations;
    t.pages_moved += moved->pages_moved;
    t.relocalization_s += moved->seconds;
  }
}

}  // namespace mg_app
