// cws-recording: what recording steal trees costs, measured in one run.
//
// Overhead: recording off in the runtime, a recorder attached by hand for
// every other phase (recording/paired_phases.hpp), so "on" and "off" run on
// the same threads, pages and caches; the figure is the median of the
// per-pair time ratios, for fib(n) and the memcopy copy phase. Size: --phases
// copy phases encoded as a trace file (--trace-out writes it).

#include <fmt/format.h>

#include <algorithm>  // std::max
#include <cstdint>
#include <optional>
#include <utility>

#include "common/bench_env.hpp"
#include "common/bounded_option.hpp"
#include "common/report.hpp"
#include "common/spawning_fib.hpp"
#include "common/table_columns.hpp"
#include "recording/paired_phases.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Cost of steal-tree recording: time on vs off in one run, and trace size", "cws-recording"};
  cws_apps::common_options opt;
  unsigned n = 30, pairs = 21, phases = 1000;
  std::size_t mib = 64;
  cws_apps::add_bounded_option(app, "-n,--n", n, "Argument of fib", 2u, 45u);
  cws_apps::add_bounded_option(app, "--mb", mib, "Size of each memcopy array in MiB", std::size_t{1},
                               std::size_t{1} << 16);
  cws_apps::add_bounded_option(app, "--pairs", pairs, "Phase pairs (off/on) per kernel", 1u, 100000u);
  cws_apps::add_bounded_option(app, "--phases", phases, "Copy phases recorded for the size figure", 1u, 1000000u);
  cws_apps::add_common_options(app, opt);
  // The pairs are the runs here: no warm-up or repetition flags to ignore.
  for (const char* name : {"--runs", "--warmup", "--iters"}) app.remove_option(app.get_option(name));

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    namespace col = cws_apps::columns;
    cws_apps::bench_env env(opt, [](cws::runtime_config& c) { c.record = false; });
    cws::runtime& rt = env.rt();
    auto& fib_phase = rt.schedule("fib", opt.policy);
    auto& copy_phase = rt.schedule("copy", opt.policy);

    const std::size_t elems = mib * (std::size_t{1} << 20) / sizeof(double);
    auto a = cws::numa::allocate<double>(elems, cws::numa::first_touch, rt.topology());
    auto b = cws::numa::allocate<double>(elems, cws::numa::first_touch, rt.topology());
    cws::numa::prefault_zero(a);
    cws::numa::prefault_zero(b);
    const std::size_t grain = std::max<std::size_t>(1, elems / (2 * std::size_t{rt.workers()}));
    auto copy = [&] {
      cws::parallel_for_range(
          0, elems,
          [&](std::size_t lo, std::size_t hi) {
            for (std::size_t i = lo; i < hi; ++i) b[i] = a[i];
          },
          grain);
    };
    std::uint64_t sink = 0;
    const recording::paired f =
        recording::measure_pairs(rt, fib_phase, pairs, [&] { sink += cws_apps::spawning_fib::with_cws(n); });
    const recording::paired c = recording::measure_pairs(rt, copy_phase, pairs, copy);

    // Size: `phases` recorded copy phases, encoded as a trace file.
    const recording::trace_size t = recording::record_phases(rt, copy_phase, phases, copy);
    const std::size_t bytes = t.bytes;
    const std::uint64_t steals = t.steals;

    cws_apps::report out("recording", env, {{"n", n}, {"mb_per_array", mib}, {"pairs", pairs}, {"phases", phases}});
    for (const auto& [name, p] : {std::pair{"fib", &f}, std::pair{"memcopy-copy", &c}}) {
      cws_apps::json& e = out.add(name);
      cws_apps::put_timing(e, p->on, "on_");
      cws_apps::put_timing(e, p->off, "off_");
      e["ratio_on_off"] = p->ratios.median();
    }
    cws_apps::json& size = out.add("trace-size");
    size["phases"] = phases;
    size["steals"] = steals;
    size["bytes"] = bytes;
    size["bytes_per_steal"] = steals ? static_cast<double>(bytes) / static_cast<double>(steals) : 0.0;
    size["kb_per_worker"] = static_cast<double>(bytes) / 1024.0 / rt.workers();
    size["bytes_per_phase"] = static_cast<double>(bytes) / phases;

    env.save_trace(t.file);  // the copy phases of the size figure
    out.print(opt.json,
              fmt::format("cws-recording: fib({}) and memcopy copy ({} MiB), {} off/on pairs each; {} copy phases "
                          "for the size",
                          n, mib, pairs, phases),
              {col::as_is("variant", "variant"), col::milliseconds("off ms", "off_median_s"),
               col::milliseconds("on ms", "on_median_s"), col::fixed("on/off", "ratio_on_off", 4),
               col::fixed("trace bytes", "bytes", 0), col::fixed("B/steal", "bytes_per_steal", 1),
               col::fixed("KB/worker", "kb_per_worker", 1)},
              {"on/off is the median of per-pair ratios (same runtime, recorder attached on alternate phases)",
               "trace bytes: the text-archive trace file of the copy phases"});
    if (sink != (2ull * pairs + 1) * cws_apps::spawning_fib::value(n))
      return cws_apps::report_error(app.get_name(), "fib computed a wrong value", 1);
    return 0;
  });
}
