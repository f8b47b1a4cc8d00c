#include "prefix/scan_suite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <span>
#include <utility>

#include "common/loop_suite.hpp"
#include "common/table_columns.hpp"
#include "prefix/scan_kernels.hpp"

namespace prefix {

using cws_apps::json;
using cws_apps::loop_flavour;
namespace col = cws_apps::columns;

scan_suite::scan_suite(cws_apps::bench_env& env, options& o, const std::vector<std::string>& policies)
    : env_(env), opt_(o), policies_(policies), tally_(env.rt()) {
  constexpr std::size_t page_elems = 4096 / sizeof(std::int64_t);
  if (o.block == 0) o.block = std::max<std::size_t>(1, ((o.n + 511) / 512 + page_elems - 1) / page_elems) * page_elems;
  blocks_ = (o.n + o.block - 1) / o.block;
  bytes_ = static_cast<double>(o.n * sizeof(std::int64_t));

  cws::runtime& rt = env.rt();
  variants_.push_back({.name = "serial", .loop = loop_flavour::serial});
  for (const std::string& p : policies_) {
    variant v{.name = "cws-" + p, .loop = cws_apps::cws_flavour_of(p), .policy = p};
    const bool evolve = p == cws::policy::evolve;
    v.schedules[init_pass] = &rt.schedule("prefix-init/" + p, evolve ? o.evolve_init : p);
    v.schedules[reduce_pass] = &rt.schedule("prefix-reduce/" + p, p);
    // evolve: one schedule learns (the reduce, which moves the pages to its
    // tree), the scan replays it; two evolving schedules over the same pages
    // would each move them to their own tree.
    v.schedules[scan_pass] = &rt.schedule("prefix-scan/" + p, evolve ? std::string(cws::policy::stuws) : p);
    if (evolve) {
      v.schedules[scan_pass]->follow(v.schedules[reduce_pass]->name());
    } else if (o.follow_init && cws_apps::replays(p)) {
      v.follows_init = true;
      for (pass_id f : {reduce_pass, scan_pass}) v.schedules[f]->follow(v.schedules[init_pass]->name());
    }
    variants_.push_back(std::move(v));
  }
  for (const auto& [name, flavour] : cws_apps::standard_baselines())
    variants_.push_back({.name = name, .loop = flavour});
  for (variant& v : variants_) {
    v.init_loop = std::make_unique<cws_apps::block_loops>(env, v.loop, blocks_, 1, std::vector{v.schedules[init_pass]});
    v.scan_loops = std::make_unique<cws_apps::block_loops>(
        env, v.loop, blocks_, cws_apps::runs_cws_phases(v.loop) ? o.mismatch_grain : 1,
        std::vector{v.schedules[reduce_pass], v.schedules[scan_pass]});
  }
}

json scan_suite::params() const {
  json p = {{"size", opt_.n}, {"block", opt_.block}, {"blocks", blocks_}, {"mismatch_grain", opt_.mismatch_grain}};
  p.update(cws_apps::plan_params(opt_.common.plan));
  p.update({{"policies", policies_}, {"follow_init", opt_.follow_init}, {"evolve_init", opt_.evolve_init}});
  p.update({{"scan", "inclusive"}, {"element", "int64"}, {"bytes_per_prefix", 3 * bytes_}});
  p["page_homes"] = env_.rt().page_homes().name();
  return p;
}

// Runs pass p of variant v once over all blocks; returns the seconds that
// count (block_loops::run: the wall clock around the call). The cws leaves
// declare the block range they touch and note their worker in the audit.
double scan_suite::run_pass(variant& v, pass_id p) {
  const blocking b{v.data->data(), opt_.n, opt_.block};
  const bool cws_leaf = v.runs_cws();
  block_audit* const audit = &v.audit;
  const auto declare = [=](std::size_t bl, std::size_t bh) {
    if (!cws_leaf || bl >= bh) return;
    cws::touch(b.a + b.begin_of(bl), (b.end_of(bh - 1) - b.begin_of(bl)) * sizeof(std::int64_t));
    audit->note(p, bl, bh, cws::this_worker());
  };
  switch (p) {
    case init_pass:
      return v.init_loop->run(0, [=](std::size_t bl, std::size_t bh) {
        declare(bl, bh);
        init_blocks(b, bl, bh);
      });
    case reduce_pass: {
      const std::span<std::int64_t> sums(v.sums);
      return v.scan_loops->run(0, [=](std::size_t bl, std::size_t bh) {
        declare(bl, bh);
        sum_blocks(b, bl, bh, sums);
      });
    }
    case scan_pass: {
      const std::span<const std::int64_t> offsets(v.offsets);
      return v.scan_loops->run(1, [=](std::size_t bl, std::size_t bh) {
        declare(bl, bh);
        scan_blocks(b, bl, bh, offsets);
      });
    }
  }
  return 0;
}

void scan_suite::log_pass(variant& v, pass_id p, std::optional<unsigned> run, bool measured) const {
  v.passes.push_back(entry_of(*v.schedules[p], p, v.audit, tally_, run, measured));
}

void scan_suite::prepare(variant& v) {
  v.data.emplace(cws::numa::allocate<std::int64_t>(std::max<std::size_t>(opt_.n, 1), cws::numa::first_touch));
  v.sums.assign(blocks_, 0);
  v.offsets.assign(blocks_, 0);
  v.audit.resize(blocks_);
  run_pass(v, init_pass);
  if (!v.runs_cws()) return;
  v.audit.keep_first_touch();
  log_pass(v, init_pass, std::nullopt, false);
}

void scan_suite::one_run(variant& v, cws_apps::phase_timer& t) {
  v.init_loop->begin_run(t);
  v.scan_loops->begin_run(t);
  const unsigned run = v.runs_done++;
  t.time_reported("init", 1, [&] { return run_pass(v, init_pass); });
  if (v.runs_cws()) log_pass(v, init_pass, run, t.recording());
  double reduce_s = 0, scan_s = 0;
  t.time("prefix", [&] {
    if (v.loop == loop_flavour::serial) {
      std::inclusive_scan(v.data->data(), v.data->data() + opt_.n, v.data->data());
      return;
    }
    reduce_s = run_pass(v, reduce_pass);
    exclusive_offsets(v.sums, v.offsets);
    scan_s = run_pass(v, scan_pass);
  });
  t.time_reported("reduce", 1, [&] { return reduce_s; });
  t.time_reported("scan", 1, [&] { return scan_s; });
  if (v.runs_cws()) {
    log_pass(v, reduce_pass, run, t.recording());
    log_pass(v, scan_pass, run, t.recording());
  }
}

void scan_suite::put_timings(const variant& v, const cws_apps::phase_timer& t, json& e) const {
  cws_apps::put_timing(e, t["prefix"]);  // median_s / min_s: reduce + offsets + scan
  cws_apps::put_timing(e, t["init"], "init_");
  if (v.loop != loop_flavour::serial) {
    cws_apps::put_timing(e, t["reduce"], "reduce_");
    cws_apps::put_timing(e, t["scan"], "scan_");
  }
  e["gbps"] = 3 * bytes_ / t["prefix"].median() / 1e9;
}

void scan_suite::report_cws(const variant& v, json& e, std::vector<std::string>& notes) const {
  e["policy"] = v.policy;
  e["schedules"] = {{"init", v.schedules[init_pass]->name()},
                    {"reduce", v.schedules[reduce_pass]->name()},
                    {"scan", v.schedules[scan_pass]->name()}};
  e["init_policy"] = std::string(v.schedules[init_pass]->policy_name());
  e["scan_policy"] = std::string(v.schedules[scan_pass]->policy_name());
  e["reduce_follows"] = v.schedules[reduce_pass]->follows();
  e["scan_follows"] = v.schedules[scan_pass]->follows();
  put_summary(e, v.passes);
  // Locality of the measured runs' passes (this variant's schedules only).
  const auto measured = [&](pass_id p) {
    const std::uint64_t end = v.schedules[p]->iterations();
    return tally_.summarize(v.schedules[p]->name(), end - opt_.common.plan.runs, end);
  };
  const auto reduce_sum = measured(reduce_pass);
  const auto scan_sum = measured(scan_pass);
  const auto init_sum = measured(init_pass);
  cws_apps::put_locality(e, scan_sum, "local_share");
  cws_apps::put_locality(e, reduce_sum, "reduce_local_share");
  e["init_local_share"] = cws_apps::share_or_null(init_sum);
  e["relocalizations"] = reduce_sum.relocalizations + scan_sum.relocalizations + init_sum.relocalizations;
  e["pages_moved"] = reduce_sum.pages_moved + scan_sum.pages_moved + init_sum.pages_moved;
  e["relocalization_s"] = reduce_sum.relocalization_s + scan_sum.relocalization_s + init_sum.relocalization_s;
  cws_apps::put_phase_breakdown(e, v.scan_loops->clock(0), "reduce_");
  cws_apps::put_phase_breakdown(e, v.scan_loops->clock(1), "scan_");
  e["first_touch_workers"] = v.audit.toucher_count();
  if (v.follows_init && v.policy != cws::policy::relws) {
    const bool trusted = follow_trusted(v.passes);
    e["follow_trusted"] = trusted;
    if (!trusted)
      notes.push_back(fmt::format(
          "{}: the reduce/scan passes follow '{}', but {} measured pass(es) diverged from its template and {} "
          "replayed it with blocks away from their first toucher: not a replay of init's schedule",
          v.name, v.schedules[init_pass]->name(),
          e["reduce_diverged"].get<std::size_t>() + e["scan_diverged"].get<std::size_t>(),
          e["undetected_mismatches"].get<std::size_t>()));
  }
  e["passes"] = entries_json(v.passes);
}

int scan_suite::conclude(cws_apps::variant_runner& runner) const {
  const cws_apps::run_plan& plan = opt_.common.plan;
  return runner.conclude(
      {{"ratio_vs_omp_static", "median_s", "omp-static"}, {"ratio_vs_serial", "median_s", "serial"}},
      fmt::format("cws-prefix: inclusive scan of {} int64 ({:.0f} MiB) in place, blocks of {} ({} blocks), "
                  "{} runs (+{} warm-up){}",
                  opt_.n, bytes_ / (1 << 20), opt_.block, blocks_, plan.runs, plan.warmup,
                  opt_.mismatch_grain > 1 ? fmt::format(", reduce/scan leaves of {} blocks", opt_.mismatch_grain) : ""),
      {col::as_is("variant", "variant"), col::milliseconds("prefix ms", "median_s"),
       col::milliseconds("min ms", "min_s"), col::milliseconds("init ms", "init_median_s"),
       col::milliseconds("reduce ms", "reduce_median_s"), col::milliseconds("scan ms", "scan_median_s"),
       col::fixed("GB/s", "gbps"), col::fixed("vs omp", "ratio_vs_omp_static"),
       col::as_is("scan ran as", "scan_ran_as"), col::as_is("div", "diverged_passes"),
       col::percent("reduce on toucher %", "reduce_on_toucher"), col::percent("scan on toucher %", "scan_on_toucher"),
       col::percent("local %", "local_share"), col::percent("last %", "local_share_last"),
       col::as_is("moved", "pages_moved"), col::as_is("ok", "verified")},
      {"prefix ms: median over runs of the wall clock around the prefix sum (reduce pass, serial scan of the "
       "block sums, scan pass; rt.run, tbb::parallel_for, the OpenMP region); init: the init pass;",
       "GB/s counts the array read by the reduce and read + written by the scan; 'vs omp' is a time ratio (lower "
       "is better);",
       "on toucher %: share of the measured reduce / scan leaves that ran on the worker that first touched their "
       "block (the app's audit); div: diverged passes over all runs;",
       fmt::format("local %: mean over the measured scan passes of the share of declared bytes on a page homed on "
                   "the toucher's node (page homes: {}); moved: pages moved by relocalizations (evolve)",
                   env_.rt().page_homes().name())});
}

}  // namespace prefix
