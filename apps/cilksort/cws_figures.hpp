#pragma once
// The figures only the cws variants of cws-cilksort have: the hinted
// policies' counters per sort (where find_place sent the hinted spawns, how
// many HET ran inline, place steals), the locality of the measured sorts,
// and the sort schedule's run-by-run view (common/iteration_lines.hpp), which shows
// what the replaying policies made of a data-dependent tree.

#include <string>
#include <vector>

#include <cws/cws.hpp>

#include "cilksort/variants.hpp"
#include "common/locality_tally.hpp"
#include "common/report.hpp"
#include "common/iteration_lines.hpp"

namespace cilksort {

// The sort schedule's run-by-run view of one cws variant, for the text output.
struct sort_lines {
  std::string title;
  std::vector<cws_apps::iteration_line> lines;  // one per sort, warm-up first
};

// Sets on `e`: policy, placement, schedules {sort, init}, init_policy; per
// measured sort the means tasks, steals, hinted_leaf, hinted_node,
// hinted_root, het_inlined, place_steals, reclaimed, and het_share =
// het_inlined / (hinted_leaf + hinted_node + hinted_root) (null without
// hinted spawns); the locality columns of the measured sorts
// (cws_apps::put_locality) and init_local_share; phase_wall_s /
// outside_wall_s; the summary of the sort schedule's lines
// (cws_apps::put_summary; replayed_share null for the policies that replay
// nothing), diverged_runs (warm-up included), converged / converged_at
// (replaying policies), and iterations: the lines the variant kept as its
// sorts ran (variant::sort_lines). Returns the lines.
sort_lines put_cws_figures(cws_apps::json& e, const variant& v, const cws_apps::locality_tally& tally);

// Per block: its title line, one line per sort (its run number in the `it`
// column), an empty line.
void print_sort_lines(const std::vector<sort_lines>& blocks);

}  // namespace cilksort
