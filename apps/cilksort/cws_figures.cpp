#include "cilksort/cws_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "common/hinted_counts.hpp"

namespace cilksort {

namespace {

bool replays(std::string_view policy) {
  return policy == cws::policy::stows || policy == cws::policy::stuws || policy == cws::policy::relws ||
         policy == cws::policy::evolve || policy == cws::policy::evolve_hinted || policy == cws::policy::coarsen;
}

double per_sort(std::uint64_t total, std::uint64_t sorts) {
  return sorts ? static_cast<double>(total) / static_cast<double>(sorts) : 0.0;
}

}  // namespace

sort_lines put_cws_figures(cws_apps::json& e, const variant& v, const cws_apps::locality_tally& tally) {
  std::vector<cws_apps::iteration_line> lines = v.sort_lines->lines();
  const std::string policy(v.spec.policy);
  e["policy"] = policy;
  e["placement"] = cws::numa::to_string(v.spec.placement);
  e["schedules"] = {{"sort", v.sort_schedule->name()}, {"init", v.init_schedule->name()}};
  e["init_policy"] = std::string(v.init_schedule->policy_name());

  const sort_counters& c = v.counters;
  e["sorts"] = c.sorts;
  e["tasks"] = per_sort(c.work.tasks, c.sorts);
  e["steals"] = per_sort(c.work.steals, c.sorts);
  cws_apps::put_hinted_counts(e, c.work, [&](std::uint64_t total) { return per_sort(total, c.sorts); });

  // The measured sorts are the schedule's last ones; init's measured writes too.
  const std::uint64_t end = v.sort_schedule->iterations();
  cws_apps::put_locality(e, tally.summarize(v.sort_schedule->name(), end - c.sorts, end));
  const std::uint64_t init_end = v.init_schedule->iterations();
  const cws_apps::locality_summary init = tally.summarize(v.init_schedule->name(), init_end - c.sorts, init_end);
  e["init_local_share"] = cws_apps::share_or_null(init);
  cws_apps::put_phase_breakdown(e, v.clock);

  cws_apps::put_summary(e, lines, policy);
  if (!replays(policy)) e["replayed_share"] = nullptr;
  std::size_t diverged = 0;
  for (const cws_apps::iteration_line& l : lines) diverged += l.report.diverged();
  e["diverged_runs"] = diverged;
  if (replays(policy)) {
    const auto first =
        std::find_if(lines.begin(), lines.end(), [](const cws_apps::iteration_line& l) { return l.report.converged; });
    e["converged"] = !lines.empty() && lines.back().report.converged;
    e["converged_at"] = first == lines.end() ? cws_apps::json(nullptr) : cws_apps::json(first - lines.begin());
  }
  e["iterations"] = cws_apps::lines_json(lines);
  return {fmt::format("{}: schedule \"{}\" (policy {}, arrays {}), one line per sort, warm-up first", v.name,
                      v.sort_schedule->name(), v.spec.policy, cws::numa::to_string(v.spec.placement)),
          std::move(lines)};
}

void print_sort_lines(const std::vector<sort_lines>& blocks) {
  for (const sort_lines& b : blocks) {
    std::vector<cws_apps::iteration_line> numbered = b.lines;
    for (std::size_t i = 0; i < numbered.size(); ++i) numbered[i].run = 0, numbered[i].index = static_cast<unsigned>(i);
    cws_apps::print_run(b.title, numbered, 0);
    fmt::print("\n");
  }
}

}  // namespace cilksort
