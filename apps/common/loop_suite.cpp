#include "common/loop_suite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "common/table_columns.hpp"

namespace cws_apps {

void add_suite_options(CLI::App& app, suite_options& o, const suite_help& help) {
  app.add_flag("--follow-init", o.follow_init, help.follow);
  add_evolve_init_option(app, o.evolve_init);
  app.add_flag("--verbose-iterations", o.all_iterations, "Print the iteration lines of every run, not only the first");
  app.add_flag("-q,--quiet", o.quiet, "No iteration lines, only the table");
  o.common.iters = help.iters;  // before --iters is made: --help shows this default
  add_variant_options(app, o.common, o.policies, "Comma-separated cws policies, one cws variant each", help.footprint);
  app.get_option("--iters")->description(help.iters_help);
}

baseline_list standard_baselines() {
  return {{"tbb-auto", loop_flavour::tbb_auto},
          {"tbb-affinity", loop_flavour::tbb_affinity},
          {"tbb-static", loop_flavour::tbb_static},
          {"omp-static", loop_flavour::omp_static}};
}

std::vector<column> standard_columns(const table_words& w) {
  std::vector<column> c{{"variant", "variant"}, {w.time_title, "median_s", 1e3, 3}, {"min ms", "min_s", 1e3, 3}};
  c.insert(c.end(), w.split.begin(), w.split.end());
  c.insert(c.end(), {{"init ms", "init_median_s", 1e3, 2},
                     {"GB/s", "gbps", 1, 2},
                     {"vs omp", "ratio_vs_omp_static", 1, 2},
                     {"vs random", "ratio_vs_cws_random", 1, 2},
                     {"desig/" + w.per, "designated_per_iter", 1, 1},
                     {"extra/" + w.per, "extra_steals_per_iter", 1, 1}});
  if (w.taken_back) c.push_back({"back/" + w.per, "taken_back_per_iter", 1, 1});
  if (w.waiting) c.push_back({"wait ms/" + w.per, "waiting_s_per_iter", 1e3, 2});
  c.insert(
      c.end(),
      {{"dist %", "mean_distance", 100, 1}, {"replayed %", "replayed_share", 100, 0}, {"div", "diverged_iterations"}});
  const std::vector<column> locality = locality_columns();
  c.insert(c.end(), locality.begin(), locality.end());
  c.insert(c.end(), {{"reloc ms", "relocalization_s", 1e3, 2}, {"ok", "verified"}});
  return c;
}

std::string locality_note(const std::string& page_homes, const std::string& last_phase, const std::string& time_title) {
  return fmt::format(
      "local %: mean share of declared bytes on a page homed on the toucher's node (page homes: {}); last %: the "
      "last {}; moved / reloc ms: evolve's relocalizations, inside {}",
      page_homes, last_phase, time_title);
}

loop_suite::loop_suite(bench_env& env, const suite_options& o, suite_spec spec)
    : env_(env), opt_(o), spec_(std::move(spec)), policies_(o.policies->chosen()), tally_(env.rt()) {
  variants_.push_back({.name = "serial", .loop = loop_flavour::serial});
  for (const std::string& p : policies_) {
    // evolve relocalizes after every run of a schedule that becomes its
    // template; an init under evolve would move the pages to init's tree
    // after each of its runs, and the steps' converged template would then
    // find them elsewhere. So evolve's init runs under --evolve-init
    // (default random: it never moves pages), unless the steps follow init.
    add_cws(p, p, cws::numa::first_touch, o.follow_init);
    // The same loops with the data interleaved over the nodes: placement that ignores the schedule.
    if (p == cws::policy::random) add_cws(p, p + "-interleave", cws::numa::interleaved, false);
    // Schedule follows data: the steps replay init's template, so every block runs where init first-touched it.
    if (p == cws::policy::stows && !o.follow_init) add_cws(p, p + "-follow-init", cws::numa::first_touch, true);
  }
  for (const auto& [name, flavour] : spec_.baselines) variants_.push_back({.name = name, .loop = flavour});
  for (std::size_t i = 0; i < variants_.size(); ++i) {
    loop_variant& v = variants_[i];
    v.index = i;
    v.schedules.resize(spec_.phases.size());
    v.loops = std::make_unique<block_loops>(env_, v.loop, spec_.n, spec_.grain, v.schedules);
  }
}

void loop_suite::add_cws(const std::string& p, const std::string& suffix, cws::numa::placement where,
                         bool follow_init) {
  cws::runtime& rt = env_.rt();
  const bool replays = cws_apps::replays(p);
  const bool follow = follow_init && replays;
  loop_variant v{.name = "cws-" + suffix,
                 .loop = p == cws::policy::user ? loop_flavour::cws_owned : loop_flavour::cws,
                 .policy = p,
                 .placement = where};
  const std::string init_policy = p == cws::policy::evolve && !follow ? opt_.evolve_init : p;
  for (std::size_t ph = 0; ph < spec_.phases.size(); ++ph)
    v.schedules.push_back(&rt.schedule(spec_.app + "-" + spec_.phases[ph] + "/" + suffix, ph == 0 ? init_policy : p));
  if (follow) {
    for (std::size_t ph = 1; ph < v.schedules.size(); ++ph) v.schedules[ph]->follow(v.schedules[0]->name());
  } else if (replays) {
    for (const auto& [phase, leader] : spec_.follows) v.schedules.at(phase)->follow(v.schedules.at(leader)->name());
  }
  variants_.push_back(std::move(v));
}

json loop_suite::params(json own) const {
  own["iters"] = opt_.common.iters;
  own.update(plan_params(opt_.common.plan));
  own["policies"] = policies_;
  own["follow_init"] = opt_.follow_init;
  own["evolve_init"] = opt_.evolve_init;
  return own;
}

int loop_suite::run(report& out, const suite_hooks& hooks, const std::string& caption,
                    const std::vector<column>& columns, const std::vector<std::string>& notes) {
  const run_plan& plan = opt_.common.plan;
  variant_runner runner(env_, opt_.common, out, "cws-" + spec_.app);
  runner.measure(variants_,
                 {.prepare =
                      [&](loop_variant& v) {
                        hooks.prepare(v);
                        if (!v.runs_cws()) return;
                        // The schedules' iteration counts after the untimed init mark the first warm-up run.
                        for (std::size_t ph = 0; ph < v.schedules.size(); ++ph) {
                          v.maps.push_back({v.schedules[ph]->iterations(), ph == 0 ? 1u : opt_.common.iters,
                                            plan.warmup, plan.warmup + plan.runs});
                          v.loops->keep_lines(ph, v.maps.back());
                        }
                      },
                  .one_run =
                      [&](loop_variant& v, phase_timer& t) {
                        v.loops->begin_run(t);
                        hooks.one_run(v, t);
                      },
                  .finish =
                      [&](loop_variant& v, const phase_timer& timer, json& e, std::vector<std::string>& wrong) {
                        put_timing(e, timer["step"]);  // median_s / min_s: one step
                        put_timing(e, timer["init"], "init_");
                        hooks.finish(v, timer, e, wrong);
                        if (v.runs_cws()) report_cws(v, e);
                      }});
  runner.add_ratios({{"ratio_vs_omp_static", "median_s", "omp-static"},
                     {"ratio_vs_cws_random", "median_s", "cws-random"},
                     {"ratio_vs_serial", "median_s", "serial"}});
  if (!opt_.common.json && !opt_.quiet) print_iteration_blocks();
  return runner.print_and_report(caption, columns, notes);
}

void loop_suite::report_cws(const loop_variant& v, json& e) {
  const cws::runtime& rt = env_.rt();
  const std::size_t phases = v.schedules.size();
  const bool one_step = phases == 2;  // heat's names: no prefix for the step phase
  const cws::schedule& init = *v.schedules[0];
  e["policy"] = v.policy;
  e["init_policy"] = std::string(init.policy_name());
  json names;
  for (std::size_t ph = 0; ph < phases; ++ph) names[spec_.phases[ph]] = v.schedules[ph]->name();
  e["schedules"] = names;
  for (std::size_t ph = 1; ph < phases; ++ph) e[spec_.phases[ph] + "_follows"] = v.schedules[ph]->follows();

  // The measured runs only: each variant has its own schedules, so their
  // iterations count only this variant's runs, whatever ran in between.
  std::vector<std::vector<iteration_line>> lines(phases);
  std::vector<locality_summary> sums(phases);
  for (std::size_t ph = 0; ph < phases; ++ph) {
    const run_map& m = v.maps[ph];
    const std::string& name = v.schedules[ph]->name();
    lines[ph] = v.loops->lines(ph);
    sums[ph] = tally_.summarize(name, m.first + std::uint64_t{m.warmup} * m.per_run,
                                m.first + std::uint64_t{m.runs_total} * m.per_run);
  }
  locality_summary steps = sums[1];
  for (std::size_t ph = 2; ph < phases; ++ph) steps = merged(steps, sums[ph]);
  put_locality(e, steps, "local_share");
  if (!one_step)
    for (std::size_t ph = 1; ph < phases; ++ph) e[spec_.phases[ph] + "_local_share"] = share_or_null(sums[ph]);
  e["init_local_share"] = share_or_null(sums[0]);
  e["step_pages_moved"] = steps.pages_moved;
  e["step_relocalization_s"] = steps.relocalization_s;
  e["init_pages_moved"] = sums[0].pages_moved;
  e["init_relocalization_s"] = sums[0].relocalization_s;
  // Totals over all schedules (evolve relocalizes after each run of any of
  // them that becomes its template).
  const locality_summary all = merged(steps, sums[0]);
  e["relocalizations"] = all.relocalizations;
  e["pages_moved"] = all.pages_moved;
  e["pages_failed"] = all.pages_failed;
  e["bytes_moved"] = all.bytes_moved;
  e["relocalization_s"] = all.relocalization_s;
  // The step phases' headline time split into the phases' wall_s and the rest of rt.run.
  for (std::size_t ph = 1; ph < phases; ++ph)
    put_phase_breakdown(e, v.loops->clock(ph), one_step ? "" : spec_.phases[ph] + "_");

  std::vector<iteration_line> step_lines;
  for (std::size_t ph = 1; ph < phases; ++ph) step_lines.insert(step_lines.end(), lines[ph].begin(), lines[ph].end());
  put_summary(e, step_lines, v.policy);
  if (v.policy == cws::policy::evolve) {
    const auto& store = cws::schedulers::store_of(rt);
    bool converged = true;
    json at;
    for (std::size_t ph = 1; ph < phases; ++ph) {
      const cws::run_report* last = v.schedules[ph]->last_report();
      const auto* state = store.find(v.schedules[ph]->name());
      const bool c = last != nullptr && last->converged;
      converged = converged && c;
      at[spec_.phases[ph]] = c && state != nullptr ? json(state->converged_at) : json(nullptr);
    }
    e["converged"] = converged;
    e["converged_at"] = one_step ? at[spec_.phases[1]] : at;
  }
  for (std::size_t ph = 1; ph < phases; ++ph)
    e[one_step ? std::string("iterations") : spec_.phases[ph] + "_iterations"] = lines_json(lines[ph]);
  e["init_iterations"] = lines_json(lines[0]);

  for (std::size_t ph = 1; ph < phases; ++ph) {
    const cws::schedule& s = *v.schedules[ph];
    blocks_.push_back({fmt::format("{}: schedule \"{}\"{}", v.name, s.name(),
                                   s.follows().empty() ? "" : " (follows \"" + s.follows() + "\")"),
                       std::move(lines[ph])});
  }
}

void loop_suite::print_iteration_blocks() const {
  const run_plan& plan = opt_.common.plan;
  const unsigned runs = plan.warmup + plan.runs;
  for (const iteration_block& b : blocks_) {
    if (b.lines.empty()) {
      fmt::print("{}: no iteration ran\n\n", b.title);
      continue;
    }
    for (unsigned r = 0; r < (opt_.all_iterations ? runs : 1); ++r) {
      print_run(fmt::format("{}, run {} of {}{}", b.title, r + 1, runs, r < plan.warmup ? " (warm-up)" : ""), b.lines,
                r);
      fmt::print("\n");
    }
  }
}

}  // namespace cws_apps
