#pragma once
// What cws-lulesh reports: the run's params, a variant's entry (its result,
// its checks, its time and, for the cws variants, what their phases did),
// LULESH's closing lines of the serial run, and the table.

#include <cstddef>

#include <cws/cws.hpp>

#include "common/report.hpp"
#include "common/timing.hpp"
#include "lulesh/simulation.hpp"
#include "lulesh/variants.hpp"

namespace lulesh {

// The run's params: the problem, its grains, the measurement.
cws_apps::json params(const problem& p, const cws_apps::run_plan& plan, cws::runtime& rt);

// Fills variant v's entry: its policies and placement, `verified`, its last
// measured outcome and whether its origin energy equals `serial`'s, its
// timing (`run`, over `runs` measured runs) and ms per cycle; for a cws
// variant the per-run counts, hinted counters, locality (overall and per
// loop), pages moved, and what its phases ran as.
void put_entry(cws_apps::json& entry, const variant& v, const outcome& serial, bool verified,
               const cws_apps::samples& run, unsigned runs);

// LULESH's closing lines for the serial run.
void print_summary(std::size_t edge, const outcome& serial);

// The table (or, with `as_json`, the JSON document) of the run.
void print_table(const cws_apps::report& out, bool as_json, const problem& p, const outcome& serial, cws::runtime& rt);

}  // namespace lulesh
