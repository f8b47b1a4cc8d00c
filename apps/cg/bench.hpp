#pragma once
// The variants of cws-cg and their figures, apart from the main (cg.cpp: the
// options and NPB's verification). A cws variant runs each kernel (spmv,
// dot, update, direction, start, residual, norms, normalize, init) in its
// own schedule "cg-<kernel>/<variant>"; with evolve (SC14's CG recipe:
// random first, relws until the tree converges, then stows) there is also
// cws-evolve-follow, whose vector kernels replay the spmv schedule's
// template (schedule::follow: all loops split the same row blocks the same
// way). The measurement, the table and the JSON document are the common
// runner's (common/variant_suite.hpp).

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cg/classes.hpp"
#include "cg/makea.hpp"
#include "cg/runner.hpp"
#include "cg/solver.hpp"
#include "common/iteration_lines.hpp"
#include "common/locality_tally.hpp"
#include "common/variant_suite.hpp"

namespace cg_app {

// The flags of cws-cg beyond the common ones.
struct settings {
  std::size_t block = 0;  // rows per block; 0: by class (block_rows_for)
  std::string init = "serial";
  std::string evolve_init = "random";
  bool follow_spmv = false;
  unsigned lines = 0;  // --iteration-lines
};

struct variant {
  std::string name;
  cws_apps::loop_flavour loop = cws_apps::loop_flavour::serial;
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

class bench final : public cws_apps::variant_suite<variant> {
 public:
  // Creates every variant and its schedules (an unknown policy throws here,
  // before anything runs), and NPB's matrix (serial, untimed).
  bench(cws_apps::bench_env& env, const cws_apps::common_options& opt, const std::vector<std::string>& policies,
        const cg::problem_class& cls, int iters, settings s);

  // Measures the variants, prints the table or the JSON document; the exit
  // code. `verify`: NPB's check of one variant.
  int run(const std::string& program, const verify_fn& verify);

 private:
  struct line_block {
    std::string title;
    std::vector<cws_apps::iteration_line> lines;
  };
  void add_cws(std::vector<variant>& list, const std::string& policy, const std::string& suffix, bool follow);
  cws_apps::json params() const;
  cws_apps::run_map map_of(const variant& v, cg::kernel k, unsigned per) const;
  cws_apps::locality_summary measured(const variant& v, cg::kernel k, unsigned per) const;

  void prepare(variant& v) override;
  void one_run(variant& v, cws_apps::phase_timer& t) override;
  void put_times(const variant& v, const cws_apps::phase_timer& t, cws_apps::json& e) const override;
  void put_cws_figures(const variant& v, cws_apps::json& e) override;
  void release(variant& v) override { v.w.reset(); }
  void print_before_table() const override;
  cws_apps::table_text text() const override;

  std::vector<std::string> policies_;
  cg::problem_class cls_;
  int iters_;
  settings s_;
  std::size_t blocks_ = 0;
  cws_apps::locality_tally tally_;
  cg::csr_matrix matrix_;  // shared by the variants' init phases
  std::vector<line_block> line_blocks_;
};

}  // namespace cg_app
