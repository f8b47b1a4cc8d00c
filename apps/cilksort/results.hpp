#pragma once
// What cws-cilksort reports besides the figures of its cws variants
// (cilksort/cws_figures.hpp): the run's params, a variant's time and checks,
// and the table.

#include <string>
#include <vector>

#include <cws/cws.hpp>

#include "cilksort/variants.hpp"
#include "common/bench_env.hpp"
#include "common/report.hpp"
#include "common/timing.hpp"
#include "common/variant_runner.hpp"

namespace cilksort {

// The run's params: the problem, the measurement, the variants' names, the
// first input's digest.
cws_apps::json params(const problem& p, const cws_apps::common_options& opt, const std::vector<variant>& variants,
                      const digest& first, cws::runtime& rt);

// A variant's timing (median_s / min_s: one sort; init_median_s /
// init_min_s: writing one input) and its checks: sorts_checked, verified,
// verify_error (the first failed check, if any).
void put_entry(cws_apps::json& entry, const variant& v, const cws_apps::phase_timer& t);

// The ratios of the table: median_s vs std-sort, serial, cws-random-ft and tbb-task-group.
const std::vector<cws_apps::ratio_spec>& ratios();

// The table (or, with `as_json`, the JSON document) of the run.
void print_table(const cws_apps::report& out, const problem& p, const cws_apps::common_options& opt, cws::runtime& rt);

}  // namespace cilksort
