#include "pcg/results.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "common/table_columns.hpp"
#include "common/variant_runner.hpp"

namespace pcg {

namespace {

using cws_apps::json;

std::string hex(double v) { return fmt::format("{:a}", v); }

json tally_json(const phase_tally& t) {
  json j;
  for (const auto& [name, count] : tally_names) j[name] = t.*count;
  return j;
}

json solves_json(const variant& v) {
  json solves = json::array();
  for (std::size_t i = 0; i < v.solves.size(); ++i) {
    const solve_record& s = v.solves[i];
    json se{{"solve", i},
            {"warmup", s.warmup},
            {"seconds", s.seconds},
            {"iterations", s.iterations},
            {"relres_hex", hex(s.relres)}};
    if (v.runs_cws()) se.update(tally_json(s.tally));
    solves.push_back(std::move(se));
  }
  return solves;
}

// "cws-relws: [1 warm-up relws it 12, stows 0, random 3] [2 ...]"
std::string solve_line(const variant& v) {
  std::string line = fmt::format("{}:", v.name);
  for (std::size_t i = 0; i < v.solves.size(); ++i) {
    const solve_record& s = v.solves[i];
    line += fmt::format(" [{}{} relws it {}, stows {}, random {}]", i + 1, s.warmup ? " warm-up" : "",
                        s.tally.relws_iterations, s.tally.stows, s.tally.random + s.tally.no_template);
  }
  return line;
}

}  // namespace

json run_params(const options& o, const variant_set& set, const std::vector<std::string>& policies, cws::runtime& rt) {
  const problem_flags& p = o.problem;
  const std::optional<schedule_file_status>& file = set.file();
  return cws_apps::with_plan_params({{"size", p.prob.n},
                                     {"rows", set.part().grid_rows},
                                     {"nnz", set.nnz()},
                                     {"stencil", p.stencil},
                                     {"coef", p.coef},
                                     {"anisotropy", p.prob.anisotropy},
                                     {"precond", p.precond},
                                     {"colours", p.prob.colours()},
                                     {"phases_per_iteration", set.kernels().size() - 3},
                                     {"kernels", set.kernels()},
                                     {"tol", p.so.tol},
                                     {"block_rows", set.part().block_rows},
                                     {"blocks", set.part().blocks}},
                                    o.common.plan,
                                    {{"policies", policies},
                                     {"schedule_key", set.key()},
                                     {"schedules_file", p.schedules_path},
                                     {"schedules_loaded", file && file->loaded},
                                     {"schedules_seeded", file ? file->seeded : 0},
                                     {"schedules_evolve_stows", file ? file->evolve_stows : 0},
                                     {"schedules_message", file ? file->message : ""},
                                     {"page_homes", rt.page_homes().name()}});
}

results::results(cws_apps::report& out, const options& o, const variant_set& set, const cws_apps::locality_tally& tally)
    : out_(out), opt_(o), set_(set), tally_(tally) {}

void results::finish(variant& v, const cws_apps::phase_timer& timer) {
  json& e = out_.add(v.name);
  cws_apps::put_timing(e, timer["solve"]);
  e["iterations"] = v.last.iterations;
  e["relres"] = v.last.relres;
  e["relres_hex"] = hex(v.last.relres);
  e["converged"] = v.last.converged;
  bool ok = v.last.converged;
  if (!v.last.converged)
    wrong_.push_back(fmt::format("{}: not converged after {} iterations (|r|/|b| = {:.3e})", v.name, v.last.iterations,
                                 v.last.relres));
  if (reference_ == nullptr) {
    reference_ = &v;
    ok = verify_reference(v, e) && ok;
  } else {
    ok = same_as_reference(v) && ok;
  }
  e["verified"] = ok;
  if (v.runs_cws()) put_cws(v, e);
  e["solves"] = solves_json(v);
  if (v.runs_cws() && !opt_.quiet) solve_lines_.push_back(solve_line(v));
  if (&v != reference_) v.sys.reset(), v.vec.reset();
}

bool results::verify_reference(const variant& v, json& e) {
  const problem& prob = opt_.problem.prob;
  const double tol = opt_.problem.so.tol;
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
  const bool err_ok = rel_err <= bound, res_ok = true_relres <= 10 * tol;
  if (!err_ok)
    wrong_.push_back(
        fmt::format("serial: error {:.3e} against the manufactured solution over the bound {:.3e} "
                    "(condition bound {:.3e} x (true |b - Ax|/|b| {:.3e} + 64 eps))",
                    rel_err, bound, cond, true_relres));
  if (!res_ok)
    wrong_.push_back(
        fmt::format("serial: true residual |b - Ax|/|b| = {:.3e} over 10 x tol = {:.3e}", true_relres, 10 * tol));
  return err_ok && res_ok;
}

bool results::same_as_reference(const variant& v) {
  const solve_result& ref = reference_->last;
  bool same = v.last.iterations == ref.iterations && v.last.history == ref.history;
  for (const solve_record& s : v.solves) same = same && s.iterations == ref.iterations && s.relres == ref.relres;
  std::size_t diff = 0;
  for (std::size_t h = 0; h < set_.part().held(); ++h) diff += v.vec->x[h] != reference_->vec->x[h];
  if (!same || diff != 0)
    wrong_.push_back(
        fmt::format("{}: {} iterations, |r|/|b| = {} ({}), {} entries of x differ; the serial "
                    "reference has {} iterations, {} ({})",
                    v.name, v.last.iterations, v.last.relres, hex(v.last.relres), diff, ref.iterations, ref.relres,
                    hex(ref.relres)));
  return same && diff == 0;
}

void results::put_cws(const variant& v, json& e) const {
  const std::vector<std::string>& kernels = set_.kernels();
  e["policy"] = v.policy;
  e["follow"] = v.follow;
  e["spmv_schedule"] = v.schedules[spmv_kernel]->name();
  const solve_record& first = v.solves.front();
  e["first_relws_iterations"] = first.tally.relws_iterations;
  e["first_relws_phases"] = first.tally.relws;
  e["first_no_template_phases"] = first.tally.no_template;
  unsigned relws_measured = 0, relws_phases_measured = 0, diverged = 0, released = 0;
  for (const solve_record& s : v.solves) {
    diverged += s.tally.diverged;
    released += s.tally.released;
    if (s.warmup) continue;
    relws_measured += s.tally.relws_iterations;
    relws_phases_measured += s.tally.relws;
  }
  e["measured_relws_iterations"] = relws_measured;
  e["measured_relws_phases"] = relws_phases_measured;
  e["diverged_phases"] = diverged;
  e["released_phases"] = released;
  // Locality of the measured solves' phases, per kernel (init: its one run at set-up).
  json per_kernel = json::object();
  std::uint64_t touched = 0, local = 0, moved = 0;
  double reloc_s = 0;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const cws::schedule& s = *v.schedules[k];
    const std::uint64_t from = k == 0 ? 0 : (v.first_measured.empty() ? 0 : v.first_measured[k]);
    const auto sum = tally_.summarize(s.name(), from, s.iterations());
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
  cws_apps::put_phase_breakdown(e, v.loops->clock(spmv_kernel), "spmv_");
}

std::vector<cws_apps::column> results::columns() {
  std::vector<cws_apps::column> c = cws_apps::time_columns("ms/solve", 1);
  c.push_back(cws_apps::ratio_column("vs omp", "ratio_vs_omp_static"));
  c.push_back(cws_apps::ratio_column("vs tbb-aff", "ratio_vs_tbb_affinity"));
  c.insert(c.end(), {{"iters", "iterations"},
                     {"relws it 1st", "first_relws_iterations"},
                     {"relws it later", "measured_relws_iterations"},
                     {"local %", "local_share", 100, 1},
                     {"spmv last %", "spmv_local_share_last", 100, 1},
                     {"moved", "pages_moved"},
                     {"ok", "verified"}});
  return c;
}

void results::print(cws::runtime& rt) const {
  out_.add_ratio("ratio_vs_omp_static", "median_s", "omp-static");
  out_.add_ratio("ratio_vs_tbb_affinity", "median_s", "tbb-affinity");
  out_.add_ratio("ratio_vs_serial", "median_s", "serial");
  if (!opt_.common.json && !opt_.quiet) {
    fmt::print("solves of the cws variants (phases that ran as relws / stows / random):\n");
    for (const std::string& l : solve_lines_) fmt::print("  {}\n", l);
    fmt::print("\n");
  }
  const problem_flags& p = opt_.problem;
  const slab& part = set_.part();
  out_.print(opt_.common.json,
             fmt::format("cws-pcg: {} ({} rows, {} nonzeros), PCG with {}, tol {:g}, {} blocks of {} rows, {} "
                         "phases per iteration; {} solves (+{} warm-up) per variant",
                         p.prob.describe(), part.grid_rows, set_.nnz(), p.precond, p.so.tol, part.blocks,
                         part.block_rows, set_.kernels().size() - 3, opt_.common.plan.runs, opt_.common.plan.warmup),
             columns(),
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
}

}  // namespace pcg
