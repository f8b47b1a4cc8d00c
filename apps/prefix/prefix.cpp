// cws-prefix: parallel prefix sum (inclusive scan) of int64 values in place,
// SC14's non-iterative case. A run is three passes over the same blocks, each
// a recursive bisection over the block indices (one block per leaf):
//
//   init    a[i] = initial_value(i): the first touch of the pages
//   reduce  sums[k] = the sum of block k
//           (serial, between the two: offsets = exclusive scan of the sums)
//   scan    block k scanned in place, starting from offsets[k]
//
// The program runs once, so there is no earlier iteration to learn from: the
// only schedule available to the scan passes is the init pass's. SC14 replays
// it with STUWS (schedule follows data: the reduce and scan schedules follow
// the init schedule, cws::schedule::follow), so every block is summed and
// scanned by the worker that first touched its pages. The leaves write their
// worker into an audit (pass_log.hpp), so the app checks that itself; a pass
// whose recursion differs from init's (--mismatch-grain) diverges from the
// template and is reported, never counted as a replay.
//
// Variants: serial (std::inclusive_scan), cws under each policy of
// --policies (random; stows, stuws, relws with the passes following init;
// evolve: the reduce schedule evolves and moves the pages, the scan replays
// it under stuws; user: block k on worker floor(k P / blocks) in every pass),
// tbb-auto, tbb-affinity (one affinity_partitioner per pass, kept across
// runs), tbb-static, omp-static. Every variant's result must equal
// std::inclusive_scan's exactly.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/bench_env.hpp"
#include "common/block_loops.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"
#include "prefix/pass_log.hpp"
#include "prefix/scan_kernels.hpp"

namespace {

using prefix::pass_id;

struct variant {
  std::string name;
  cws_apps::loop_flavour loop;
  std::string policy{};              // cws variants only
  cws::schedule* schedules[3] = {};  // cws variants only: init, reduce, scan
  bool follows_init = false;         // reduce and scan replay init's template
  // What persists across the runs, from the variant's set-up to its report:
  std::unique_ptr<cws_apps::block_loops> init_loop{}, scan_loops{};  // scan_loops: phase 0 reduce, 1 scan
  std::optional<cws::numa::array<std::int64_t>> data{};
  std::vector<std::int64_t> sums{}, offsets{};
  prefix::block_audit audit{};
  std::vector<prefix::pass_entry> passes{};
  unsigned runs_done = 0;
};

prefix::blocking blocking_of(variant& v, std::size_t n, std::size_t block) { return {v.data->data(), n, block}; }

// Runs pass p of variant v once over all blocks; returns the seconds that
// count (block_loops::run: the wall clock around the call). The cws leaves
// declare the block range they touch and note their worker in the audit.
double run_pass(variant& v, pass_id p, std::size_t n, std::size_t block) {
  const prefix::blocking b = blocking_of(v, n, block);
  const bool cws_leaf = v.init_loop->runs_cws_phases();
  prefix::block_audit* const audit = &v.audit;
  const auto declare = [=](std::size_t bl, std::size_t bh) {
    if (!cws_leaf || bl >= bh) return;
    cws::touch(b.a + b.begin_of(bl), (b.end_of(bh - 1) - b.begin_of(bl)) * sizeof(std::int64_t));
    audit->note(p, bl, bh, cws::this_worker());
  };
  switch (p) {
    case prefix::init_pass:
      return v.init_loop->run(0, [=](std::size_t bl, std::size_t bh) {
        declare(bl, bh);
        prefix::init_blocks(b, bl, bh);
      });
    case prefix::reduce_pass: {
      const std::span<std::int64_t> sums(v.sums);
      return v.scan_loops->run(0, [=](std::size_t bl, std::size_t bh) {
        declare(bl, bh);
        prefix::sum_blocks(b, bl, bh, sums);
      });
    }
    case prefix::scan_pass: {
      const std::span<const std::int64_t> offsets(v.offsets);
      return v.scan_loops->run(1, [=](std::size_t bl, std::size_t bh) {
        declare(bl, bh);
        prefix::scan_blocks(b, bl, bh, offsets);
      });
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Parallel prefix sum (SC14): init, reduce and scan passes over blocks; cws vs TBB vs OpenMP static",
               "cws-prefix"};
  cws_apps::common_options opt;
  std::size_t n = std::size_t{1} << 25;  // SC14: 256 MB
  std::size_t block = 0;
  std::size_t mismatch_grain = 1;
  bool follow_init = true;
  std::string evolve_init = "random";
  app.add_option("--size", n, "Elements (int64) to scan")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 34))
      ->capture_default_str();
  app.add_option("--block", block,
                 "Elements per block, one block per leaf (0: size / 512 rounded up to whole 4 KiB pages, SC14's 512 "
                 "blocks)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 34))
      ->capture_default_str();
  app.add_option("--mismatch-grain", mismatch_grain,
                 "Blocks per leaf of the cws reduce and scan passes (1: init's recursion; more: a different "
                 "recursion, whose replay of init's template diverges and is reported)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 34))
      ->capture_default_str();
  app.add_flag("--follow-init,!--no-follow-init", follow_init,
               "Under stows, stuws and relws the reduce and scan passes replay the init pass's template (schedule "
               "follows data, SC14's recipe with stuws); off: each pass has its own template")
      ->capture_default_str();
  app.add_option("--evolve-init", evolve_init,
                 "Policy of the init schedule of the cws-evolve variant (its reduce schedule evolves and moves the "
                 "pages; its scan replays the reduce's template under stuws)")
      ->capture_default_str();
  cws_apps::add_common_options(app, opt);
  const cws_apps::policies_option policies_opt(app, opt, {"random", "stows", "stuws", "relws", "evolve", "user"},
                                               "Comma-separated cws policies, one cws variant each");
  cws_apps::add_order_option(app, opt,
                             "interleaved: one array of --size int64 per variant (11 variants with the default "
                             "policies: 2.75 GiB at the default size); sequential: two (serial's, kept as the "
                             "reference, and one other variant's)");
  app.get_option("--iters")->description("Ignored: a run is one init and one prefix sum (the program runs once)");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const std::vector<std::string> policies = policies_opt.chosen();
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();
    cws_apps::locality_tally tally(rt);
    constexpr std::size_t page_elems = 4096 / sizeof(std::int64_t);
    if (block == 0) block = std::max<std::size_t>(1, ((n + 511) / 512 + page_elems - 1) / page_elems) * page_elems;
    const std::size_t blocks = (n + block - 1) / block;

    // All schedules are created before anything runs, so an unknown policy fails at once (exit 2).
    using cws_apps::loop_flavour;
    std::vector<variant> variants;
    variants.push_back({.name = "serial", .loop = loop_flavour::serial});
    for (const std::string& p : policies) {
      variant v{.name = "cws-" + p,
                .loop = p == cws::policy::user ? loop_flavour::cws_owned : loop_flavour::cws,
                .policy = p};
      const bool evolve = p == cws::policy::evolve;
      v.schedules[prefix::init_pass] = &rt.schedule("prefix-init/" + p, evolve ? evolve_init : p);
      v.schedules[prefix::reduce_pass] = &rt.schedule("prefix-reduce/" + p, p);
      // evolve: one schedule learns (the reduce, which moves the pages to its
      // tree), the scan replays it; two evolving schedules over the same pages
      // would each move them to their own tree.
      v.schedules[prefix::scan_pass] = &rt.schedule("prefix-scan/" + p, evolve ? std::string(cws::policy::stuws) : p);
      if (evolve) {
        v.schedules[prefix::scan_pass]->follow(v.schedules[prefix::reduce_pass]->name());
      } else if (follow_init && cws_apps::replays(p)) {
        v.follows_init = true;
        for (pass_id f : {prefix::reduce_pass, prefix::scan_pass})
          v.schedules[f]->follow(v.schedules[prefix::init_pass]->name());
      }
      variants.push_back(std::move(v));
    }
    for (auto [name, flavour] : {std::pair{"tbb-auto", loop_flavour::tbb_auto},
                                 {"tbb-affinity", loop_flavour::tbb_affinity},
                                 {"tbb-static", loop_flavour::tbb_static},
                                 {"omp-static", loop_flavour::omp_static}})
      variants.push_back({.name = name, .loop = flavour});
    for (variant& v : variants) {
      const bool cws_flavour = cws_apps::runs_cws_phases(v.loop);
      v.init_loop =
          std::make_unique<cws_apps::block_loops>(env, v.loop, blocks, 1, std::vector{v.schedules[prefix::init_pass]});
      v.scan_loops = std::make_unique<cws_apps::block_loops>(
          env, v.loop, blocks, cws_flavour ? mismatch_grain : 1,
          std::vector{v.schedules[prefix::reduce_pass], v.schedules[prefix::scan_pass]});
    }

    const double bytes = static_cast<double>(n * sizeof(std::int64_t));
    cws_apps::report out("prefix", env,
                         {{"size", n},
                          {"block", block},
                          {"blocks", blocks},
                          {"mismatch_grain", mismatch_grain},
                          {"runs", opt.plan.runs},
                          {"warmup", opt.plan.warmup},
                          {"order", cws_apps::to_string(opt.plan.order)},
                          {"policies", policies},
                          {"follow_init", follow_init},
                          {"evolve_init", evolve_init},
                          {"scan", "inclusive"},
                          {"element", "int64"},
                          {"bytes_per_prefix", 3 * bytes},
                          {"page_homes", rt.page_homes().name()}});

    std::vector<std::string> wrong, notes;
    const std::int64_t* expected = nullptr;  // the serial variant's result, std::inclusive_scan's
    const auto log_pass = [&](variant& v, pass_id p, std::optional<unsigned> run, bool measured) {
      v.passes.push_back(prefix::entry_of(*v.schedules[p], p, v.audit, tally, run, measured));
    };
    // The variant's array, first touched by its own init pass, untimed: its
    // workers are the blocks' first touchers (the audit's reference).
    const auto prepare = [&](variant& v) {
      v.data.emplace(cws::numa::allocate<std::int64_t>(std::max<std::size_t>(n, 1), cws::numa::first_touch));
      v.sums.assign(blocks, 0);
      v.offsets.assign(blocks, 0);
      v.audit.resize(blocks);
      run_pass(v, prefix::init_pass, n, block);
      if (!v.init_loop->runs_cws_phases()) return;
      v.audit.keep_first_touch();
      log_pass(v, prefix::init_pass, std::nullopt, false);
    };
    // One run: the init pass, then the prefix sum (reduce, offsets, scan),
    // timed as one call sequence: the wall clock around all of it.
    const auto one_run = [&](variant& v, cws_apps::phase_timer& t) {
      v.init_loop->begin_run(t);
      v.scan_loops->begin_run(t);
      const bool cws_flavour = v.init_loop->runs_cws_phases();
      const unsigned run = v.runs_done++;
      t.time_reported("init", 1, [&] { return run_pass(v, prefix::init_pass, n, block); });
      if (cws_flavour) log_pass(v, prefix::init_pass, run, t.recording());
      double reduce_s = 0, scan_s = 0;
      t.time("prefix", [&] {
        if (v.loop == loop_flavour::serial) {
          std::inclusive_scan(v.data->data(), v.data->data() + n, v.data->data());
          return;
        }
        reduce_s = run_pass(v, prefix::reduce_pass, n, block);
        prefix::exclusive_offsets(v.sums, v.offsets);
        scan_s = run_pass(v, prefix::scan_pass, n, block);
      });
      t.time_reported("reduce", 1, [&] { return reduce_s; });
      t.time_reported("scan", 1, [&] { return scan_s; });
      if (cws_flavour) {
        log_pass(v, prefix::reduce_pass, run, t.recording());
        log_pass(v, prefix::scan_pass, run, t.recording());
      }
    };
    const auto report_cws = [&](variant& v, cws_apps::json& e) {
      e["policy"] = v.policy;
      e["schedules"] = {{"init", v.schedules[prefix::init_pass]->name()},
                        {"reduce", v.schedules[prefix::reduce_pass]->name()},
                        {"scan", v.schedules[prefix::scan_pass]->name()}};
      e["init_policy"] = std::string(v.schedules[prefix::init_pass]->policy_name());
      e["scan_policy"] = std::string(v.schedules[prefix::scan_pass]->policy_name());
      e["reduce_follows"] = v.schedules[prefix::reduce_pass]->follows();
      e["scan_follows"] = v.schedules[prefix::scan_pass]->follows();
      prefix::put_summary(e, v.passes);
      // Locality of the measured runs' passes (this variant's schedules only).
      const auto measured = [&](pass_id p) {
        const std::uint64_t end = v.schedules[p]->iterations();
        return tally.summarize(v.schedules[p]->name(), end - opt.plan.runs, end);
      };
      const auto reduce_sum = measured(prefix::reduce_pass);
      const auto scan_sum = measured(prefix::scan_pass);
      const auto init_sum = measured(prefix::init_pass);
      cws_apps::put_locality(e, scan_sum, "local_share");
      cws_apps::put_locality(e, reduce_sum, "reduce_local_share");
      e["init_local_share"] = init_sum.reported ? cws_apps::json(init_sum.mean_share) : cws_apps::json(nullptr);
      e["relocalizations"] = reduce_sum.relocalizations + scan_sum.relocalizations + init_sum.relocalizations;
      e["pages_moved"] = reduce_sum.pages_moved + scan_sum.pages_moved + init_sum.pages_moved;
      e["relocalization_s"] = reduce_sum.relocalization_s + scan_sum.relocalization_s + init_sum.relocalization_s;
      cws_apps::put_phase_breakdown(e, v.scan_loops->clock(0), "reduce_");
      cws_apps::put_phase_breakdown(e, v.scan_loops->clock(1), "scan_");
      e["first_touch_workers"] = v.audit.toucher_count();
      if (v.follows_init && v.policy != cws::policy::relws) {
        const bool trusted = prefix::follow_trusted(v.passes);
        e["follow_trusted"] = trusted;
        if (!trusted)
          notes.push_back(fmt::format(
              "{}: the reduce/scan passes follow '{}', but {} measured pass(es) diverged from its template and {} "
              "replayed it with blocks away from their first toucher: not a replay of init's schedule",
              v.name, v.schedules[prefix::init_pass]->name(),
              e["reduce_diverged"].get<std::size_t>() + e["scan_diverged"].get<std::size_t>(),
              e["undetected_mismatches"].get<std::size_t>()));
      }
      e["passes"] = prefix::entries_json(v.passes);
    };
    const auto finish = [&](variant& v, const cws_apps::phase_timer& timer) {
      cws_apps::json& e = out.add(v.name);
      cws_apps::put_timing(e, timer["prefix"]);  // median_s / min_s: reduce + offsets + scan
      cws_apps::put_timing(e, timer["init"], "init_");
      if (v.loop != loop_flavour::serial) {
        cws_apps::put_timing(e, timer["reduce"], "reduce_");
        cws_apps::put_timing(e, timer["scan"], "scan_");
      }
      e["gbps"] = 3 * bytes / timer["prefix"].median() / 1e9;
      // The serial variant (the first) scanned with std::inclusive_scan: its
      // array is the reference, kept to the end; the others are released.
      const std::int64_t* got = v.data->data();
      bool ok = true;
      if (expected == nullptr) {
        expected = got;
      } else {
        const auto diff = std::mismatch(expected, expected + n, got);
        ok = diff.first == expected + n;
        if (!ok) {
          const std::size_t first = static_cast<std::size_t>(diff.first - expected);
          const std::size_t count = static_cast<std::size_t>(std::inner_product(
              expected + first, expected + n, got + first, std::size_t{0}, std::plus<>(), std::not_equal_to<>()));
          wrong.push_back(
              fmt::format("{}: {} element(s) differ from std::inclusive_scan, first at {} ({} instead of {})", v.name,
                          count, first, got[first], expected[first]));
        }
      }
      e["verified"] = ok;
      if (v.init_loop->runs_cws_phases()) report_cws(v, e);
      if (v.loop != loop_flavour::serial) v.data.reset();
    };
    cws_apps::measure_variants(variants, opt.plan, prepare, one_run, finish);
    out.add_ratio("ratio_vs_omp_static", "median_s", "omp-static");
    out.add_ratio("ratio_vs_serial", "median_s", "serial");

    env.save_trace();
    std::vector<std::string> all_notes = {
        "prefix ms: median over runs of the wall clock around the prefix sum (reduce pass, serial scan of the "
        "block sums, scan pass; rt.run, tbb::parallel_for, the OpenMP region); init: the init pass;",
        "GB/s counts the array read by the reduce and read + written by the scan; 'vs omp' is a time ratio (lower "
        "is better);",
        "on toucher %: share of the measured reduce / scan leaves that ran on the worker that first touched their "
        "block (the app's audit); div: diverged passes over all runs;",
        fmt::format("local %: mean over the measured scan passes of the share of declared bytes on a page homed on "
                    "the toucher's node (page homes: {}); moved: pages moved by relocalizations (evolve)",
                    rt.page_homes().name())};
    all_notes.insert(all_notes.end(), notes.begin(), notes.end());
    out.print(opt.json,
              fmt::format("cws-prefix: inclusive scan of {} int64 ({:.0f} MiB) in place, blocks of {} ({} blocks), "
                          "{} runs (+{} warm-up){}",
                          n, bytes / (1 << 20), block, blocks, opt.plan.runs, opt.plan.warmup,
                          mismatch_grain > 1 ? fmt::format(", reduce/scan leaves of {} blocks", mismatch_grain) : ""),
              {{"variant", "variant"},
               {"prefix ms", "median_s", 1e3, 3},
               {"min ms", "min_s", 1e3, 3},
               {"init ms", "init_median_s", 1e3, 3},
               {"reduce ms", "reduce_median_s", 1e3, 3},
               {"scan ms", "scan_median_s", 1e3, 3},
               {"GB/s", "gbps", 1, 2},
               {"vs omp", "ratio_vs_omp_static", 1, 2},
               {"scan ran as", "scan_ran_as"},
               {"div", "diverged_passes"},
               {"reduce on toucher %", "reduce_on_toucher", 100, 1},
               {"scan on toucher %", "scan_on_toucher", 100, 1},
               {"local %", "local_share", 100, 1},
               {"last %", "local_share_last", 100, 1},
               {"moved", "pages_moved"},
               {"ok", "verified"}},
              all_notes);
    if (!wrong.empty()) {
      for (const std::string& w : wrong) cws_apps::report_error(app.get_name(), w.c_str(), 1);
      return 1;
    }
    return 0;
  });
}
