// cws-pcg: preconditioned conjugate gradient on a 3D diffusion matrix built in
// code (problem.hpp), the iterative solver cws is for. Each CG iteration is a
// few parallel phases (SpMV, vector updates with their dot products, the
// preconditioner's colour sweeps), every kernel a named schedule; the same
// solve runs serially, under each cws policy, with TBB (an
// affinity_partitioner kept per kernel; a static_partitioner) and OpenMP
// static loops, and every variant must reach the serial reference's
// iteration count, residual history and solution bitwise (exit 1 otherwise).
//
// --schedules FILE keeps the learnt schedules between program runs
// (schedule_file.hpp): loaded at the start when it matches this problem and
// worker count, saved at the end. A run = one solve from x = 0; the first
// solve of a cws variant is its learning run, the later ones replay.

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/bench_env.hpp"
#include "common/block_loops.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"
#include "pcg/loops_executor.hpp"
#include "pcg/schedule_file.hpp"
#include "pcg/solver.hpp"

namespace {

using cws_apps::json;
using cws_apps::loop_flavour;

struct solve_record {
  double seconds = 0;
  bool warmup = false;
  unsigned iterations = 0;
  double relres = 0;
  pcg::phase_tally tally;
};

struct variant {
  std::string name;
  loop_flavour loop;
  std::string policy{};  // cws variants
  bool follow = false;   // every kernel follows spmv's template
  std::vector<cws::schedule*> schedules{};
  std::unique_ptr<cws_apps::block_loops> loops{};
  std::unique_ptr<pcg::system> sys{};
  std::unique_ptr<pcg::vectors> vec{};
  std::unique_ptr<pcg::loops_executor> exec{};
  std::unique_ptr<pcg::solver> solver{};
  pcg::solve_result last{};
  std::vector<solve_record> solves{};
  std::vector<std::uint64_t> first_measured{};  // per kernel: the schedule's iterations at the first measured solve
  bool measuring = false;
};

std::string hex(double v) { return fmt::format("{:a}", v); }

json tally_json(const pcg::phase_tally& t) {
  return {{"phases", t.phases},
          {"relws_phases", t.relws},
          {"relws_iterations", t.relws_iterations},
          {"stows_phases", t.stows},
          {"stuws_phases", t.stuws},
          {"random_phases", t.random},
          {"no_template_phases", t.no_template},
          {"diverged_phases", t.diverged},
          {"user_phases", t.user}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Preconditioned CG on a 3D diffusion matrix: cws under each policy vs TBB vs OpenMP static", "cws-pcg"};
  cws_apps::common_options opt;
  pcg::problem prob;
  prob.n = 64;
  int stencil = 7;
  std::string coef = "constant", precond = "sgs", schedules_path, matrix_path;
  pcg::solve_options so;
  std::size_t block_rows = 0;
  bool strict = false, quiet = false;
  app.add_option("--size", prob.n, "Grid side n (n^3 unknowns)")
      ->check(CLI::Range(std::size_t{2}, std::size_t{1024}))
      ->capture_default_str();
  app.add_option("--stencil", stencil, "7 or 27 points")->check(CLI::IsMember({7, 27}))->capture_default_str();
  app.add_option("--coef", coef, "Coefficients: constant (Poisson), aniso (weak z coupling), variable (3 decades)")
      ->check(CLI::IsMember({"constant", "aniso", "variable"}))
      ->capture_default_str();
  // CLI::Range lets NaN through (every comparison with it is false): refused first.
  const CLI::Validator not_nan(
      [](std::string& v) { return std::isnan(std::strtod(v.c_str(), nullptr)) ? "not a number: " + v : std::string(); },
      "");
  app.add_option("--anisotropy", prob.anisotropy, "z coupling of --coef aniso")
      ->check(not_nan)
      ->check(CLI::Range(1e-6, 1e6))
      ->capture_default_str();
  app.add_option("--precond", precond, "Preconditioner: none, jacobi, sgs (multicolour symmetric Gauss-Seidel)")
      ->check(CLI::IsMember({"none", "jacobi", "sgs"}))
      ->capture_default_str();
  app.add_option("--tol", so.tol, "Stop at |r| / |b| <= tol")
      ->check(not_nan)
      ->check(CLI::Range(1e-15, 0.5))
      ->capture_default_str();
  app.add_option("--max-iters", so.max_iters, "Give up (exit 1) after this many iterations")
      ->check(CLI::Range(1u, 1000000u))
      ->capture_default_str();
  app.add_option("--block-rows", block_rows,
                 "Rows per block, the leaf of every loop and unit of the reductions (0: about 16 blocks per worker, "
                 "whole pages)")
      ->capture_default_str();
  app.add_option("--schedules", schedules_path,
                 "Schedule file: loaded at the start if it exists and matches (problem, blocks, worker count; else "
                 "one line and ignored), saved at the end");
  app.add_flag("--schedules-strict", strict, "An existing schedule file that does not match is an error (exit 2)");
  app.add_option("--write-matrix", matrix_path, "Write the matrix in Matrix Market format (symmetric, lower)");
  app.add_flag("-q,--quiet", quiet, "No per-solve lines, only the table");
  opt.plan.runs = pcg::default_runs;  // before the option is made: --help shows this default
  cws_apps::add_common_options(app, opt);
  app.remove_option(app.get_option("--iters"));
  const cws_apps::policies_option policies_opt(app, opt, {"random", "stows", "stuws", "relws", "evolve", "user"},
                                               "Comma-separated cws policies, one cws variant each (with evolve also "
                                               "cws-evolve-follow: every kernel follows spmv's template)");
  cws_apps::add_order_option(app, opt, "interleaved: one matrix and 5 vectors per variant; sequential: two sets");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    if (!schedules_path.empty()) pcg::check_schedule_file_path(schedules_path);  // saved at the end: fail now
    prob.stencil = stencil == 27 ? pcg::stencil_kind::twenty_seven : pcg::stencil_kind::seven;
    prob.coef = pcg::parse_coefficient(coef);
    so.pc = pcg::parse_preconditioner(precond);
    const std::vector<std::string> policies = policies_opt.chosen();
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();
    cws_apps::locality_tally tally(rt);
    if (block_rows == 0) block_rows = pcg::default_block_rows(prob, env.workers());
    const pcg::slab part = pcg::make_slab(prob, block_rows, 0, 1);
    const std::vector<std::string> kernels = pcg::kernel_names(so.pc, prob.colours());
    const std::size_t k_spmv = 2;

    std::vector<variant> variants;
    const auto build = [&](variant& v) {
      v.loops = std::make_unique<cws_apps::block_loops>(
          env, v.loop, part.blocks, 1, v.schedules.empty() ? std::vector<cws::schedule*>(kernels.size()) : v.schedules);
      v.sys = std::make_unique<pcg::system>(prob, part, cws::numa::first_touch);
      v.vec = std::make_unique<pcg::vectors>(part, cws::numa::first_touch);
      v.exec = std::make_unique<pcg::loops_executor>(*v.loops, v.schedules, k_spmv);
      v.solver = std::make_unique<pcg::solver>(*v.sys, *v.vec, *v.exec, so);
      v.solver->init();  // the init phase: first touch of every array, block by block
    };
    // The serial reference first: its matrix gives the pattern hash of the schedule names.
    variants.push_back({.name = "serial", .loop = loop_flavour::serial});
    build(variants.front());
    if (!matrix_path.empty()) {
      pcg::write_matrix_market(*variants.front().sys, matrix_path);
      std::fprintf(stderr, "matrix: %zu rows, %llu nonzeros written to %s\n", part.grid_rows,
                   static_cast<unsigned long long>(variants.front().sys->nnz), matrix_path.c_str());
    }
    const std::string key = fmt::format("{},{},{}x{},h={:08x}", prob.describe(), pcg::to_string(so.pc), part.blocks,
                                        part.block_rows, variants.front().sys->pattern_hash() & 0xffffffffu);
    std::optional<pcg::schedule_file_status> file;
    if (!schedules_path.empty()) {
      file = pcg::load_schedule_file(rt, schedules_path, key, strict);
      std::fprintf(stderr, "%s\n", file->message.c_str());
    }

    // cws-<suffix>: one schedule per kernel under `policy`; under a replaying
    // policy init follows spmv (its pages land where spmv runs once spmv has a
    // template, e.g. from the schedule file), with `follow` every kernel does.
    const auto add_cws = [&](const std::string& policy, const std::string& suffix, bool follow) {
      variant v{.name = "cws-" + suffix,
                .loop = policy == cws::policy::user ? loop_flavour::cws_owned : loop_flavour::cws,
                .policy = policy,
                .follow = follow};
      const std::string spmv = pcg::schedule_name(suffix, "spmv", key);
      for (const std::string& k : kernels) {
        // With follow, the phases that run once per solve (start) or once at
        // all (init) replay spmv's template strictly: too rare to learn, and
        // an evolve schedule relocalizes after each of its learning runs,
        // which would move the vectors they share with the per-iteration
        // kernels (x, r) to its own mapping, solve after solve.
        const bool rare = follow && (k == "init" || k == "start");
        const std::string_view kernel_policy = k == "check" ? "random" : rare ? cws::policy::stows : policy;
        cws::schedule& s = rt.schedule(pcg::schedule_name(suffix, k, key), kernel_policy);
        if (cws_apps::replays(policy) && k != "spmv" && k != "check" && (follow || k == "init")) s.follow(spmv);
        v.schedules.push_back(&s);
      }
      variants.push_back(std::move(v));
    };
    for (const std::string& p : policies) {
      add_cws(p, p, false);
      if (p == cws::policy::evolve) add_cws(p, p + "-follow", true);
    }
    for (auto [name, flavour] : {std::pair{"tbb-affinity", loop_flavour::tbb_affinity},
                                 {"tbb-static", loop_flavour::tbb_static},
                                 {"omp-static", loop_flavour::omp_static}})
      variants.push_back({.name = name, .loop = flavour});

    cws_apps::report out("pcg", env,
                         {{"size", prob.n},
                          {"rows", part.grid_rows},
                          {"nnz", variants.front().sys->nnz},
                          {"stencil", stencil},
                          {"coef", coef},
                          {"anisotropy", prob.anisotropy},
                          {"precond", precond},
                          {"colours", prob.colours()},
                          {"phases_per_iteration", kernels.size() - 3},
                          {"kernels", kernels},
                          {"tol", so.tol},
                          {"block_rows", part.block_rows},
                          {"blocks", part.blocks},
                          {"runs", opt.plan.runs},
                          {"warmup", opt.plan.warmup},
                          {"order", cws_apps::to_string(opt.plan.order)},
                          {"policies", policies},
                          {"schedule_key", key},
                          {"schedules_file", schedules_path},
                          {"schedules_loaded", file && file->loaded},
                          {"schedules_seeded", file ? file->seeded : 0},
                          {"schedules_evolve_stows", file ? file->evolve_stows : 0},
                          {"schedules_message", file ? file->message : ""},
                          {"page_homes", rt.page_homes().name()}});

    const variant* reference = nullptr;
    std::vector<std::string> wrong;
    std::vector<std::string> solve_lines;
    const auto prepare = [&](variant& v) {
      if (!v.sys) build(v);
    };
    const auto one_run = [&](variant& v, cws_apps::phase_timer& t) {
      if (t.recording() && !v.measuring) {
        v.measuring = true;
        for (const cws::schedule* s : v.schedules) v.first_measured.push_back(s->iterations());
      }
      v.loops->begin_run(t);
      v.exec->begin_solve();
      // Warm-up solves too (the learning run is the first): time() measures whether it records or not.
      const double seconds = t.time("solve", [&] { v.last = v.solver->solve(); });
      v.solves.push_back({.seconds = seconds,
                          .warmup = !t.recording(),
                          .iterations = v.last.iterations,
                          .relres = v.last.relres,
                          .tally = v.exec->tally()});
    };
    const auto finish = [&](variant& v, const cws_apps::phase_timer& timer) {
      json& e = out.add(v.name);
      cws_apps::put_timing(e, timer["solve"]);
      e["iterations"] = v.last.iterations;
      e["relres"] = v.last.relres;
      e["relres_hex"] = hex(v.last.relres);
      e["converged"] = v.last.converged;
      bool ok = v.last.converged;
      if (!v.last.converged)
        wrong.push_back(fmt::format("{}: not converged after {} iterations (|r|/|b| = {:.3e})", v.name,
                                    v.last.iterations, v.last.relres));
      if (reference == nullptr) {
        reference = &v;
        const double true_relres = v.solver->true_relres();
        const auto err = v.solver->error_parts();
        const double rel_err = std::sqrt(err.sq_diff / err.sq_exact), cond = prob.condition_bound();
        const double bound = cond * (true_relres + 64 * 2.2e-16);
        e["true_relres"] = true_relres;
        e["error_2"] = rel_err;
        e["error_max"] = err.max_abs / err.max_exact;
        e["condition_bound"] = cond;
        e["error_bound"] = bound;
        // Two checks, each reported with its own numbers.
        const bool err_ok = rel_err <= bound, res_ok = true_relres <= 10 * so.tol;
        if (!err_ok)
          wrong.push_back(
              fmt::format("serial: error {:.3e} against the manufactured solution over the bound {:.3e} "
                          "(condition bound {:.3e} x (true |b - Ax|/|b| {:.3e} + 64 eps))",
                          rel_err, bound, cond, true_relres));
        if (!res_ok)
          wrong.push_back(fmt::format("serial: true residual |b - Ax|/|b| = {:.3e} over 10 x tol = {:.3e}",
                                      true_relres, 10 * so.tol));
        ok = ok && err_ok && res_ok;
      } else {
        const pcg::solve_result& ref = reference->last;
        bool same = v.last.iterations == ref.iterations && v.last.history == ref.history;
        for (const solve_record& s : v.solves) same = same && s.iterations == ref.iterations && s.relres == ref.relres;
        std::size_t diff = 0;
        for (std::size_t h = 0; h < part.held(); ++h) diff += v.vec->x[h] != reference->vec->x[h];
        if (!same || diff != 0)
          wrong.push_back(
              fmt::format("{}: {} iterations, |r|/|b| = {} ({}), {} entries of x differ; the serial "
                          "reference has {} iterations, {} ({})",
                          v.name, v.last.iterations, v.last.relres, hex(v.last.relres), diff, ref.iterations,
                          ref.relres, hex(ref.relres)));
        ok = ok && same && diff == 0;
      }
      e["verified"] = ok;
      if (v.loops->runs_cws_phases()) {
        e["policy"] = v.policy;
        e["follow"] = v.follow;
        e["spmv_schedule"] = v.schedules[k_spmv]->name();
        const solve_record& first = v.solves.front();
        e["first_relws_iterations"] = first.tally.relws_iterations;
        e["first_relws_phases"] = first.tally.relws;
        e["first_no_template_phases"] = first.tally.no_template;
        unsigned relws_measured = 0, relws_phases_measured = 0, diverged = 0;
        for (const solve_record& s : v.solves) {
          diverged += s.tally.diverged;
          if (s.warmup) continue;
          relws_measured += s.tally.relws_iterations;
          relws_phases_measured += s.tally.relws;
        }
        e["measured_relws_iterations"] = relws_measured;
        e["measured_relws_phases"] = relws_phases_measured;
        e["diverged_phases"] = diverged;
        // Locality of the measured solves' phases, per kernel (init: its one run at set-up).
        json per_kernel = json::object();
        std::uint64_t touched = 0, local = 0, moved = 0;
        double reloc_s = 0;
        for (std::size_t k = 0; k < kernels.size(); ++k) {
          const cws::schedule& s = *v.schedules[k];
          const std::uint64_t from = k == 0 ? 0 : (v.first_measured.empty() ? 0 : v.first_measured[k]);
          const auto sum = tally.summarize(s.name(), from, s.iterations());
          json ke;
          cws_apps::put_locality(ke, sum, "local_share");
          per_kernel[kernels[k]] = ke;
          if (k == 0 || kernels[k] == "check") continue;
          touched += sum.touched_bytes, local += sum.local_bytes, moved += sum.pages_moved;
          reloc_s += sum.relocalization_s;
        }
        e["local_share"] = touched ? json(static_cast<double>(local) / static_cast<double>(touched)) : json(nullptr);
        e["spmv_local_share_last"] = per_kernel["spmv"]["local_share_last"];
        e["pages_moved"] = moved;
        e["relocalization_s"] = reloc_s;
        e["kernels"] = per_kernel;
        cws_apps::put_phase_breakdown(e, v.loops->clock(k_spmv), "spmv_");
      }
      json solves = json::array();
      for (std::size_t i = 0; i < v.solves.size(); ++i) {
        const solve_record& s = v.solves[i];
        json se{{"solve", i},
                {"warmup", s.warmup},
                {"seconds", s.seconds},
                {"iterations", s.iterations},
                {"relres_hex", hex(s.relres)}};
        if (v.loops->runs_cws_phases()) se.update(tally_json(s.tally));
        solves.push_back(std::move(se));
      }
      e["solves"] = std::move(solves);
      if (v.loops->runs_cws_phases() && !quiet) {
        std::string line = fmt::format("{}:", v.name);
        for (std::size_t i = 0; i < v.solves.size(); ++i) {
          const solve_record& s = v.solves[i];
          line += fmt::format(" [{}{} relws it {}, stows {}, random {}]", i + 1, s.warmup ? " warm-up" : "",
                              s.tally.relws_iterations, s.tally.stows, s.tally.random + s.tally.no_template);
        }
        solve_lines.push_back(std::move(line));
      }
      if (&v != reference) v.sys.reset(), v.vec.reset();
    };
    cws_apps::measure_variants(variants, opt.plan, prepare, one_run, finish);
    out.add_ratio("ratio_vs_omp_static", "median_s", "omp-static");
    out.add_ratio("ratio_vs_tbb_affinity", "median_s", "tbb-affinity");
    out.add_ratio("ratio_vs_serial", "median_s", "serial");

    env.save_trace();
    if (!schedules_path.empty()) {
      pcg::save_schedule_file(rt, schedules_path);
      std::fprintf(stderr, "schedules: saved to %s\n", schedules_path.c_str());
    }
    if (!opt.json && !quiet) {
      fmt::print("solves of the cws variants (phases that ran as relws / stows / random):\n");
      for (const std::string& l : solve_lines) fmt::print("  {}\n", l);
      fmt::print("\n");
    }
    out.print(opt.json,
              fmt::format("cws-pcg: {} ({} rows, {} nonzeros), PCG with {}, tol {:g}, {} blocks of {} rows, {} "
                          "phases per iteration; {} solves (+{} warm-up) per variant",
                          prob.describe(), part.grid_rows, variants.front().sys->nnz, precond, so.tol, part.blocks,
                          part.block_rows, kernels.size() - 3, opt.plan.runs, opt.plan.warmup),
              {{"variant", "variant"},
               {"ms/solve", "median_s", 1e3, 1},
               {"min ms", "min_s", 1e3, 1},
               {"vs omp", "ratio_vs_omp_static", 1, 2},
               {"vs tbb-aff", "ratio_vs_tbb_affinity", 1, 2},
               {"iters", "iterations"},
               {"relws it 1st", "first_relws_iterations"},
               {"relws it later", "measured_relws_iterations"},
               {"local %", "local_share", 100, 1},
               {"spmv last %", "spmv_local_share_last", 100, 1},
               {"moved", "pages_moved"},
               {"ok", "verified"}},
              {"ms/solve: median over the measured solves of the time to solution (x = 0 to |r|/|b| <= tol), the "
               "wall clock around every phase call; 'vs' columns are time ratios (lower is better);",
               "relws it: CG iterations in which some phase ran as relws (learning), in the first solve (the "
               "warm-up, unless a schedule file was loaded) and summed over the measured ones;",
               fmt::format("local %: byte-weighted share of the declared bytes of the measured solves' phases on "
                           "pages homed on the toucher's node (page homes: {}); spmv last %: spmv's last phase; "
                           "moved: pages relocalized after them;",
                           rt.page_homes().name()),
               "ok: the same iterations, residual history and solution as the serial reference, bit for bit "
               "(serial: error against the manufactured solution within cond(A) x residual)."});
    if (!wrong.empty()) {
      for (const std::string& w : wrong) cws_apps::report_error(app.get_name(), w.c_str(), 1);
      return 1;
    }
    return 0;
  });
}
