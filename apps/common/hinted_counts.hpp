#pragma once
// The per-worker counters of cws phases (cws::worker_stats) summed over
// workers and phases, and what the hinted policies' counters say: where
// find_place sent the hinted spawns (hinted_leaf, hinted_node,
// hinted_root), how many of them HET ran inline (het_inlined; het_share =
// het_inlined / all hinted spawns, the share of pushes HET removed, the
// paper's Fig. 13), steals from node and root places, tasks reclaimed.

#include <cstdint>

#include <cws/cws.hpp>
#include <nlohmann/json.hpp>

namespace cws_apps {

// Adds every counter of `w` to `sum`.
inline void add_counts(cws::worker_stats& sum, const cws::worker_stats& w) noexcept {
  sum.tasks += w.tasks;
  sum.segments += w.segments;
  sum.steals += w.steals;
  sum.failed_steals += w.failed_steals;
  sum.nested_segments += w.nested_segments;
  sum.idle_s += w.idle_s;
  sum.designated += w.designated;
  sum.taken_back += w.taken_back;
  sum.elided += w.elided;
  sum.hinted_leaf += w.hinted_leaf;
  sum.hinted_node += w.hinted_node;
  sum.hinted_root += w.hinted_root;
  sum.het_inlined += w.het_inlined;
  sum.place_steals += w.place_steals;
  sum.reclaimed += w.reclaimed;
}

// Adds the counters of every worker of phase `s` to `sum`.
inline void add_counts(cws::worker_stats& sum, const cws::phase_stats& s) noexcept {
  for (const cws::worker_stats& w : s.per_worker) add_counts(sum, w);
}

// Sets hinted_leaf, hinted_node, hinted_root, het_inlined, place_steals and
// reclaimed to figure(count) (the total, or a mean per run or per sort), then
// het_share (null without hinted spawns).
template <class Figure>
void put_hinted_counts(nlohmann::ordered_json& entry, const cws::worker_stats& sum, const Figure& figure) {
  entry["hinted_leaf"] = figure(sum.hinted_leaf);
  entry["hinted_node"] = figure(sum.hinted_node);
  entry["hinted_root"] = figure(sum.hinted_root);
  entry["het_inlined"] = figure(sum.het_inlined);
  entry["place_steals"] = figure(sum.place_steals);
  entry["reclaimed"] = figure(sum.reclaimed);
  const std::uint64_t hinted = sum.hinted_leaf + sum.hinted_node + sum.hinted_root;
  entry["het_share"] = hinted == 0
                           ? nlohmann::ordered_json(nullptr)
                           : nlohmann::ordered_json(static_cast<double>(sum.het_inlined) / static_cast<double>(hinted));
}

}  // namespace cws_apps
