// cws-fib: the spawn-overhead benchmark. fib(n) with one spawn per call and no
// cutoff, so nearly all the time is task creation, sync and stealing. Compared
// with a TBB task_group of the same shape and with the serial recursion
// (common/spawning_fib.hpp); the variants are measured and reported by
// fib/variants.hpp, and every evaluation must give fib(n).

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/bounded_option.hpp"
#include "common/report.hpp"
#include "fib/variants.hpp"

int main(int argc, char** argv) {
  CLI::App app{"fib(n) with one spawn per call and no cutoff: cws vs TBB task_group vs serial", "cws-fib"};
  cws_apps::common_options opt;
  unsigned n = 30;
  cws_apps::add_bounded_option(app, "-n,--n", n, "Argument of fib", 2u, 50u);
  cws_apps::add_common_options(app, opt);

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    cws_apps::bench_env env(opt);
    // --policy may list several (random,stows): one variant each, in one run.
    // Schedules are created before anything runs, so an unknown policy fails
    // at once (exit 2).
    const std::vector<std::string> policies = fib::policy_list(opt.policy);
    for (const std::string& p : policies) env.rt().schedule("fib-" + p, p);

    fib::variant_runner variants(env, opt, n);
    cws_apps::report out("fib", env,
                         {{"n", n},
                          {"policy", opt.policy},
                          {"iters", opt.iters},
                          {"runs", opt.plan.runs},
                          {"warmup", opt.plan.warmup},
                          {"spawns_per_call", variants.spawns()},
                          {"expected", variants.expected()}});
    variants.run(out, policies);
    out.add_ratio("ratio_vs_tbb", "median_s", "tbb-task-group");
    out.add_ratio("ratio_vs_serial", "median_s", "serial");
    const bool with_random =
        policies.size() > 1 && std::find(policies.begin(), policies.end(), "random") != policies.end();
    if (with_random) out.add_ratio("ratio_vs_random", "median_s", "cws-random");

    env.save_trace();
    out.print(opt.json,
              fmt::format("cws-fib: fib({}) = {}, {} spawns per call, {} runs (+{} warm-up) of {} call(s)", n,
                          variants.expected(), variants.spawns(), opt.plan.runs, opt.plan.warmup, opt.iters),
              fib::table_columns(with_random),
              {"times are per fib call; 'vs' columns are median time / baseline median time (lower is better)",
               with_random ? "replaying policies (stows, ...) replay the steal tree of the fastest cws-random run"
                           : "replaying policies (stows, ...) record their template in the warm-up run, under random"});
    if (!variants.all_verified())
      return cws_apps::report_error(app.get_name(), "a variant computed a wrong fib value", 1);
    return 0;
  });
}
