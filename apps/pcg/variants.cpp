#include "pcg/variants.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <utility>

#include "common/loop_flavour_names.hpp"
#include "pcg/kernel_schedules.hpp"

namespace pcg {

namespace {

slab slab_of(const problem_flags& f, unsigned workers) {
  const std::size_t block_rows = f.block_rows == 0 ? default_block_rows(f.prob, workers) : f.block_rows;
  return make_slab(f.prob, block_rows, 0, 1);
}

}  // namespace

variant_set::variant_set(cws_apps::bench_env& env, const options& o, const std::vector<std::string>& policies)
    : env_(env),
      prob_(o.problem.prob),
      so_(o.problem.so),
      part_(slab_of(o.problem, env.workers())),
      kernels_(kernel_names(so_.pc, prob_.colours())) {
  // The serial reference first: its matrix gives the pattern hash of the schedule names.
  variants_.push_back({.name = "serial", .loop = cws_apps::loop_flavour::serial});
  build(variants_.front());
  const system& serial = *variants_.front().sys;
  nnz_ = serial.nnz;
  if (!o.matrix_path.empty()) {
    write_matrix_market(serial, o.matrix_path);
    std::fprintf(stderr, "matrix: %zu rows, %llu nonzeros written to %s\n", part_.grid_rows,
                 static_cast<unsigned long long>(serial.nnz), o.matrix_path.c_str());
  }
  key_ = fmt::format("{},{},{}x{},h={:08x}", prob_.describe(), to_string(so_.pc), part_.blocks, part_.block_rows,
                     serial.pattern_hash() & 0xffffffffu);
  const std::string& path = o.problem.schedules_path;
  if (!path.empty()) {
    file_ = load_schedule_file(env.rt(), path, key_, o.strict);
    std::fprintf(stderr, "%s\n", file_->message.c_str());
  }

  const auto add_cws = [&](const std::string& policy, const std::string& suffix, bool follow) {
    variants_.push_back({.name = "cws-" + suffix,
                         .loop = cws_apps::cws_flavour_of(policy),
                         .policy = policy,
                         .follow = follow,
                         .schedules = kernel_schedules(env_.rt(), policy, suffix, kernels_, key_, follow)});
  };
  for (const std::string& p : policies) {
    add_cws(p, p, false);
    if (p == cws::policy::evolve) add_cws(p, p + "-follow", true);
  }
  for (const char* name : {"tbb-affinity", "tbb-static", "omp-static"})
    variants_.push_back({.name = name, .loop = cws_apps::flavour_named(name)});
}

void variant_set::build(variant& v) {
  v.loops = std::make_unique<cws_apps::block_loops>(
      env_, v.loop, part_.blocks, 1, v.schedules.empty() ? std::vector<cws::schedule*>(kernels_.size()) : v.schedules);
  v.sys = std::make_unique<system>(prob_, part_, cws::numa::first_touch);
  v.vec = std::make_unique<vectors>(part_, cws::numa::first_touch);
  v.exec = std::make_unique<loops_executor>(*v.loops, v.schedules, spmv_kernel);
  v.solver = std::make_unique<solver>(*v.sys, *v.vec, *v.exec, so_);
  v.solver->init();  // the init phase: first touch of every array, block by block
}

void variant_set::measure(const cws_apps::run_plan& plan, const finish_fn& finish) {
  cws_apps::measure_variants(
      variants_, plan,
      [this](variant& v) {
        if (!v.sys) build(v);
      },
      [this](variant& v, cws_apps::phase_timer& t) { one_run(v, t); }, finish);
}

void variant_set::one_run(variant& v, cws_apps::phase_timer& t) {
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
}

}  // namespace pcg
