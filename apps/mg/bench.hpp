#pragma once
// The variants of cws-mg and their figures, apart from the main (mg.cpp: the
// options and NPB's verification): serial; cws under each policy and, for
// the replaying policies, each schedule strategy (variants.hpp), with stows
// also cws-stows-follow-init (every kernel replays its level's first-touch
// template: schedule follows data); tbb-auto, tbb-affinity, tbb-static,
// omp-static. The measurement, the table and the JSON document are the
// common runner's (common/variant_suite.hpp).

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/variant_suite.hpp"
#include "mg/classes.hpp"
#include "mg/hierarchy.hpp"
#include "mg/solver.hpp"
#include "mg/variants.hpp"
#include "mg/zran3.hpp"

namespace mg_app {

// The flags of cws-mg beyond the common ones.
struct settings {
  std::size_t block = 0;  // i3 planes per leaf; 0: finest level's planes / (16 x workers)
  std::size_t serial_below = 32;
  std::vector<std::string> strategy_names{"per-kernel", "one"};
  std::string evolve_init = "random";
};

struct variant {
  std::string name;
  cws_apps::loop_flavour loop = cws_apps::loop_flavour::serial;
  std::string policy{};  // cws variants only
  std::optional<strategy> schedules{};
  std::string follows{};                             // "init" for the follow-init variant
  std::vector<std::vector<cws::schedule*>> table{};  // [level][kernel], cws variants only
  std::unique_ptr<variant_runner> runner{};          // persists from set-up to report
  std::optional<mg::hierarchy> grids{};
  std::optional<mg::solver> solver{};
  std::vector<double> rnm2{};     // every benchmark's result, warm-up included
  std::vector<double> calls_s{};  // measured runs: seconds inside the parallel calls
};

class bench final : public cws_apps::variant_suite<variant> {
 public:
  // Creates every variant, its schedules (an unknown policy throws here,
  // before anything runs) and its runner; finds the charges (untimed).
  bench(cws_apps::bench_env& env, const cws_apps::common_options& opt, const std::vector<std::string>& policies,
        const mg::class_params& cls, settings s);

  // Measures the variants, prints the table or the JSON document; the exit
  // code. `verify`: NPB's check of one variant; ok_note(), after the
  // verification: the table's last note.
  int run(const std::string& program, const verify_fn& verify, std::function<std::string()> ok_note);

 private:
  void add_cws(std::vector<variant>& list, const std::string& policy, std::optional<strategy> s,
               const std::string& name, bool follow_init);
  cws_apps::json params() const;

  void prepare(variant& v) override;
  void one_run(variant& v, cws_apps::phase_timer& t) override;
  void put_times(const variant& v, const cws_apps::phase_timer& t, cws_apps::json& e) const override;
  void put_cws_figures(const variant& v, cws_apps::json& e) override;
  void release(variant& v) override;
  cws_apps::table_text text() const override;

  std::vector<std::string> policies_;
  const mg::class_params& cls_;
  settings s_;
  std::vector<strategy> strategies_;
  unsigned lt_;                  // levels: the finest is lt_
  unsigned first_parallel_ = 1;  // the coarsest level that runs in parallel; lt_ + 1: none
  cws_apps::json level_table_;
  mg::charges charges_;  // shared set-up: the 20 charge positions
  std::function<std::string()> ok_note_;
};

}  // namespace mg_app
