// cws-cg: the NAS CG benchmark (NPB 3.x), SC14's iterative application with
// *differing* structure. NPB's matrix (makea, serial, from its random
// stream) is copied into every variant's own arrays by an untimed init
// phase; then a run is NPB's timed loop: from x = 1, `--iters` outer
// iterations (default: the class's niter), each one conj_grad of 25 CG
// steps plus zeta = shift + 1 / (x . z) and x = z / |z|. Every loop of it
// is one parallel phase over fixed row blocks (cg/solver.hpp: 104 phases
// per outer iteration), and the dot products are deterministic block
// reductions, so zeta is bitwise the same for every variant.
//
// Variants: cws under each policy of --policies, each kernel (spmv, dot,
// update, direction, start, residual, norms, normalize) in its own schedule
// "cg-<kernel>/<variant>"; with evolve (SC14's CG recipe: random first,
// relws until the tree converges, then stows) also cws-evolve-follow, whose
// vector kernels replay the spmv schedule's template (schedule::follow: all
// loops split the same row blocks the same way); tbb-auto, tbb-affinity,
// tbb-static, omp-static and serial. Every variant's zeta must match NPB's
// official value within NPB's tolerance and equal the serial zeta exactly.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cg/classes.hpp"
#include "cg/makea.hpp"
#include "cg/runner.hpp"
#include "cg/solver.hpp"
#include "common/bench_env.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"
#include "common/iteration_lines.hpp"

namespace {

using cg::kernel;

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

struct variant {
  std::string name;
  cws_apps::loop_flavour loop;
  std::string policy{};  // cws variants only
  std::array<cws::schedule*, cg::kernel_count> schedules{};
  // What persists from the variant's set-up to its report:
  std::unique_ptr<cg::loops_runner> runner{};
  std::unique_ptr<cg::workspace> w{};
  std::vector<double> zetas{};                                    // final zeta of every run, warm-up included
  double rnorm = 0;                                               // of the last run's last iteration
  std::array<double, cg::kernel_count> kernel_s{};                // measured runs: seconds per kernel, summed
  std::array<std::uint64_t, cg::kernel_count> first_iteration{};  // schedules' iteration count after init
};

bool is_follower(kernel k) { return k != kernel::init && k != kernel::spmv; }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"NAS CG (NPB 3.x, SC14): cws under each policy vs TBB vs OpenMP static", "cws-cg"};
  cws_apps::common_options opt;
  opt.iters = 0;  // the class's niter
  std::string class_name = "W";
  std::size_t block = 0;
  std::string init = "serial";
  std::string evolve_init = "random";
  bool follow_spmv = false;
  unsigned lines = 0;
  app.add_option("--class", class_name, "NPB problem class: S, W, A, B or C")
      ->check(CLI::IsMember({"S", "W", "A", "B", "C"}))
      ->capture_default_str();
  app.add_option("--block", block,
                 "Rows per row block, the leaf of every loop (0: by class, S 32, W and A 128, B and C 1024; the same "
                 "for every worker count, so that zeta is bitwise the same on any number of workers)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 24))
      ->capture_default_str();
  app.add_option("--init", init,
                 "How the untimed init phase copies the matrix into a variant's arrays (their first touch): serial "
                 "(one task on worker 0, as NPB's serial makea: every page starts on one node) or blocks (a loop "
                 "over the row blocks under the variant's init policy)")
      ->check(CLI::IsMember({"serial", "blocks"}))
      ->capture_default_str();
  app.add_flag("--follow-spmv", follow_spmv,
               "Under replaying policies, every vector kernel replays the spmv schedule's template (schedule::follow) "
               "instead of its own; without it, evolve gets an extra variant cws-evolve-follow that does");
  app.add_option("--evolve-init", evolve_init,
                 "Policy of the init schedule of the evolve variants (random: it never moves pages; evolve: it "
                 "relocalizes them to init's own tree)")
      ->capture_default_str();
  app.add_option("--iteration-lines", lines,
                 "Print the first N spmv phases of the first run of each cws variant (what they ran as, steals, "
                 "locality, pages moved)")
      ->capture_default_str();
  cws_apps::add_common_options(app, opt);
  const cws_apps::policies_option policies_opt(app, opt, {"random", "stows", "stuws", "relws", "evolve", "user"},
                                               "Comma-separated cws policies, one cws variant each");
  cws_apps::add_order_option(app, opt,
                             "interleaved: the matrix and 5 vectors per variant (class W: 6 MiB, A: 23 MiB, B: 168 "
                             "MiB); sequential: those of two variants (serial's is kept)");
  app.get_option("--iters")
      ->description(
          "Outer iterations per run (default: the class's niter, 15 for S, W, A, 75 for B, C); a sample is their "
          "mean; zeta is checked against NPB's official value at niter (and, for S and W, at 1, 2, 5 and 10)")
      ->default_str("niter");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const cg::problem_class cls = *cg::find_class(class_name);
    const int iters = opt.iters == 0 ? cls.niter : static_cast<int>(opt.iters);
    const std::vector<std::string> policies = policies_opt.chosen();
    // The schedule store keeps the iteration reports of the last CWS_HISTORY
    // phases of a schedule (default 64); unless that is set, keep every spmv
    // phase of the runs (up to 4096), so that the summaries cover them all.
    const unsigned spmv_phases = static_cast<unsigned>(cg::cg_steps * iters) * (opt.plan.warmup + opt.plan.runs);
    const bool history_set = std::getenv("CWS_HISTORY") != nullptr;
    cws_apps::bench_env env(opt, [&](cws::runtime_config& cfg) {
      if (!history_set) cfg.history = std::max(cfg.history, std::min(spmv_phases, 4096u));
    });
    cws::runtime& rt = env.rt();
    cws_apps::locality_tally tally(rt);
    if (block == 0) block = default_block_rows(cls.name);
    block = std::min<std::size_t>(block, static_cast<std::size_t>(cls.na));
    const std::size_t blocks = (static_cast<std::size_t>(cls.na) + block - 1) / block;
    const bool serial_init = init == "serial";

    // All schedules are created before anything runs, so an unknown policy fails at once (exit 2).
    std::vector<variant> variants;
    variants.push_back({.name = "serial", .loop = cws_apps::loop_flavour::serial});
    const auto add_cws = [&](const std::string& p, const std::string& suffix, bool follow) {
      using cws_apps::loop_flavour;
      variant v{.name = "cws-" + suffix,
                .loop = p == cws::policy::user ? loop_flavour::cws_owned : loop_flavour::cws,
                .policy = p};
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
        if (p == cws::policy::evolve && kk == kernel::init) policy = evolve_init;
        if (p == cws::policy::evolve && follow && is_follower(kk)) policy = cws::policy::stows;
        v.schedules[k] = &rt.schedule(fmt::format("cg-{}/{}", cg::kernel_name(kk), suffix), policy);
        if (follow && is_follower(kk)) v.schedules[k]->follow(spmv_name);
      }
      variants.push_back(std::move(v));
    };
    for (const std::string& p : policies) {
      const bool follow = follow_spmv && cws_apps::replays(p);
      add_cws(p, p, follow);
      if (p == cws::policy::evolve && !follow_spmv) add_cws(p, p + "-follow", true);
    }
    for (auto [name, flavour] : {std::pair{"tbb-auto", cws_apps::loop_flavour::tbb_auto},
                                 {"tbb-affinity", cws_apps::loop_flavour::tbb_affinity},
                                 {"tbb-static", cws_apps::loop_flavour::tbb_static},
                                 {"omp-static", cws_apps::loop_flavour::omp_static}})
      variants.push_back({.name = name, .loop = flavour});

    const cg::csr_matrix matrix = cg::npb_matrix(cls);  // serial, untimed, shared by the variants' init phases
    for (variant& v : variants) {
      std::vector<cws::schedule*> s;
      if (cws_apps::runs_cws_phases(v.loop)) s.assign(v.schedules.begin(), v.schedules.end());
      v.runner = std::make_unique<cg::loops_runner>(env, v.loop, blocks, std::move(s), serial_init);
    }

    const std::optional<double> zeta_ref = cg::reference_zeta(cls, iters);
    const double ops_per_iter = cg::operations(cls, 1);
    cws_apps::report out("cg", env,
                         {{"class", std::string(1, cls.name)},
                          {"na", cls.na},
                          {"nonzer", cls.nonzer},
                          {"niter", cls.niter},
                          {"iters", iters},
                          {"shift", cls.shift},
                          {"nnz", matrix.nnz()},
                          {"block_rows", block},
                          {"blocks", blocks},
                          {"phases_per_iter", 4 * cg::cg_steps + 4},
                          {"operations_per_iter", ops_per_iter},
                          {"zeta_ref", zeta_ref ? cws_apps::json(*zeta_ref) : cws_apps::json(nullptr)},
                          {"zeta_tolerance", cg::zeta_tolerance},
                          {"runs", opt.plan.runs},
                          {"warmup", opt.plan.warmup},
                          {"order", cws_apps::to_string(opt.plan.order)},
                          {"policies", policies},
                          {"init", init},
                          {"follow_spmv", follow_spmv},
                          {"evolve_init", evolve_init},
                          {"page_homes", rt.page_homes().name()}});

    std::optional<double> serial_zeta;
    std::vector<std::string> wrong;
    struct line_block {
      std::string title;
      std::vector<cws_apps::iteration_line> lines;
    };
    std::vector<line_block> line_blocks;
    const unsigned total_runs = opt.plan.warmup + opt.plan.runs;

    // The variant's arrays, first touched by its init loop, untimed.
    const auto prepare = [&](variant& v) {
      v.w = std::make_unique<cg::workspace>(matrix, block, cws::numa::first_touch);
      v.w->initialize(*v.runner);
      for (std::size_t k = 0; k < cg::kernel_count; ++k)
        if (v.schedules[k] != nullptr) v.first_iteration[k] = v.schedules[k]->iterations();
    };
    const auto one_run = [&](variant& v, cws_apps::phase_timer& t) {
      v.runner->loops().begin_run(t);
      v.runner->set_measuring(t.recording());
      v.w->reset();
      cg::iteration_result last;
      auto* breakdown = t.recording() ? &v.kernel_s : nullptr;
      t.time_reported("iteration", static_cast<unsigned>(iters), [&] {
        return cws_apps::seconds_of([&] { last = v.w->iterate(*v.runner, cls.shift, breakdown); });
      });
      v.zetas.push_back(last.zeta);
      v.rnorm = last.rnorm;
    };
    // The run map of kernel k's schedule: `per` phases per outer iteration.
    const auto map_of = [&](const variant& v, kernel k, unsigned per) {
      return cws_apps::run_map{v.first_iteration[cg::index(k)], per * static_cast<unsigned>(iters), opt.plan.warmup,
                           total_runs};
    };
    const auto measured = [&](const variant& v, kernel k, unsigned per) {
      const cws_apps::run_map m = map_of(v, k, per);
      return tally.summarize(v.schedules[cg::index(k)]->name(), m.first + std::uint64_t{m.warmup} * m.per_run,
                             m.first + std::uint64_t{m.runs_total} * m.per_run);
    };
    // The figures only cws variants have: schedules, spmv's iteration
    // reports, locality per kernel, pages moved.
    const auto report_cws = [&](const variant& v, cws_apps::json& e) {
      const cws::schedule& spmv = *v.schedules[cg::index(kernel::spmv)];
      e["policy"] = v.policy;
      cws_apps::json names = cws_apps::json::object();
      for (std::size_t k = 0; k < cg::kernel_count; ++k)
        names[cg::kernel_name(static_cast<kernel>(k))] = v.schedules[k]->name();
      e["schedules"] = names;
      e["init_policy"] = std::string(v.schedules[cg::index(kernel::init)]->policy_name());
      e["follows"] = v.schedules[cg::index(kernel::dot)]->follows();

      auto spmv_lines = cws_apps::lines_of(rt, spmv.name(), map_of(v, kernel::spmv, cg::cg_steps));
      cws_apps::add_locality(spmv_lines, tally, spmv.name());
      const auto spmv_sum = measured(v, kernel::spmv, cg::cg_steps);
      cws_apps::put_locality(e, spmv_sum, "local_share");  // the headline: spmv reads the matrix, most bytes
      // Every kernel: local shares of its measured phases, and what the
      // relocalizations after them (evolve's) moved; totals over all kernels.
      cws_apps::json per_kernel = cws_apps::json::object();
      std::uint64_t touched = 0, local = 0, moved = 0, failed = 0, bytes = 0;
      std::size_t relocs = 0;
      double reloc_s = 0;
      for (const auto& [k, per] : timed_kernels) {
        const auto s = measured(v, k, per);
        per_kernel[cg::kernel_name(k)] = {
            {"local_share", s.reported ? cws_apps::json(s.mean_share) : cws_apps::json(nullptr)},
            {"local_share_last", s.reported ? cws_apps::json(s.last_share) : cws_apps::json(nullptr)},
            {"pages_moved", s.pages_moved},
            {"relocalization_s", s.relocalization_s}};
        touched += s.touched_bytes;
        local += s.local_bytes;
        moved += s.pages_moved;
        failed += s.pages_failed;
        bytes += s.bytes_moved;
        relocs += s.relocalizations;
        reloc_s += s.relocalization_s;
      }
      const auto init_sum = tally.summarize(v.schedules[cg::index(kernel::init)]->name(), 0, 1);
      e["kernels_locality"] = per_kernel;
      e["all_local_bytes_share"] =
          touched ? cws_apps::json(static_cast<double>(local) / static_cast<double>(touched)) : cws_apps::json(nullptr);
      e["init_local_share"] = init_sum.reported ? cws_apps::json(init_sum.mean_share) : cws_apps::json(nullptr);
      e["relocalizations"] = relocs + init_sum.relocalizations;
      e["pages_moved"] = moved + init_sum.pages_moved;
      e["pages_failed"] = failed + init_sum.pages_failed;
      e["bytes_moved"] = bytes + init_sum.bytes_moved;
      e["relocalization_s"] = reloc_s + init_sum.relocalization_s;
      e["relocalization_s_per_iter"] = reloc_s / (static_cast<double>(opt.plan.runs) * iters);
      cws_apps::put_phase_breakdown(e, v.runner->loops().clock(cg::index(kernel::spmv)), "spmv_");
      cws_apps::put_summary(e, spmv_lines, v.policy);
      const cg::kernel_log& spmv_log = v.runner->log(kernel::spmv);
      e["spmv_ran_as"] = spmv_log.ran_as;
      if (v.policy == "evolve") {
        // converged_at: the first spmv phase (0-based over the warm-up and
        // measured runs) whose relws run converged, after which evolve
        // replays with stows; converged:
        // whether it still replays with stows at the end (it goes back to
        // relws when stows runs get markedly slower).
        const auto* s = cws::schedulers::store_of(rt).find(spmv.name());
        e["converged"] = s != nullptr && s->converged;
        e["converged_at"] = spmv_log.converged_at ? cws_apps::json(*spmv_log.converged_at) : cws_apps::json(nullptr);
      }
      if (lines > 0) {
        std::vector<cws_apps::iteration_line> first;
        for (const cws_apps::iteration_line& l : spmv_lines)
          if (l.run == 0 && l.index < lines) first.push_back(l);
        line_blocks.push_back({fmt::format("{}: schedule \"{}\"{}", v.name, spmv.name(),
                                           total_runs > opt.plan.runs ? " (warm-up run)" : ""),
                               std::move(first)});
      }
    };
    // After the variant's last run: its report and its verification (serial
    // is the first variant, so its zeta is known before any other's finish).
    const auto finish = [&](variant& v, const cws_apps::phase_timer& timer) {
      cws_apps::json& e = out.add(v.name);
      cws_apps::put_timing(e, timer["iteration"]);  // median_s / min_s: one outer iteration
      const double per_iter = timer["iteration"].median();
      e["mops"] = per_iter > 0 ? ops_per_iter / per_iter / 1e6 : 0.0;
      cws_apps::json breakdown = cws_apps::json::object();
      const double measured_iters = static_cast<double>(opt.plan.runs) * iters;
      for (const auto& [k, per] : timed_kernels)
        breakdown[cg::kernel_name(k)] = v.kernel_s[cg::index(k)] / measured_iters;
      e["kernel_s_per_iter"] = breakdown;
      e["spmv_s_per_iter"] = v.kernel_s[cg::index(kernel::spmv)] / measured_iters;

      const double zeta = v.zetas.back();
      const bool same_every_run =
          std::all_of(v.zetas.begin(), v.zetas.end(), [&](double z) { return z == v.zetas.front(); });
      if (!serial_zeta) serial_zeta = zeta;
      const bool matches_ref = !zeta_ref || cg::zeta_matches(zeta, *zeta_ref);
      const bool equals_serial = zeta == *serial_zeta;
      e["zeta"] = zeta;
      e["zeta_rel_err"] = zeta_ref ? cws_apps::json(std::abs(zeta - *zeta_ref) / *zeta_ref) : cws_apps::json(nullptr);
      e["zeta_equals_serial"] = equals_serial;
      e["zeta_same_every_run"] = same_every_run;
      e["rnorm"] = v.rnorm;
      const bool ok = matches_ref && equals_serial && same_every_run;
      e["verified"] = ok;
      if (!matches_ref)
        wrong.push_back(fmt::format("{}: zeta {:.13f} differs from NPB's {:.13f} by {:.2e} (tolerance {:.0e})", v.name,
                                    zeta, *zeta_ref, std::abs(zeta - *zeta_ref) / *zeta_ref, cg::zeta_tolerance));
      if (!equals_serial)
        wrong.push_back(fmt::format("{}: zeta {:.17g} is not bitwise the serial {:.17g}", v.name, zeta, *serial_zeta));
      if (!same_every_run) wrong.push_back(fmt::format("{}: zeta changed from one run to the next", v.name));
      if (v.runner->declares_touches()) report_cws(v, e);
      v.w.reset();
    };
    cws_apps::measure_variants(variants, opt.plan, prepare, one_run, finish);
    out.add_ratio("ratio_vs_omp_static", "median_s", "omp-static");
    out.add_ratio("ratio_vs_cws_random", "median_s", "cws-random");
    out.add_ratio("ratio_vs_serial", "median_s", "serial");

    env.save_trace();
    if (!opt.json) {
      for (const line_block& b : line_blocks) {
        cws_apps::print_run(b.title, b.lines, 0);
        fmt::print("\n");
      }
    }
    out.print(
        opt.json,
        fmt::format("cws-cg: NPB CG class {} (na {}, nonzer {}, {} nonzeros), {} outer iterations of 25 CG steps per "
                    "run ({}), row blocks of {} rows ({} blocks), {} runs (+{} warm-up); zeta reference: {}",
                    cls.name, cls.na, cls.nonzer, matrix.nnz(), iters, iters == cls.niter ? "niter" : "not niter",
                    block, blocks, opt.plan.runs, opt.plan.warmup,
                    zeta_ref ? fmt::format("{:.13f}", *zeta_ref) : std::string("none (serial zeta only)")),
        {{"variant", "variant"},
         {"ms/iter", "median_s", 1e3, 3},
         {"min ms", "min_s", 1e3, 3},
         {"Mop/s", "mops", 1, 0},
         {"vs omp", "ratio_vs_omp_static", 1, 2},
         {"vs random", "ratio_vs_cws_random", 1, 2},
         {"spmv ms", "spmv_s_per_iter", 1e3, 3},
         {"desig/it", "designated_per_iter", 1, 1},
         {"extra/it", "extra_steals_per_iter", 1, 1},
         {"dist %", "mean_distance", 100, 1},
         {"local %", "local_share", 100, 1},
         {"last %", "local_share_last", 100, 1},
         {"all %", "all_local_bytes_share", 100, 1},
         {"moved", "pages_moved"},
         {"reloc ms/it", "relocalization_s_per_iter", 1e3, 3},
         {"zeta err", "zeta_rel_err", 1e15, 1},
         {"ok", "verified"}},
        {"ms/iter: median over runs of the mean time of one outer iteration (conj_grad + normalisation: 104 phases, "
         "each timed as the call the user makes: rt.run, tbb::parallel_for, the OpenMP region); Mop/s: NPB's "
         "operation count over that time; 'vs' columns are time ratios (lower is better);",
         "spmv ms: the 25 sparse products' share of ms/iter; desig/it, extra/it, dist %: per spmv phase (schedule "
         "store; recorder for random): steals as planned, unplanned, distance to the previous spmv phase;",
         fmt::format("local %: mean share of the spmv phases' declared bytes (matrix rows, q) on pages homed on the "
                     "toucher's node (page homes: {}); last %: the last measured spmv phase; all %: every kernel's "
                     "declared bytes;",
                     rt.page_homes().name()),
         "moved / reloc ms: pages moved and relocalization time per outer iteration (evolve's, after its templates; "
         "inside ms/iter); zeta err: |zeta - NPB| / NPB in units of 1e-15 (tolerance 1e-10); ok: within NPB's "
         "tolerance, bitwise the serial zeta, the same in every run"});
    if (!wrong.empty()) {
      for (const std::string& w : wrong) cws_apps::report_error(app.get_name(), w.c_str(), 1);
      return 1;
    }
    return 0;
  });
}
