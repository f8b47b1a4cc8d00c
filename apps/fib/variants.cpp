#include "fib/variants.hpp"

#include <algorithm>
#include <cstddef>

#include "common/spawning_fib.hpp"
#include "common/table_columns.hpp"

namespace fib {

namespace recursions = cws_apps::spawning_fib;

namespace {

// The recorded tree of the fastest run of the random variant, or nullptr.
const cws::steal_tree::tree* best_random_tree(const cws::runtime& rt) {
  const cws::steal_tree::recorder* rec = cws::steal_tree::recorder_of(rt);
  if (rec == nullptr) return nullptr;
  const cws::steal_tree::phase_record* best = nullptr;
  for (const cws::steal_tree::phase_record& r : rec->phases())
    if (r.schedule == "fib-random" && (best == nullptr || r.wall_s < best->wall_s)) best = &r;
  return best ? &best->steals : nullptr;
}

}  // namespace

std::vector<std::string> policy_list(const std::string& option) {
  std::vector<std::string> policies;
  for (std::size_t at = 0; at <= option.size();) {
    const std::size_t comma = std::min(option.find(',', at), option.size());
    policies.push_back(option.substr(at, comma - at));
    at = comma + 1;
  }
  return cws_apps::without_repeats(policies);
}

variant_runner::variant_runner(cws_apps::bench_env& env, const cws_apps::common_options& opt, unsigned n)
    : env_(env), opt_(opt), n_(n), expected_(recursions::value(n)), spawns_(recursions::spawn_count(n)) {}

void variant_runner::run(cws_apps::report& out, std::vector<std::string> policies) {
  cws::runtime& rt = env_.rt();
  const unsigned n = n_;
  // Replaying policies replay a captured schedule: with random among the
  // policies, the steal tree of its fastest run (random runs first);
  // otherwise whatever their own warm-up run records.
  std::stable_partition(policies.begin(), policies.end(), [](const std::string& p) { return p == "random"; });
  std::string template_note;
  for (const std::string& p : policies) {
    if (p != "random" && !template_note.empty())
      cws::schedulers::store_of(rt).seed("fib-" + p, *best_random_tree(rt), template_note);
    add(
        out, "cws-" + p,
        [&](std::uint64_t& steals) {
          std::uint64_t r = 0;
          steals += rt.run(rt.schedule("fib-" + p, p), [&] { r = recursions::with_cws(n); }).steals();
          return r;
        },
        true);
    if (p == "random" && best_random_tree(rt) != nullptr) template_note = "the fastest cws-random run";
  }
  add(
      out, "tbb-task-group", [&](std::uint64_t&) { return env_.in_tbb([&] { return recursions::with_tbb(n); }); },
      false);
  add(
      out, "serial", [&](std::uint64_t&) { return recursions::serial(recursions::opaque(n)); }, false);
}

void variant_runner::add(cws_apps::report& out, const std::string& variant, const evaluation& evaluate, bool is_cws) {
  std::uint64_t steals = 0;
  bool ok = true;
  const cws_apps::phase_timer timer = cws_apps::measure(variant, opt_.plan, [&](cws_apps::phase_timer& t) {
    std::uint64_t r = 0, run_steals = 0;
    t.time_mean("fib", opt_.iters, [&] { r = evaluate(run_steals); });
    if (t.recording()) steals += run_steals;
    ok = ok && r == expected_;
  });
  const cws_apps::samples& s = timer["fib"];
  cws_apps::json& e = out.add(variant);
  cws_apps::put_timing(e, s);
  e["ns_per_spawn"] = s.median() * 1e9 / static_cast<double>(spawns_);
  if (is_cws) e["steals_per_call"] = static_cast<double>(steals) / (opt_.iters * opt_.plan.runs);
  e["verified"] = ok;
  all_ok_ = all_ok_ && ok;
}

std::vector<cws_apps::column> table_columns(bool with_random) {
  std::vector<cws_apps::column> columns = cws_apps::time_columns("median ms", 3);
  columns.insert(columns.end(), {{"ns/spawn", "ns_per_spawn", 1, 1},
                                 {"steals/call", "steals_per_call", 1, 1},
                                 cws_apps::ratio_column("vs tbb", "ratio_vs_tbb"),
                                 cws_apps::ratio_column("vs serial", "ratio_vs_serial")});
  if (with_random) columns.push_back(cws_apps::ratio_column("vs random", "ratio_vs_random"));
  columns.push_back({"ok", "verified"});
  return columns;
}

}  // namespace fib
