#include "common/hinted_figures.hpp"

#include <algorithm>

#include "common/table_columns.hpp"

namespace pufferfish {

phase_counts& phase_counts::operator+=(const phase_counts& o) noexcept {
  phases += o.phases;
  cws_apps::add_counts(work, o.work);
  return *this;
}

counter_tally::~counter_tally() {
  try {
    rt_.remove_observer(*this);
  } catch (...) {  // refused only during a phase, which a destructor between phases never is
  }
}

void counter_tally::on_phase_end(const cws::phase_stats& stats) {
  phase_counts c;
  c.phases = 1;
  cws_apps::add_counts(c.work, stats);
  log_.of(stats.phase).push_back({stats.phase.iteration, c});
}

phase_counts counter_tally::summarize(std::string_view schedule, std::uint64_t first, std::uint64_t end) const {
  phase_counts sum;
  const std::deque<run>* runs = log_.find(schedule);
  if (runs == nullptr) return sum;
  for (const run& r : *runs)
    if (r.iteration >= first && r.iteration < end) sum += r.counts;
  return sum;
}

measured_runs measured(const cws::schedule& s, std::uint64_t start, unsigned per_run, const cws_apps::run_plan& plan) {
  return {&s, start + std::uint64_t{plan.warmup} * per_run, start + std::uint64_t{plan.warmup + plan.runs} * per_run};
}

void put_cws_figures(cws_apps::json& entry, const cws_apps::locality_tally& locality, const counter_tally& counters,
                     const std::vector<measured_runs>& kernel, const measured_runs& init) {
  using cws_apps::json;
  entry["init_policy"] = std::string(init.schedule->policy_name());
  json names = json::array({init.schedule->name()});
  phase_counts sum;
  cws_apps::locality_summary loc;
  for (const measured_runs& k : kernel) {
    names.push_back(k.schedule->name());
    sum += counters.summarize(k.schedule->name(), k.first, k.end);
    loc = cws_apps::merged(loc, locality.summarize(k.schedule->name(), k.first, k.end));
  }
  entry["schedules"] = names;
  json follows = json::array();
  for (const measured_runs& k : kernel) follows.push_back(k.schedule->follows());
  entry["follows"] = follows;
  entry["phases"] = sum.phases;
  const double phases = sum.phases ? static_cast<double>(sum.phases) : 1.0;
  entry["tasks_per_phase"] = static_cast<double>(sum.work.tasks) / phases;
  entry["steals_per_phase"] = static_cast<double>(sum.work.steals) / phases;
  cws_apps::put_hinted_counts(entry, sum.work, [](std::uint64_t total) { return total; });
  cws_apps::put_locality(entry, loc, "local_share");
  const cws_apps::locality_summary init_loc = locality.summarize(init.schedule->name(), init.first, init.end);
  entry["init_local_share"] = cws_apps::share_or_null(init_loc);

  bool converged = true;
  for (const measured_runs& k : kernel) {
    const cws::run_report* last = k.schedule->last_report();
    converged = converged && last != nullptr && last->converged;
  }
  const cws::run_report* last = kernel.empty() ? nullptr : kernel.back().schedule->last_report();
  entry["ran_as_last"] = last ? json(std::string(cws::to_string(last->ran_as))) : json(nullptr);
  const std::string_view policy = kernel.empty() ? std::string_view{} : kernel.back().schedule->policy_name();
  if (policy == cws::policy::evolve || policy == cws::policy::evolve_hinted) entry["converged"] = converged;
}

std::vector<cws_apps::column> table_columns(const std::string& time_title) {
  std::vector<cws_apps::column> c = cws_apps::time_columns(time_title, 3);
  c.insert(c.end(), {{"init ms", "init_median_s", 1e3, 2},
                     {"vs serial", "ratio_vs_serial", 1, 2},
                     {"vs random-ft", "ratio_vs_random_ft", 1, 2},
                     {"vs hinted", "ratio_vs_hinted", 1, 2},
                     {"tasks/ph", "tasks_per_phase", 1, 0},
                     {"leaf", "hinted_leaf"},
                     {"node", "hinted_node"},
                     {"root", "hinted_root"},
                     {"het %", "het_share", 100, 1}});
  const std::vector<cws_apps::column> locality = cws_apps::locality_columns();
  c.insert(c.end(), locality.begin(), locality.end());
  c.push_back({"ok", "verified"});
  return c;
}

const std::vector<cws_apps::ratio_spec>& ratios() {
  static const std::vector<cws_apps::ratio_spec> r{{"ratio_vs_serial", "median_s", "serial"},
                                                   {"ratio_vs_random_ft", "median_s", "cws-random-ft"},
                                                   {"ratio_vs_hinted", "median_s", "cws-hinted"},
                                                   {"ratio_vs_omp_static", "median_s", "omp-static"}};
  return r;
}

}  // namespace pufferfish
