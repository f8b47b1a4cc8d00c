// cws-srad: PufferFish's SRAD and SRAD-ir benchmarks (Rodinia SRAD v1) on a
// non-degenerate image. Seven arrays of rows x cols floats; every iteration
// is the serial region-of-interest statistics, then two loops over the rows
// (srad/image.hpp) whose children hint the rows of J they cover, as in the
// artifact. Every variant's J must equal the serial program's bit for bit.
// The variants, timing, verification and table: common/row_suite.hpp.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "common/row_suite.hpp"
#include "srad/image.hpp"

namespace {

using pufferfish::row_variant;

enum phase_id : std::size_t { init_phase = 0, coefficient_phase = 1, update_phase = 2 };

// The image of a variant's seven arrays.
srad::image image_of(row_variant& v, std::size_t rows, std::size_t cols) {
  auto& a = v.arrays;
  return {a[0].data(), a[1].data(), a[2].data(), a[3].data(), a[4].data(), a[5].data(), a[6].data(), rows, cols};
}

// Runs loop `phase` over every row of `m`: a child hints its rows of J (the
// runtime records the hint as its touch) and, under cws, first declares its
// rows of the other arrays it uses (I only at init).
template <class Kernel>
double run_loop(row_variant& v, std::size_t phase, const srad::image& m, Kernel kernel) {
  const bool declare = v.runs_cws();
  const auto hint = pufferfish::rows_hint(v.arrays[1], m.cols);
  return v.loops->run(phase, 0, m.rows, hint, [m, declare, phase, kernel](std::size_t lo, std::size_t hi) {
    const std::size_t bytes = (hi - lo) * m.cols * sizeof(float);
    if (declare)
      for (const float* x : {m.c, m.dN, m.dS, m.dW, m.dE}) cws::touch(x + lo * m.cols, bytes);
    if (declare && phase == init_phase) cws::touch(m.I + lo * m.cols, bytes);
    kernel(m, lo, hi);
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"PufferFish SRAD / SRAD-ir: cws hinted, random, evolve vs TBB vs OpenMP static", "cws-srad"};
  pufferfish::row_options opt;
  std::size_t rows = 1024, cols = 1024;
  pufferfish::add_count_option(app, "--rows", rows, "Rows of the image (PufferFish: 16384)", 1, 1 << 17);
  pufferfish::add_count_option(app, "--cols", cols, "Columns of the image (PufferFish: 16384)", 1, 1 << 17);
  pufferfish::add_row_options(
      app, opt,
      {"SRAD", "Rows per leaf (PufferFish's)", 10,
       "Iterations per run (the artifact hard-wires 10, the paper says 50); a sample is their mean",
       "interleaved: 7 arrays of rows x cols floats per variant (10 variants: 280 MiB at 1024, 70 GiB at 16384); "
       "sequential: 7 arrays at a time; both keep the serial program's J"});

  return cws_apps::run_main(app, argc, argv, [&]() -> int {
    const std::size_t pixels = rows * cols;
    cws_apps::bench_env env(opt.common);
    pufferfish::row_suite suite(
        env, opt,
        {.app = "srad",
         .phases = {"init", "coefficient", "update"},
         .data = {7, pixels, cols, 1, "pixel(s) of J"},  // J is array 1
         .step = {"iteration", "ms/iter", "mpixels_per_s", static_cast<double>(pixels)},
         .words = {"the serial statistics and the calls of its two loops", "arrays", "loop",
                   "each leaf's rows of the 6 arrays it uses", "ok: J equals the serial program's bit for bit"}});
    float first_q0sqr = 0;  // the serial program's J, untimed
    const std::vector<float> expected = srad::serial_run(rows, cols, opt.common.iters, first_q0sqr);
    if (!(first_q0sqr > 0) || !std::isfinite(first_q0sqr))
      throw std::runtime_error(
          fmt::format("the input is degenerate: q0sqr = {} (the region of interest is flat)", first_q0sqr));
    const auto init = [&](row_variant& v) { return run_loop(v, init_phase, image_of(v, rows, cols), srad::init_rows); };
    const auto iteration = [&](row_variant& v) {
      const srad::image m = image_of(v, rows, cols);
      float q = 0;
      const double statistics = cws_apps::seconds_of([&] { q = srad::q0sqr(m); });
      const double coefficient = run_loop(v, coefficient_phase, m, [q](const srad::image& x, auto lo, auto hi) {
        srad::coefficient_rows(x, lo, hi, q);
      });
      return statistics + coefficient + run_loop(v, update_phase, m, srad::update_rows);
    };
    return suite.run(
        {init, iteration}, expected,
        {.sizes = {{"rows", rows}, {"cols", cols}},
         .own = {{"lambda", srad::lambda},
                 {"roi", {{"rows", std::min(srad::roi_edge, rows)}, {"cols", std::min(srad::roi_edge, cols)}}},
                 {"q0sqr_first", first_q0sqr},
                 {"element", "float"},
                 {"arrays", 7}},
         .size = fmt::format("7 arrays of {} x {} floats", rows, cols),
         .per_step = "2 phases each",
         .detail = fmt::format("q0sqr {:.4g} at the start", first_q0sqr)});
  });
}
