// cws-srad: PufferFish's SRAD and SRAD-ir benchmarks (Rodinia SRAD v1) on a
// non-degenerate image. Seven arrays of rows x cols floats; every iteration
// is the serial region-of-interest statistics, then two parallel loops over
// the rows (srad/image.hpp), each a recursion in leaves of `--tile` rows
// (PufferFish's, 2) with a hint on every child: the rows of J it covers, as
// in the artifact. `--recursion regular` is SRAD's binary splitter,
// `irregular` SRAD-ir's 2-/4-way one (common/hinted_recursion.hpp).
//
// Variants (common/row_loops.hpp, shared with cws-sor): serial; cws-hinted and
// cws-hinted-hpt (block-cyclic arrays); cws-random-ft (first touch),
// cws-random-il (interleaved); cws-evolve (first touch); cws-evolve-hinted
// (block-cyclic); tbb-simple, tbb-affinity, omp-static. Each variant
// initialises its own arrays with its own parallel loop over the same rows
// (their first touch), untimed, before every run; then `--iters` iterations
// are timed. After the last run every variant's J must equal the serial
// program's bit for bit.

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/hinted_recursion.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "common/rounds.hpp"
#include "common/hinted_figures.hpp"
#include "common/row_loops.hpp"
#include "srad/image.hpp"

namespace {

enum phase_id : std::size_t { init_phase = 0, coefficient_phase = 1, update_phase = 2, phase_count = 3 };

// The seven arrays of one variant, placed alike.
struct image_arrays {
  cws::numa::array<float> a[7];
  image_arrays(std::size_t n, cws::numa::placement where) {
    for (cws::numa::array<float>& x : a) x = cws::numa::allocate<float>(n, where);
  }
  srad::image view(std::size_t rows, std::size_t cols) {
    return {a[0].data(), a[1].data(), a[2].data(), a[3].data(), a[4].data(), a[5].data(), a[6].data(), rows, cols};
  }
  const cws::numa::array<float>& J() const { return a[1]; }
};

struct variant {
  pufferfish::variant_kind kind;
  std::string name;
  std::vector<cws::schedule*> schedules;  // cws: init, coefficient, update
  std::vector<std::uint64_t> start;       // cws: each schedule's iterations() before the first run
  std::unique_ptr<pufferfish::row_loops> loops;
  std::optional<image_arrays> arrays;
  srad::image view{};
};

// Declares rows [lo, hi) of the arrays a leaf uses besides J (J is its hint,
// which the runtime records as its touch).
void touch_rows(const srad::image& m, std::size_t lo, std::size_t hi, bool with_input) {
  const std::size_t bytes = (hi - lo) * m.cols * sizeof(float);
  for (const float* a : {m.c, m.dN, m.dS, m.dW, m.dE}) cws::touch(a + lo * m.cols, bytes);
  if (with_input) cws::touch(m.I + lo * m.cols, bytes);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"PufferFish SRAD / SRAD-ir: cws hinted, random, evolve vs TBB vs OpenMP static", "cws-srad"};
  cws_apps::common_options opt;
  opt.iters = 10;
  std::size_t rows = 1024, cols = 1024, tile = 2;
  std::string recursion_name = "regular";
  std::vector<std::string> variant_list;
  app.add_option("--rows", rows, "Rows of the image (PufferFish: 16384)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 17))
      ->capture_default_str();
  app.add_option("--cols", cols, "Columns of the image (PufferFish: 16384)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 17))
      ->capture_default_str();
  app.add_option("--tile", tile, "Rows per leaf (PufferFish's)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  app.add_option("--recursion", recursion_name, "regular: SRAD's binary splitter; irregular: SRAD-ir's 2-/4-way one")
      ->check(CLI::IsMember({"regular", "irregular"}))
      ->capture_default_str();
  app.add_option("--variants", variant_list,
                 "Comma-separated variants to run (default: all): " + pufferfish::variant_names())
      ->delimiter(',');
  cws_apps::add_common_options(app, opt);
  cws_apps::add_order_option(app, opt,
                             "interleaved: 7 arrays of rows x cols floats per variant (10 variants: 280 MiB at 1024, "
                             "70 GiB at 16384); sequential: 7 arrays at a time; both keep the serial program's J");
  app.get_option("--iters")->description(
      "Iterations per run (the artifact hard-wires 10, the paper says 50); a sample is their mean");
  app.get_option("--policy")->description("Only the cws variants whose kernel policy this is (and the baselines)");

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const bool policy_given = app.get_option("--policy")->count() > 0;
    const std::vector<pufferfish::variant_kind> kinds =
        pufferfish::choose_variants(variant_list, policy_given ? opt.policy : "");
    const cws_apps::recursion shape =
        recursion_name == "regular" ? cws_apps::recursion::regular : cws_apps::recursion::irregular;
    cws_apps::bench_env env(opt);
    cws::runtime& rt = env.rt();
    cws_apps::locality_tally locality(rt);
    pufferfish::counter_tally counters(rt);
    const std::size_t pixels = rows * cols;

    // Every schedule is created before anything runs, so an unknown policy fails at once (exit 2).
    std::vector<variant> variants;
    for (const pufferfish::variant_kind& k : kinds) {
      variant v;
      v.kind = k;
      v.name = k.name;
      if (k.how == pufferfish::runner::cws) {
        v.schedules = {&rt.schedule("srad-init/" + k.name, k.init_policy),
                       &rt.schedule("srad-coefficient/" + k.name, k.policy),
                       &rt.schedule("srad-update/" + k.name, k.policy)};
        // Both loops split the same rows the same way, and an update leaf reads what its coefficient leaf wrote:
        // one tree for both, so evolve moves each page to one place.
        if (pufferfish::learns_trees(k)) v.schedules[update_phase]->follow(v.schedules[coefficient_phase]->name());
      } else {
        v.schedules.assign(phase_count, nullptr);
      }
      v.loops = std::make_unique<pufferfish::row_loops>(env, k.how, shape, tile, v.schedules);
      variants.push_back(std::move(v));
    }

    // The serial program's J, untimed, before anything is measured.
    float first_q0sqr = 0;
    const std::vector<float> expected = srad::serial_run(rows, cols, opt.iters, first_q0sqr);
    if (!(first_q0sqr > 0) || !std::isfinite(first_q0sqr))
      throw std::runtime_error(
          fmt::format("the input is degenerate: q0sqr = {} (the region of interest is flat)", first_q0sqr));
    double checksum = 0;
    for (float v : expected) checksum += v;
    const std::string bench = shape == cws_apps::recursion::regular ? "srad" : "srad-ir";
    cws_apps::report out("srad", env,
                         {{"bench", bench},
                          {"rows", rows},
                          {"cols", cols},
                          {"iterations", opt.iters},
                          {"iters", opt.iters},
                          {"tile", tile},
                          {"recursion", pufferfish::to_string(shape)},
                          {"lambda", srad::lambda},
                          {"roi", {{"rows", std::min(srad::roi_edge, rows)}, {"cols", std::min(srad::roi_edge, cols)}}},
                          {"q0sqr_first", first_q0sqr},
                          {"element", "float"},
                          {"arrays", 7},
                          {"runs", opt.plan.runs},
                          {"warmup", opt.plan.warmup},
                          {"order", cws_apps::to_string(opt.plan.order)},
                          {"checksum", checksum},
                          {"page_homes", rt.page_homes().name()}});

    const auto j_rows = [cols](const cws::numa::array<float>* j) {
      return [j, cols](std::size_t lo, std::size_t hi) { return cws::hint(*j, lo * cols, hi * cols); };
    };
    const auto run_init = [&](variant& v) {
      const srad::image m = v.view;
      const bool declare = v.loops->runs_cws_phases();
      return v.loops->run(init_phase, 0, rows, j_rows(&v.arrays->J()), [m, declare](std::size_t lo, std::size_t hi) {
        if (declare) touch_rows(m, lo, hi, true);
        srad::init_rows(m, lo, hi);
      });
    };
    const auto run_iteration = [&](variant& v) {
      const srad::image m = v.view;
      const bool declare = v.loops->runs_cws_phases();
      float q = 0;
      double s = cws_apps::seconds_of([&] { q = srad::q0sqr(m); });
      s += v.loops->run(coefficient_phase, 0, rows, j_rows(&v.arrays->J()),
                        [m, q, declare](std::size_t lo, std::size_t hi) {
                          if (declare) touch_rows(m, lo, hi, false);
                          srad::coefficient_rows(m, lo, hi, q);
                        });
      s += v.loops->run(update_phase, 0, rows, j_rows(&v.arrays->J()), [m, declare](std::size_t lo, std::size_t hi) {
        if (declare) touch_rows(m, lo, hi, false);
        srad::update_rows(m, lo, hi);
      });
      return s;
    };

    std::vector<std::string> wrong;
    const auto prepare = [&](variant& v) {
      v.arrays.emplace(pixels, v.kind.placement);
      v.view = v.arrays->view(rows, cols);
      run_init(v);  // the first touch, untimed: no measured phase takes a page fault
      for (const cws::schedule* s : v.schedules)
        if (s != nullptr) v.start.push_back(s->iterations());
    };
    const auto one_run = [&](variant& v, cws_apps::phase_timer& t) {
      v.loops->begin_run(t);
      t.time_reported("init", 1, [&] { return run_init(v); });
      t.time_reported("iteration", opt.iters, [&] { return run_iteration(v); });
    };
    const auto finish = [&](variant& v, const cws_apps::phase_timer& timer) {
      cws_apps::json& e = out.add(v.name);
      cws_apps::put_timing(e, timer["iteration"]);  // median_s / min_s: one iteration
      cws_apps::put_timing(e, timer["init"], "init_");
      e["placement"] = cws::numa::to_string(v.kind.placement);
      e["mpixels_per_s"] = static_cast<double>(pixels) / timer["iteration"].median() / 1e6;
      std::size_t count = 0, first = pixels;
      for (std::size_t k = 0; k < pixels; ++k)
        if (std::bit_cast<std::uint32_t>(v.view.J[k]) != std::bit_cast<std::uint32_t>(expected[k]) && count++ == 0)
          first = k;
      if (count)
        wrong.push_back(
            fmt::format("{}: {} pixel(s) of J differ from the serial program, first at row {} column {} "
                        "({} instead of {})",
                        v.name, count, first / cols, first % cols, v.view.J[first], expected[first]));
      double sum = 0;
      for (std::size_t k = 0; k < pixels; ++k) sum += v.view.J[k];
      e["checksum"] = sum;
      e["verified"] = count == 0;
      if (v.loops->runs_cws_phases()) {
        e["policy"] = v.kind.policy;
        pufferfish::put_cws_figures(
            e, locality, counters,
            {pufferfish::measured(*v.schedules[coefficient_phase], v.start[coefficient_phase], opt.iters, opt.plan),
             pufferfish::measured(*v.schedules[update_phase], v.start[update_phase], opt.iters, opt.plan)},
            pufferfish::measured(*v.schedules[init_phase], v.start[init_phase], 1, opt.plan));
        cws_apps::put_phase_breakdown(e, v.loops->clock(coefficient_phase), "coefficient_");
        cws_apps::put_phase_breakdown(e, v.loops->clock(update_phase), "update_");
      }
      v.arrays.reset();
    };
    cws_apps::measure_variants(variants, opt.plan, prepare, one_run, finish);
    pufferfish::add_ratios(out);

    env.save_trace();
    out.print(opt.json,
              fmt::format("cws-srad ({}): 7 arrays of {} x {} floats ({:.0f} MiB each), {} iterations per run (2 "
                          "phases each), leaves of {} rows, q0sqr {:.4g} at the start, {} runs (+{} warm-up)",
                          bench, rows, cols, static_cast<double>(pixels * sizeof(float)) / (1 << 20), opt.iters, tile,
                          first_q0sqr, opt.plan.runs, opt.plan.warmup),
              pufferfish::table_columns("ms/iter"),
              {"ms/iter: median over runs of the mean time of one iteration, the wall clock around the serial "
               "statistics and the calls of its two loops (rt.run, tbb::parallel_for, the OpenMP region); init "
               "(untimed in ms/iter) re-initialises the arrays before every run; 'vs' columns are time ratios (lower "
               "is better);",
               "leaf / node / root: hinted spawns find_place sent to the spawner's leaf, another node, the root, "
               "summed over the measured loop phases; het %: the share of them HET ran inline;",
               fmt::format("local %: mean over the measured loop phases of the share of declared bytes (each leaf's "
                           "rows of the 6 arrays it uses) on a page homed on the toucher's node (page homes: {}); "
                           "last %: the last phase; moved: pages evolve relocalized",
                           rt.page_homes().name()),
               "ok: J equals the serial program's bit for bit"});
    if (!wrong.empty()) {
      for (const std::string& w : wrong) cws_apps::report_error(app.get_name(), w.c_str(), 1);
      return 1;
    }
    return 0;
  });
}
