// cws-prefix: parallel prefix sum (inclusive scan) of int64 values in place,
// SC14's non-iterative case: an init pass, a reduce pass and a scan pass over
// the same blocks (prefix/scan_suite.hpp: the variants and their passes).
//
// The program runs once, so there is no earlier iteration to learn from: the
// only schedule available to the scan passes is the init pass's. SC14 replays
// it with STUWS (schedule follows data: the reduce and scan schedules follow
// the init schedule, cws::schedule::follow), so every block is summed and
// scanned by the worker that first touched its pages; the leaves' audit
// (pass_log.hpp) checks that. A pass whose recursion differs from init's
// (--mismatch-grain) diverges from the template and is reported, never
// counted as a replay. Every variant's result must equal std::inclusive_scan's
// (the serial variant's, kept to the end) exactly.

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "common/bounded_option.hpp"
#include "common/suite_hooks.hpp"
#include "prefix/scan_suite.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Parallel prefix sum (SC14): init, reduce and scan passes over blocks; cws vs TBB vs OpenMP static",
               "cws-prefix"};
  prefix::options o;
  constexpr std::size_t most = std::size_t{1} << 34;
  cws_apps::add_bounded_option(app, "--size", o.n, "Elements (int64) to scan", std::size_t{0}, most);
  cws_apps::add_bounded_option(app, "--block", o.block,
                               "Elements per block, one block per leaf (0: size / 512 rounded up to whole 4 KiB "
                               "pages, SC14's 512 blocks)",
                               std::size_t{0}, most);
  cws_apps::add_bounded_option(app, "--mismatch-grain", o.mismatch_grain,
                               "Blocks per leaf of the cws reduce and scan passes (1: init's recursion; more: a "
                               "different recursion, whose replay of init's template diverges and is reported)",
                               std::size_t{1}, most);
  app.add_flag("--follow-init,!--no-follow-init", o.follow_init,
               "Under stows, stuws and relws the reduce and scan passes replay the init pass's template (schedule "
               "follows data, SC14's recipe with stuws); off: each pass has its own template")
      ->capture_default_str();
  cws_apps::add_evolve_init_option(app, o.evolve_init,
                                   "Policy of the init schedule of the cws-evolve variant (its reduce schedule evolves "
                                   "and moves the pages; its scan replays the reduce's template under stuws)");
  std::optional<cws_apps::policies_option> policies;
  cws_apps::add_variant_options(app, o.common, policies, "Comma-separated cws policies, one cws variant each",
                                "interleaved: one array of --size int64 per variant (11 variants with the default "
                                "policies: 2.75 GiB at the default size); sequential: two (serial's, kept as the "
                                "reference, and one other variant's)");
  app.get_option("--iters")->description("Ignored: a run is one init and one prefix sum (the program runs once)");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    cws_apps::bench_env env(o.common);
    prefix::scan_suite suite(env, o, policies->chosen());
    cws_apps::report out("prefix", env, suite.params());
    cws_apps::variant_runner runner(env, o.common, out, app.get_name());
    const std::int64_t* expected = nullptr;  // the serial variant's result, std::inclusive_scan's
    const auto verify = [&](const prefix::variant& v, std::vector<std::string>& wrong) {
      // The serial variant (the first) is the reference, kept to the end.
      const std::int64_t* got = v.data->data();
      if (expected == nullptr) {
        expected = got;
        return true;
      }
      const std::size_t n = o.n;
      const auto diff = std::mismatch(expected, expected + n, got);
      if (diff.first == expected + n) return true;
      const std::size_t first = static_cast<std::size_t>(diff.first - expected);
      const std::size_t count = static_cast<std::size_t>(std::inner_product(
          expected + first, expected + n, got + first, std::size_t{0}, std::plus<>(), std::not_equal_to<>()));
      wrong.push_back(fmt::format("{}: {} element(s) differ from std::inclusive_scan, first at {} ({} instead of {})",
                                  v.name, count, first, got[first], expected[first]));
      return false;
    };
    runner.measure(suite.variants(),
                   cws_apps::suite_object_hooks(suite, [&](prefix::variant& v, const cws_apps::phase_timer& t,
                                                           cws_apps::json& e, std::vector<std::string>& wrong) {
                     suite.put_timings(v, t, e);
                     e["verified"] = verify(v, wrong);
                     if (v.runs_cws()) suite.report_cws(v, e, runner.notes());
                     if (v.loop != cws_apps::loop_flavour::serial) v.data.reset();
                   }));
    return suite.conclude(runner);
  });
}
