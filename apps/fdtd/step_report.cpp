#include "fdtd/step_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace fdtd {

namespace {

cws_apps::json share_or_null(const cws_apps::locality_summary& s) {
  return s.reported ? cws_apps::json(s.mean_share) : cws_apps::json(nullptr);
}

}  // namespace

run_maps run_maps_from(cws::schedule* const (&schedules)[phase_count], unsigned steps, const cws_apps::run_plan& plan) {
  const unsigned total = plan.warmup + plan.runs;
  run_maps m;
  for (std::size_t p = 0; p < phase_count; ++p)
    m.of[p] = {schedules[p]->iterations(), p == init_phase ? 1u : steps, plan.warmup, total};
  return m;
}

void report_schedules(const cws::runtime& rt, const cws_apps::locality_tally& tally,
                      cws::schedule* const (&schedules)[phase_count], const run_maps& maps,
                      const cws_apps::block_loops& loops, cws_apps::json& entry, const std::string& variant,
                      std::vector<iteration_block>& blocks) {
  const cws::schedule& init = *schedules[init_phase];
  const cws::schedule& e = *schedules[e_phase];
  const cws::schedule& h = *schedules[h_phase];
  entry["init_policy"] = std::string(init.policy_name());
  entry["schedules"] = {{"init", init.name()}, {"e", e.name()}, {"h", h.name()}};
  entry["e_follows"] = e.follows();
  entry["h_follows"] = h.follows();

  std::vector<cws_apps::iteration_line> lines[phase_count];
  cws_apps::locality_summary sums[phase_count];
  for (std::size_t p = 0; p < phase_count; ++p) {
    const cws_apps::run_map& m = maps.of[p];
    const std::string& name = schedules[p]->name();
    lines[p] = cws_apps::lines_of(rt, name, m);
    cws_apps::add_locality(lines[p], tally, name);
    // The measured runs only: each variant has its own schedules, so their
    // iterations count only this variant's runs, whatever ran in between.
    sums[p] = tally.summarize(name, m.first + std::uint64_t{m.warmup} * m.per_run,
                              m.first + std::uint64_t{m.runs_total} * m.per_run);
  }
  const cws_apps::locality_summary steps = cws_apps::merged(sums[e_phase], sums[h_phase]);
  cws_apps::put_locality(entry, steps, "local_share");
  entry["e_local_share"] = share_or_null(sums[e_phase]);
  entry["h_local_share"] = share_or_null(sums[h_phase]);
  entry["init_local_share"] = share_or_null(sums[init_phase]);
  entry["step_pages_moved"] = steps.pages_moved;
  entry["step_relocalization_s"] = steps.relocalization_s;
  entry["init_pages_moved"] = sums[init_phase].pages_moved;
  entry["init_relocalization_s"] = sums[init_phase].relocalization_s;
  // Totals over all three schedules (evolve relocalizes after each run of any
  // of them that becomes its template).
  const cws_apps::locality_summary all = cws_apps::merged(steps, sums[init_phase]);
  entry["relocalizations"] = all.relocalizations;
  entry["pages_moved"] = all.pages_moved;
  entry["pages_failed"] = all.pages_failed;
  entry["bytes_moved"] = all.bytes_moved;
  entry["relocalization_s"] = all.relocalization_s;
  cws_apps::put_phase_breakdown(entry, loops.clock(e_phase), "e_");
  cws_apps::put_phase_breakdown(entry, loops.clock(h_phase), "h_");

  std::vector<cws_apps::iteration_line> step_lines = lines[e_phase];
  step_lines.insert(step_lines.end(), lines[h_phase].begin(), lines[h_phase].end());
  const std::string policy(e.policy_name());
  cws_apps::put_summary(entry, step_lines, policy);
  if (policy == cws::policy::evolve) {
    const auto& store = cws::schedulers::store_of(rt);
    bool converged = true;
    cws_apps::json at;
    for (const cws::schedule* s : {&e, &h}) {
      const cws::run_report* last = s->last_report();
      const auto* state = store.find(s->name());
      const bool c = last != nullptr && last->converged;
      converged = converged && c;
      at[s == &e ? "e" : "h"] = c && state != nullptr ? cws_apps::json(state->converged_at) : cws_apps::json(nullptr);
    }
    entry["converged"] = converged;
    entry["converged_at"] = at;
  }
  entry["e_iterations"] = cws_apps::lines_json(lines[e_phase]);
  entry["h_iterations"] = cws_apps::lines_json(lines[h_phase]);
  entry["init_iterations"] = cws_apps::lines_json(lines[init_phase]);

  const unsigned runs = maps.of[e_phase].runs_total, warmup = maps.of[e_phase].warmup;
  for (const cws::schedule* s : {&e, &h})
    blocks.push_back({fmt::format("{}: schedule \"{}\"{}", variant, s->name(),
                                  s->follows().empty() ? "" : " (follows \"" + s->follows() + "\")"),
                      std::move(lines[s == &e ? e_phase : h_phase]), runs, warmup});
}

void print_iteration_blocks(const std::vector<iteration_block>& blocks, bool all_runs) {
  for (const iteration_block& b : blocks) {
    if (b.lines.empty()) {
      fmt::print("{}: no iteration reports in the schedule store\n\n", b.title);
      continue;
    }
    // The store keeps the latest CWS_HISTORY phases of a schedule: the
    // first ones may have fallen out of it.
    const unsigned first = b.lines.front().run;
    if (first > 0 || b.lines.front().index > 0)
      fmt::print(
          "{}: the phases before run {} iteration {} are no longer in the schedule store's history "
          "(CWS_HISTORY phases per schedule)\n",
          b.title, first + 1, b.lines.front().index);
    for (unsigned r = first; r < (all_runs ? b.runs : first + 1); ++r) {
      cws_apps::print_run(fmt::format("{}, run {} of {}{}", b.title, r + 1, b.runs, r < b.warmup ? " (warm-up)" : ""),
                      b.lines, r);
      fmt::print("\n");
    }
  }
}

}  // namespace fdtd
