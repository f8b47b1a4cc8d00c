// cws-fib: the spawn-overhead benchmark. fib(n) with one spawn per call and no
// cutoff, so nearly all the time is task creation, sync and stealing. Compared
// with a TBB task_group of the same shape and with the serial recursion.

#include <fmt/format.h>
#include <tbb/task_group.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>
#include <algorithm>

#include "common/bench_env.hpp"
#include "common/report.hpp"

namespace {

std::uint64_t fib_serial(unsigned n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

// The compiler may prove fib_serial pure and reuse an earlier result; hiding
// the argument behind an empty asm forces a fresh evaluation each time.
unsigned opaque(unsigned v) {
  asm volatile("" : "+r"(v));
  return v;
}

std::uint64_t fib_cws(unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0;
  cws::spawn([&] { a = fib_cws(n - 1); });
  std::uint64_t b = fib_cws(n - 2);
  cws::sync();  // a is a local the child writes: sync before using it / returning
  return a + b;
}

std::uint64_t fib_tbb(unsigned n) {
  if (n < 2) return n;
  std::uint64_t a = 0;
  tbb::task_group g;
  g.run([&] { a = fib_tbb(n - 1); });
  std::uint64_t b = fib_tbb(n - 2);
  g.wait();
  return a + b;
}

// Calls with n >= 2, i.e. spawns (cws) or task_group::run calls (TBB): fib(n+1) - 1.
std::uint64_t spawn_count(unsigned n) {
  std::uint64_t a = 0, b = 1;  // fib(0), fib(1)
  for (unsigned i = 0; i < n + 1; ++i) b = a + b, a = b - a;
  return a - 1;
}

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

int main(int argc, char** argv) {
  CLI::App app{"fib(n) with one spawn per call and no cutoff: cws vs TBB task_group vs serial", "cws-fib"};
  cws_apps::common_options opt;
  unsigned n = 30;
  app.add_option("-n,--n", n, "Argument of fib")->check(CLI::Range(2u, 50u))->capture_default_str();
  cws_apps::add_common_options(app, opt);

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();
    // --policy may list several (random,stows): one variant each, in one run.
    // Schedules are created before anything runs, so an unknown policy fails
    // at once (exit 2).
    std::vector<std::string> policies;
    for (std::size_t at = 0; at <= opt.policy.size();) {
      const std::size_t comma = std::min(opt.policy.find(',', at), opt.policy.size());
      policies.push_back(opt.policy.substr(at, comma - at));
      at = comma + 1;
    }
    policies = cws_apps::without_repeats(policies);
    for (const std::string& p : policies) rt.schedule("fib-" + p, p);
    const std::uint64_t expected = fib_serial(n);
    const std::uint64_t spawns = spawn_count(n);

    // One measured run = opt.iters evaluations; its sample is their mean.
    bool all_ok = true;
    auto bench = [&](const std::string& variant, auto&& evaluate) {
      std::uint64_t steals = 0;
      bool ok = true;
      auto timer = cws_apps::measure(variant, opt.plan, [&](cws_apps::phase_timer& t) {
        std::uint64_t r = 0, run_steals = 0;
        t.time_mean("fib", opt.iters, [&] { r = evaluate(run_steals); });
        if (t.recording()) steals += run_steals;
        ok = ok && r == expected;
      });
      return std::tuple{std::move(timer), steals, ok};
    };

    cws_apps::report out("fib", env,
                         {{"n", n},
                          {"policy", opt.policy},
                          {"iters", opt.iters},
                          {"runs", opt.plan.runs},
                          {"warmup", opt.plan.warmup},
                          {"spawns_per_call", spawns},
                          {"expected", expected}});
    auto add = [&](const std::string& variant, auto&& evaluate, bool is_cws) {
      auto [timer, steals, ok] = bench(variant, evaluate);
      const cws_apps::samples& s = timer["fib"];
      cws_apps::json& e = out.add(variant);
      cws_apps::put_timing(e, s);
      e["ns_per_spawn"] = s.median() * 1e9 / static_cast<double>(spawns);
      if (is_cws) e["steals_per_call"] = static_cast<double>(steals) / (opt.iters * opt.plan.runs);
      e["verified"] = ok;
      all_ok = all_ok && ok;
    };

    // Replaying policies replay a captured schedule: with random among the
    // policies, the steal tree of its fastest run (random runs first);
    // otherwise whatever their own warm-up run records.
    std::stable_partition(policies.begin(), policies.end(), [](const std::string& p) { return p == "random"; });
    std::string template_note;
    for (const std::string& p : policies) {
      if (p != "random" && !template_note.empty())
        cws::schedulers::store_of(rt).seed("fib-" + p, *best_random_tree(rt), template_note);
      add(
          "cws-" + p,
          [&](std::uint64_t& steals) {
            std::uint64_t r = 0;
            steals += rt.run(rt.schedule("fib-" + p, p), [&] { r = fib_cws(n); }).steals();
            return r;
          },
          true);
      if (p == "random" && best_random_tree(rt) != nullptr) template_note = "the fastest cws-random run";
    }
    add(
        "tbb-task-group", [&](std::uint64_t&) { return env.in_tbb([&] { return fib_tbb(n); }); }, false);
    add(
        "serial", [&](std::uint64_t&) { return fib_serial(opaque(n)); }, false);
    out.add_ratio("ratio_vs_tbb", "median_s", "tbb-task-group");
    out.add_ratio("ratio_vs_serial", "median_s", "serial");
    const bool with_random =
        policies.size() > 1 && std::find(policies.begin(), policies.end(), "random") != policies.end();
    if (with_random) out.add_ratio("ratio_vs_random", "median_s", "cws-random");

    env.save_trace();
    std::vector<cws_apps::column> columns{{"variant", "variant"},
                                          {"median ms", "median_s", 1e3, 3},
                                          {"min ms", "min_s", 1e3, 3},
                                          {"ns/spawn", "ns_per_spawn", 1, 1},
                                          {"steals/call", "steals_per_call", 1, 1},
                                          {"vs tbb", "ratio_vs_tbb", 1, 2},
                                          {"vs serial", "ratio_vs_serial", 1, 2}};
    if (with_random) columns.push_back({"vs random", "ratio_vs_random", 1, 2});
    columns.push_back({"ok", "verified"});
    out.print(opt.json,
              fmt::format("cws-fib: fib({}) = {}, {} spawns per call, {} runs (+{} warm-up) of {} call(s)", n, expected,
                          spawns, opt.plan.runs, opt.plan.warmup, opt.iters),
              columns,
              {"times are per fib call; 'vs' columns are median time / baseline median time (lower is better)",
               with_random ? "replaying policies (stows, ...) replay the steal tree of the fastest cws-random run"
                           : "replaying policies (stows, ...) record their template in the warm-up run, under random"});
    if (!all_ok) return cws_apps::report_error(app.get_name(), "a variant computed a wrong fib value", 1);
    return 0;
  });
}
