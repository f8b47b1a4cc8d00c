#pragma once
// The variants of cws-fib, measured one after the other and added to the
// report: cws-<policy> for each policy of --policy (random first: the
// replaying policies replay the steal tree of its fastest run), then
// tbb-task-group and serial. A measured run is `iters` evaluations of
// fib(n); its sample is their mean.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/bench_env.hpp"
#include "common/report.hpp"

namespace fib {

// --policy as cws-fib reads it: a comma-separated list (random,stows), one
// cws variant each, in order, without repeats.
std::vector<std::string> policy_list(const std::string& option);

class variant_runner {
 public:
  variant_runner(cws_apps::bench_env& env, const cws_apps::common_options& opt, unsigned n);

  // Measures the cws variants (their schedules "fib-<policy>" already
  // made), then the baselines, and adds their entries to `out`.
  void run(cws_apps::report& out, std::vector<std::string> policies);
  bool all_verified() const noexcept { return all_ok_; }
  std::uint64_t expected() const noexcept { return expected_; }  // fib(n)
  std::uint64_t spawns() const noexcept { return spawns_; }      // per evaluation

 private:
  // evaluate(steals) computes fib(n) once; a cws variant adds the steals its phase made.
  using evaluation = std::function<std::uint64_t(std::uint64_t& steals)>;
  // Measures one variant and adds its entry: times, ns per spawn, steals per
  // call (cws variants), verified (every evaluation gave fib(n)).
  void add(cws_apps::report& out, const std::string& variant, const evaluation& evaluate, bool is_cws);

  cws_apps::bench_env& env_;
  const cws_apps::common_options& opt_;
  unsigned n_;
  std::uint64_t expected_, spawns_;
  bool all_ok_ = true;
};

// The table of the results; with_random: a "vs random" column.
std::vector<cws_apps::column> table_columns(bool with_random);

}  // namespace fib
