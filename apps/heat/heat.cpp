// cws-heat: 2D Jacobi heat diffusion, the SC14 iterative benchmark. An N x N
// grid in two buffers; an init phase writes both (their first touch), then
// every iteration is one phase: a recursive bisection over blocks of rows
// (cws::parallel_for_range, grain = block rows), 5-point stencil from one
// buffer into the other. The same phase recurs every iteration, which is what
// the replaying policies exploit: the steal tree of one iteration is the
// template of the next, so blocks keep running on the same workers (and, on
// a NUMA machine, next to the pages they first touched).
//
// Variants: cws under each policy of --policies (each with its own schedules
// "heat-init/<policy>" and "heat-step/<policy>"; under `user` both loops use
// parallel_for_range_owned, block i on worker floor(i P / blocks), the
// OpenMP-static ownership), tbb-auto, tbb-affinity (one affinity_partitioner
// per loop, kept across iterations and runs), omp-static, and serial. Every
// variant's final grid must equal the serial one exactly.

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/bench_env.hpp"
#include "common/report.hpp"
#include "heat/grid.hpp"
#include "heat/iterations.hpp"

namespace {

enum class loop_kind { serial, cws, cws_owned, tbb_auto, tbb_affinity, omp_static };
enum phase_id { init_phase = 0, step_phase = 1 };

struct variant {
  std::string name;
  loop_kind loop;
  std::string policy;                  // cws variants only
  cws::schedule* schedules[2] = {};    // cws variants only: init, step
};

bool replays(const std::string& policy) {
  return policy == cws::policy::stows || policy == cws::policy::stuws || policy == cws::policy::relws ||
         policy == cws::policy::evolve;
}

// Runs body(lo, hi) over the rows [0, n) in blocks of `block` rows with the
// loop flavour of one variant. One object per variant: it owns that variant's
// TBB affinity partitioners.
class row_loops {
 public:
  row_loops(cws_apps::bench_env& env, std::size_t n, std::size_t block)
      : env_(env), n_(n), block_(block), blocks_((n + block - 1) / block) {}

  template <class Body>
  void run(const variant& v, phase_id ph, const Body& body) {
    auto tbb_body = [&](const tbb::blocked_range<std::size_t>& r) { body(r.begin(), r.end()); };
    const tbb::blocked_range<std::size_t> rows(0, n_, block_);
    switch (v.loop) {
      case loop_kind::serial:
        body(0, n_);
        break;
      case loop_kind::cws:
        env_.rt().run(*v.schedules[ph], [&] { cws::parallel_for_range(0, n_, body, block_); });
        break;
      case loop_kind::cws_owned:
        env_.rt().run(*v.schedules[ph], [&] { cws::parallel_for_range_owned(0, n_, body, blocks_); });
        break;
      case loop_kind::tbb_auto:
        env_.in_tbb([&] { tbb::parallel_for(rows, tbb_body, tbb::auto_partitioner()); });
        break;
      case loop_kind::tbb_affinity:
        env_.in_tbb([&] { tbb::parallel_for(rows, tbb_body, affinity_[ph]); });
        break;
      case loop_kind::omp_static: {
        const std::size_t blocks = blocks_, block = block_, n = n_;
#pragma omp parallel for schedule(static)
        for (std::size_t b = 0; b < blocks; ++b) body(b * block, std::min(n, (b + 1) * block));
        break;
      }
    }
  }

 private:
  cws_apps::bench_env& env_;
  std::size_t n_, block_, blocks_;
  tbb::affinity_partitioner affinity_[2];
};

// The two buffers of one variant. First touch is left to the variant's own
// init loop (an untimed init phase before the runs), so the pages land where
// that variant's init mapping put them, and no timed phase takes page faults.
struct grids {
  cws::numa::array<double> a, b;
  explicit grids(std::size_t n)
      : a(cws::numa::allocate<double>(n * n, cws::numa::first_touch)),
        b(cws::numa::allocate<double>(n * n, cws::numa::first_touch)) {}
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"2D Jacobi heat diffusion (SC14): cws under each policy vs TBB vs OpenMP static", "cws-heat"};
  cws_apps::common_options opt;
  opt.iters = 20;
  std::size_t n = 2048;
  std::size_t block = 0;
  std::vector<std::string> policies = {"random", "stows", "stuws", "relws", "evolve", "user"};
  bool follow_init = false, quiet = false, all_iterations = false;
  app.add_option("--size", n, "Grid side N (an N x N grid of doubles, two buffers)")
      ->check(CLI::Range(std::size_t{3}, std::size_t{1} << 16))
      ->capture_default_str();
  app.add_option("--block", block, "Rows per leaf block of the cws, TBB and OpenMP loops (0: N / (16 x workers))")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 16))
      ->capture_default_str();
  CLI::Option* policies_opt =
      app.add_option("--policies", policies, "Comma-separated cws policies, one cws variant each")
          ->delimiter(',')
          ->capture_default_str();
  app.add_flag("--follow-init", follow_init,
               "Under replaying policies, the step phases replay the init phase's template (schedule follows "
               "data) instead of their own");
  app.add_flag("--verbose-iterations", all_iterations, "Print the iteration lines of every run, not only the first");
  app.add_flag("-q,--quiet", quiet, "No iteration lines, only the table");
  cws_apps::add_common_options(app, opt);
  app.get_option("--iters")->description("Jacobi iterations (step phases) per run; a sample is their mean");
  CLI::Option* policy_opt = app.get_option("--policy");
  policy_opt->description("A single cws policy (same as --policies POLICY)");
  policy_opt->excludes(policies_opt);

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    if (policy_opt->count() > 0) policies = {opt.policy};
    {  // drop repeated names, keep the order
      std::vector<std::string> unique;
      for (const auto& p : policies)
        if (std::find(unique.begin(), unique.end(), p) == unique.end()) unique.push_back(p);
      policies = std::move(unique);
    }
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();
    const unsigned workers = env.workers();
    if (block == 0) block = std::max<std::size_t>(1, n / (16 * std::size_t{workers}));
    block = std::min(block, n);
    const std::size_t blocks = (n + block - 1) / block;

    // All schedules are created before anything runs, so an unknown policy fails at once (exit 2).
    std::vector<variant> variants;
    variants.push_back({"serial", loop_kind::serial, "", {}});
    for (const std::string& p : policies) {
      variant v{"cws-" + p, p == cws::policy::user ? loop_kind::cws_owned : loop_kind::cws, p, {}};
      v.schedules[init_phase] = &rt.schedule("heat-init/" + p, p);
      v.schedules[step_phase] = &rt.schedule("heat-step/" + p, p);
      if (follow_init && replays(p)) v.schedules[step_phase]->follow(v.schedules[init_phase]->name());
      variants.push_back(std::move(v));
    }
    variants.push_back({"tbb-auto", loop_kind::tbb_auto, "", {}});
    variants.push_back({"tbb-affinity", loop_kind::tbb_affinity, "", {}});
    variants.push_back({"omp-static", loop_kind::omp_static, "", {}});

    const double grid_bytes = static_cast<double>(n * n * sizeof(double));
    cws_apps::report out("heat", env,
                         {{"size", n}, {"block_rows", block}, {"blocks", blocks}, {"iters", opt.iters},
                          {"runs", opt.plan.runs}, {"warmup", opt.plan.warmup}, {"policies", policies},
                          {"follow_init", follow_init}, {"bytes_per_step", 2 * grid_bytes}});

    grids reference(n);  // the serial variant's grids; its final state is the reference
    const double* expected = nullptr;
    std::vector<std::string> wrong;
    struct iteration_block {
      std::string title;
      std::vector<heat::iteration_line> lines;
      unsigned runs;
    };
    std::vector<iteration_block> iteration_blocks;

    for (const variant& v : variants) {
      std::optional<grids> own;
      grids& g = v.loop == loop_kind::serial ? reference : own.emplace(n);
      double* cur = g.a.data();
      double* next = g.b.data();
      const auto init_body = [&](std::size_t lo, std::size_t hi) { heat::init_rows(g.a.data(), g.b.data(), n, lo, hi); };
      const auto step_body = [&](std::size_t lo, std::size_t hi) { heat::step_rows(cur, next, n, lo, hi); };
      row_loops loops(env, n, block);

      loops.run(v, init_phase, init_body);  // first touch, untimed
      heat::run_map init_map, step_map;
      if (v.schedules[init_phase] != nullptr) {
        const unsigned total = opt.plan.warmup + opt.plan.runs;
        init_map = {v.schedules[init_phase]->iterations(), 1, opt.plan.warmup, total};
        step_map = {v.schedules[step_phase]->iterations(), opt.iters, opt.plan.warmup, total};
      }
      auto timer = cws_apps::measure(v.name, opt.plan, [&](cws_apps::phase_timer& t) {
        t.time("init", [&] { loops.run(v, init_phase, init_body); });
        cur = g.a.data();
        next = g.b.data();
        t.time_mean("step", opt.iters, [&] {
          loops.run(v, step_phase, step_body);
          std::swap(cur, next);
        });
      });

      cws_apps::json& e = out.add(v.name);
      cws_apps::put_timing(e, timer["step"]);  // median_s / min_s: one iteration
      cws_apps::put_timing(e, timer["init"], "init_");
      e["gbps"] = 2 * grid_bytes / timer["step"].median() / 1e9;

      // Verification: the state after the last run against the serial one.
      bool ok = true;
      if (expected == nullptr) {
        expected = cur;
      } else {
        std::size_t count = 0;
        const std::size_t first = heat::first_difference(cur, expected, n, count);
        ok = count == 0;
        if (!ok)
          wrong.push_back(fmt::format("{}: {} cell(s) differ from the serial reference, first at row {} column {} "
                                      "({} instead of {})",
                                      v.name, count, first / n, first % n, cur[first], expected[first]));
      }
      e["verified"] = ok;

      if (v.schedules[step_phase] != nullptr) {
        const cws::schedule& step = *v.schedules[step_phase];
        e["policy"] = v.policy;
        e["schedules"] = {{"init", v.schedules[init_phase]->name()}, {"step", step.name()}};
        e["step_follows"] = step.follows();
        auto step_lines = heat::lines_of(rt, step.name(), step_map);
        auto init_lines = heat::lines_of(rt, v.schedules[init_phase]->name(), init_map);
        heat::put_summary(e, step_lines, v.policy);
        if (const auto* s = cws::schedulers::store_of(rt).find(step.name()); s != nullptr && v.policy == "evolve") {
          e["converged"] = s->converged;
          e["converged_at"] = s->converged ? cws_apps::json(s->converged_at) : cws_apps::json(nullptr);
        }
        e["iterations"] = heat::lines_json(step_lines);
        e["init_iterations"] = heat::lines_json(init_lines);
        iteration_blocks.push_back({fmt::format("{}: schedule \"{}\"{}", v.name, step.name(),
                                                step.follows().empty() ? "" : " (follows \"" + step.follows() + "\")"),
                                    std::move(step_lines), opt.plan.warmup + opt.plan.runs});
      }
    }
    out.add_ratio("ratio_vs_omp_static", "median_s", "omp-static");
    out.add_ratio("ratio_vs_cws_random", "median_s", "cws-random");
    out.add_ratio("ratio_vs_serial", "median_s", "serial");

    env.save_trace();
    if (!opt.json && !quiet) {
      for (const iteration_block& b : iteration_blocks) {
        if (b.lines.empty()) {
          fmt::print("{}: no iteration reports in the schedule store\n\n", b.title);
          continue;
        }
        for (unsigned r = 0; r < (all_iterations ? b.runs : 1u); ++r) {
          heat::print_run(fmt::format("{}, run {} of {}{}", b.title, r + 1, b.runs,
                                      r < opt.plan.warmup ? " (warm-up)" : ""),
                          b.lines, r);
          fmt::print("\n");
        }
      }
    }
    out.print(opt.json,
              fmt::format("cws-heat: {} x {} grid of doubles (2 x {:.0f} MiB), blocks of {} rows ({} blocks), "
                          "{} iterations per run, {} runs (+{} warm-up)",
                          n, n, grid_bytes / (1 << 20), block, blocks, opt.iters, opt.plan.runs, opt.plan.warmup),
              {{"variant", "variant"},
               {"ms/iter", "median_s", 1e3, 3},
               {"min ms", "min_s", 1e3, 3},
               {"init ms", "init_median_s", 1e3, 2},
               {"GB/s", "gbps", 1, 2},
               {"vs omp", "ratio_vs_omp_static", 1, 2},
               {"vs random", "ratio_vs_cws_random", 1, 2},
               {"desig/it", "designated_per_iter", 1, 1},
               {"extra/it", "extra_steals_per_iter", 1, 1},
               {"back/it", "taken_back_per_iter", 1, 1},
               {"wait ms/it", "waiting_s_per_iter", 1e3, 2},
               {"dist %", "mean_distance", 100, 1},
               {"replayed %", "replayed_share", 100, 0},
               {"div", "diverged_iterations"},
               {"ok", "verified"}},
              {"ms/iter: median over runs of the mean time of one Jacobi iteration (one step phase); init: one "
               "init phase;",
               "GB/s counts one grid read and one written per iteration; 'vs' columns are time ratios "
               "(lower is better);",
               "desig .. div: means over the measured runs' step iterations (schedule store; recorder for random): "
               "steals designated, extra, taken back,",
               "waiting time summed over workers, schedule distance to the previous iteration, share that replayed "
               "a template, diverged iterations"});
    if (!wrong.empty()) {
      for (const std::string& w : wrong) cws_apps::report_error(app.get_name(), w.c_str(), 1);
      return 1;
    }
    return 0;
  });
}
