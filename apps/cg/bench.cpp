#include "cg/bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "common/table_columns.hpp"

namespace cg_app {

namespace {

using cg::kernel;
using cws_apps::json;

// The kernels of the timed loop (init runs once, before the runs) and how
// many times each runs per outer iteration.
constexpr std::array<std::pair<kernel, unsigned>, 8> timed_kernels{{{kernel::start, 1},
                                                                    {kernel::spmv, cg::cg_steps},
                                                                    {kernel::dot, cg::cg_steps},
                                                                    {kernel::update, cg::cg_steps},
                                                                    {kernel::direction, cg::cg_steps},
                                                                    {kernel::residual, 1},
                                                                    {kernel::norms, 1},
                                                                    {kernel::normalize, 1}}};

// Rows per block when --block is not given: the same for every worker
// count, so that the reductions (and zeta) are bitwise the same on any
// number of workers; about 40 to 150 blocks per class.
std::size_t default_block_rows(char cls) {
  switch (cls) {
    case 'S':
      return 32;  // 44 blocks
    case 'W':
    case 'A':
      return 128;  // 55 and 110 blocks
    default:
      return 1024;  // B: 74 blocks, C: 147
  }
}

bool is_follower(kernel k) { return k != kernel::init && k != kernel::spmv; }

}  // namespace

bench::bench(cws_apps::bench_env& env, const cws_apps::common_options& opt, const std::vector<std::string>& policies,
             const cg::problem_class& cls, int iters, settings s)
    : variant_suite(env, opt), policies_(policies), cls_(cls), iters_(iters), s_(std::move(s)), tally_(env.rt()) {
  if (s_.block == 0) s_.block = default_block_rows(cls.name);
  s_.block = std::min<std::size_t>(s_.block, static_cast<std::size_t>(cls.na));
  blocks_ = (static_cast<std::size_t>(cls.na) + s_.block - 1) / s_.block;
  // All schedules are created before anything runs, so an unknown policy fails at once (exit 2).
  variants_ = cws_apps::standard_variants<variant>(policies_, [&](std::vector<variant>& list, const std::string& p) {
    add_cws(list, p, p, s_.follow_spmv && cws_apps::replays(p));
    if (p == cws::policy::evolve && !s_.follow_spmv) add_cws(list, p, p + "-follow", true);
  });
  matrix_ = cg::npb_matrix(cls);
  for (variant& v : variants_) {
    std::vector<cws::schedule*> sched;
    if (cws_apps::runs_cws_phases(v.loop)) sched.assign(v.schedules.begin(), v.schedules.end());
    v.runner = std::make_unique<cg::loops_runner>(env_, v.loop, blocks_, std::move(sched), s_.init == "serial");
  }
}

void bench::add_cws(std::vector<variant>& list, const std::string& p, const std::string& suffix, bool follow) {
  cws::runtime& rt = env_.rt();
  variant v{.name = "cws-" + suffix, .loop = cws_apps::cws_flavour_of(p), .policy = p};
  const std::string spmv_name = fmt::format("cg-spmv/{}", suffix);
  for (std::size_t k = 0; k < cg::kernel_count; ++k) {
    const auto kk = static_cast<kernel>(k);
    std::string policy = p;
    // evolve relocalizes after every run that becomes a template. An
    // init under evolve would move the pages to init's own tree; a
    // follower under evolve replays spmv's template as relws (extra
    // steals, take-backs) and would move the matrix rows it shares
    // with spmv (residual) to its own deviating trees. So the init
    // runs under --evolve-init and the followers replay spmv's
    // template strictly (stows), leaving the pages to spmv.
    if (p == cws::policy::evolve && kk == kernel::init) policy = s_.evolve_init;
    if (p == cws::policy::evolve && follow && is_follower(kk)) policy = cws::policy::stows;
    v.schedules[k] = &rt.schedule(fmt::format("cg-{}/{}", cg::kernel_name(kk), suffix), policy);
    if (follow && is_follower(kk)) v.schedules[k]->follow(spmv_name);
  }
  list.push_back(std::move(v));
}

json bench::params() const {
  const std::optional<double> zeta_ref = cg::reference_zeta(cls_, iters_);
  return cws_apps::with_plan_params({{"class", std::string(1, cls_.name)},
                                     {"na", cls_.na},
                                     {"nonzer", cls_.nonzer},
                                     {"niter", cls_.niter},
                                     {"iters", iters_},
                                     {"shift", cls_.shift},
                                     {"nnz", matrix_.nnz()},
                                     {"block_rows", s_.block},
                                     {"blocks", blocks_},
                                     {"phases_per_iter", 4 * cg::cg_steps + 4},
                                     {"operations_per_iter", cg::operations(cls_, 1)},
                                     {"zeta_ref", zeta_ref ? json(*zeta_ref) : json(nullptr)},
                                     {"zeta_tolerance", cg::zeta_tolerance}},
                                    opt_.plan,
                                    {{"policies", policies_},
                                     {"init", s_.init},
                                     {"follow_spmv", s_.follow_spmv},
                                     {"evolve_init", s_.evolve_init},
                                     {"page_homes", env_.rt().page_homes().name()}});
}

int bench::run(const std::string& program, const verify_fn& verify) {
  cws_apps::report out("cg", env_, params());
  return variant_suite::run(out, program, verify,
                            {{"ratio_vs_omp_static", "median_s", "omp-static"},
                             {"ratio_vs_cws_random", "median_s", "cws-random"},
                             {"ratio_vs_serial", "median_s", "serial"}});
}

// The first spmv phases of each cws variant (--iteration-lines).
void bench::print_before_table() const {
  for (const line_block& b : line_blocks_) {
    cws_apps::print_run(b.title, b.lines, 0);
    fmt::print("\n");
  }
}

// The variant's arrays, first touched by its init loop, untimed.
void bench::prepare(variant& v) {
  v.w = std::make_unique<cg::workspace>(matrix_, s_.block, cws::numa::first_touch);
  v.w->initialize(*v.runner);
  for (std::size_t k = 0; k < cg::kernel_count; ++k)
    if (v.schedules[k] != nullptr) v.first_iteration[k] = v.schedules[k]->iterations();
  if (v.schedules[cg::index(kernel::spmv)] != nullptr)
    v.runner->keep_lines(kernel::spmv, map_of(v, kernel::spmv, cg::cg_steps));
}

void bench::one_run(variant& v, cws_apps::phase_timer& t) {
  v.runner->loops().begin_run(t);
  v.runner->set_measuring(t.recording());
  v.w->reset();
  cg::iteration_result last;
  auto* breakdown = t.recording() ? &v.kernel_s : nullptr;
  t.time_reported("iteration", static_cast<unsigned>(iters_),
                  [&] { return cws_apps::seconds_of([&] { last = v.w->iterate(*v.runner, cls_.shift, breakdown); }); });
  v.zetas.push_back(last.zeta);
  v.rnorm = last.rnorm;
}

void bench::put_times(const variant& v, const cws_apps::phase_timer& t, json& e) const {
  cws_apps::put_timing(e, t["iteration"]);  // median_s / min_s: one outer iteration
  const double per_iter = t["iteration"].median();
  e["mops"] = per_iter > 0 ? cg::operations(cls_, 1) / per_iter / 1e6 : 0.0;
  json breakdown = json::object();
  const double measured_iters = static_cast<double>(opt_.plan.runs) * iters_;
  for (const auto& [k, per] : timed_kernels) breakdown[cg::kernel_name(k)] = v.kernel_s[cg::index(k)] / measured_iters;
  e["kernel_s_per_iter"] = breakdown;
  e["spmv_s_per_iter"] = v.kernel_s[cg::index(kernel::spmv)] / measured_iters;
}

// The run map of kernel k's schedule: `per` phases per outer iteration.
cws_apps::run_map bench::map_of(const variant& v, kernel k, unsigned per) const {
  return {v.first_iteration[cg::index(k)], per * static_cast<unsigned>(iters_), opt_.plan.warmup,
          opt_.plan.warmup + opt_.plan.runs};
}

cws_apps::locality_summary bench::measured(const variant& v, kernel k, unsigned per) const {
  const cws_apps::run_map m = map_of(v, k, per);
  return tally_.summarize(v.schedules[cg::index(k)]->name(), m.first + std::uint64_t{m.warmup} * m.per_run,
                          m.first + std::uint64_t{m.runs_total} * m.per_run);
}

// The figures only cws variants have: schedules, spmv's iteration reports,
// locality per kernel, pages moved.
void bench::put_cws_figures(const variant& v, json& e) {
  const cws::runtime& rt = env_.rt();
  const cws::schedule& spmv = *v.schedules[cg::index(kernel::spmv)];
  e["policy"] = v.policy;
  json names = json::object();
  for (std::size_t k = 0; k < cg::kernel_count; ++k)
    names[cg::kernel_name(static_cast<kernel>(k))] = v.schedules[k]->name();
  e["schedules"] = names;
  e["init_policy"] = std::string(v.schedules[cg::index(kernel::init)]->policy_name());
  e["follows"] = v.schedules[cg::index(kernel::dot)]->follows();

  const std::vector<cws_apps::iteration_line>& spmv_lines = v.runner->lines();
  cws_apps::put_locality(e, measured(v, kernel::spmv, cg::cg_steps),
                         "local_share");  // the headline: spmv reads the matrix, most bytes
  // Every kernel: local shares of its measured phases, and what the
  // relocalizations after them (evolve's) moved; totals over all kernels.
  json per_kernel = json::object();
  cws_apps::locality_summary all;
  for (const auto& [k, per] : timed_kernels) {
    const cws_apps::locality_summary s = measured(v, k, per);
    per_kernel[cg::kernel_name(k)] = {{"local_share", cws_apps::share_or_null(s)},
                                      {"local_share_last", cws_apps::if_reported(s, s.last_share)},
                                      {"pages_moved", s.pages_moved},
                                      {"relocalization_s", s.relocalization_s}};
    all = cws_apps::merged(all, s);
  }
  const auto init_sum = tally_.summarize(v.schedules[cg::index(kernel::init)]->name(), 0, 1);
  e["kernels_locality"] = per_kernel;
  e["all_local_bytes_share"] = all.touched_bytes ? json(all.byte_share()) : json(nullptr);
  e["init_local_share"] = cws_apps::share_or_null(init_sum);
  e["relocalizations"] = all.relocalizations + init_sum.relocalizations;
  e["pages_moved"] = all.pages_moved + init_sum.pages_moved;
  e["pages_failed"] = all.pages_failed + init_sum.pages_failed;
  e["bytes_moved"] = all.bytes_moved + init_sum.bytes_moved;
  e["relocalization_s"] = all.relocalization_s + init_sum.relocalization_s;
  e["relocalization_s_per_iter"] = all.relocalization_s / (static_cast<double>(opt_.plan.runs) * iters_);
  cws_apps::put_phase_breakdown(e, v.runner->loops().clock(cg::index(kernel::spmv)), "spmv_");
  json timelines = json::object();  // --phase-timeline: the parts of every kernel's phases
  for (std::size_t k = 0; k < cg::kernel_count; ++k)
    if (const cws_apps::timeline_figures& t = v.runner->loops().clock(k).timeline(); t.calls() > 0)
      timelines[cg::kernel_name(static_cast<kernel>(k))] = t.to_json();
  if (!timelines.empty()) e["kernels_phase_timeline"] = std::move(timelines);
  cws_apps::put_summary(e, spmv_lines, v.policy);
  const cg::kernel_log& spmv_log = v.runner->log(kernel::spmv);
  e["spmv_ran_as"] = spmv_log.ran_as.by_token();
  if (v.policy == "evolve") {
    // converged_at: the first spmv phase (0-based over the warm-up and
    // measured runs) whose relws run converged, after which evolve replays
    // with stows; converged: whether it still replays with stows at the end
    // (it goes back to relws when stows runs get markedly slower).
    const auto* state = cws::schedulers::store_of(rt).find(spmv.name());
    e["converged"] = state != nullptr && state->converged;
    e["converged_at"] = spmv_log.converged_at ? json(*spmv_log.converged_at) : json(nullptr);
  }
  if (s_.lines > 0) {
    const unsigned total_runs = opt_.plan.warmup + opt_.plan.runs;
    std::vector<cws_apps::iteration_line> first;
    for (const cws_apps::iteration_line& l : spmv_lines)
      if (l.run == 0 && l.index < s_.lines) first.push_back(l);
    line_blocks_.push_back(
        {fmt::format("{}: schedule \"{}\"{}", v.name, spmv.name(), total_runs > opt_.plan.runs ? " (warm-up run)" : ""),
         std::move(first)});
  }
}

cws_apps::table_text bench::text() const {
  namespace col = cws_apps::columns;
  const std::optional<double> zeta_ref = cg::reference_zeta(cls_, iters_);
  return {fmt::format("cws-cg: NPB CG class {} (na {}, nonzer {}, {} nonzeros), {} outer iterations of 25 CG steps per "
                      "run ({}), row blocks of {} rows ({} blocks), {} runs (+{} warm-up); zeta reference: {}",
                      cls_.name, cls_.na, cls_.nonzer, matrix_.nnz(), iters_,
                      iters_ == cls_.niter ? "niter" : "not niter", s_.block, blocks_, opt_.plan.runs, opt_.plan.warmup,
                      zeta_ref ? fmt::format("{:.13f}", *zeta_ref) : std::string("none (serial zeta only)")),
          cws_apps::npb_columns(3, {cws_apps::ratio_column("vs random", "ratio_vs_cws_random"),
                                    col::milliseconds("spmv ms", "spmv_s_per_iter"),
                                    col::fixed("desig/it", "designated_per_iter", 1),
                                    col::fixed("extra/it", "extra_steals_per_iter", 1),
                                    col::percent("dist %", "mean_distance"),
                                    col::percent("local %", "local_share"),
                                    col::percent("last %", "local_share_last"),
                                    col::percent("all %", "all_local_bytes_share"),
                                    col::as_is("moved", "pages_moved"),
                                    col::milliseconds("reloc ms/it", "relocalization_s_per_iter"),
                                    {"zeta err", "zeta_rel_err", 1e15, 1},  // in units of NPB's 1e-15
                                    col::as_is("ok", "verified")}),
          {"ms/iter: median over runs of the mean time of one outer iteration (conj_grad + normalisation: 104 phases, "
           "each timed as the call the user makes: rt.run, tbb::parallel_for, the OpenMP region); Mop/s: NPB's "
           "operation count over that time; 'vs' columns are time ratios (lower is better);",
           "spmv ms: the 25 sparse products' share of ms/iter; desig/it, extra/it, dist %: per spmv phase (run "
           "reports; random's distance from the recorder's trees): steals as planned, unplanned, distance to the "
           "previous spmv phase;",
           fmt::format("local %: mean share of the spmv phases' declared bytes (matrix rows, q) on pages homed on the "
                       "toucher's node (page homes: {}); last %: the last measured spmv phase; all %: every kernel's "
                       "declared bytes;",
                       env_.rt().page_homes().name()),
           "moved / reloc ms: pages moved and relocalization time per outer iteration (evolve's, after its templates; "
           "inside ms/iter); zeta err: |zeta - NPB| / NPB in units of 1e-15 (tolerance 1e-10); ok: within NPB's "
           "tolerance, bitwise the serial zeta, the same in every run"}};
}

}  // namespace cg_app
