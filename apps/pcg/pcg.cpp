// cws-pcg: preconditioned conjugate gradient on a 3D diffusion matrix built in
// code (problem.hpp), the iterative solver cws is for. Each CG iteration is a
// few parallel phases (SpMV, vector updates with their dot products, the
// preconditioner's colour sweeps), every kernel a named schedule; the same
// solve runs serially, under each cws policy, with TBB (an
// affinity_partitioner kept per kernel; a static_partitioner) and OpenMP
// static loops (variants.hpp), and every variant must reach the serial
// reference's iteration count, residual history and solution bitwise (exit 1
// otherwise; results.hpp).
//
// --schedules FILE keeps the learnt schedules between program runs
// (schedule_file.hpp): loaded at the start when it matches this problem and
// worker count, saved at the end. A run = one solve from x = 0; the first
// solve of a cws variant is its learning run, the later ones replay.

#include <cstdio>
#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "pcg/options.hpp"
#include "pcg/results.hpp"
#include "pcg/schedule_file.hpp"
#include "pcg/variants.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Preconditioned CG on a 3D diffusion matrix: cws under each policy vs TBB vs OpenMP static", "cws-pcg"};
  pcg::options opt;
  pcg::add_options(app, opt);

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const std::string& schedules_path = opt.problem.schedules_path;
    if (!schedules_path.empty()) pcg::check_schedule_file_path(schedules_path);  // saved at the end: fail now
    opt.problem.resolve();
    const std::vector<std::string> policies = opt.policies->chosen();
    cws_apps::bench_env env(opt.common);
    cws::runtime& rt = env.rt();
    cws_apps::locality_tally tally(rt);
    pcg::variant_set set(env, opt, policies);

    cws_apps::report out("pcg", env, pcg::run_params(opt, set, policies, rt));
    pcg::results res(out, opt, set, tally);
    set.measure(opt.common.plan, [&](pcg::variant& v, const cws_apps::phase_timer& t) { res.finish(v, t); });
    env.save_trace();
    if (!schedules_path.empty()) {
      pcg::save_schedule_file(rt, schedules_path);
      std::fprintf(stderr, "schedules: saved to %s\n", schedules_path.c_str());
    }
    res.print(rt);
    for (const std::string& w : res.wrong()) cws_apps::report_error(app.get_name(), w.c_str(), 1);
    return res.wrong().empty() ? 0 : 1;
  });
}
