#pragma once
// What the golden-file suites (test_golden*.cpp) compare beyond
// traces::identical(), and the per-version facts of the golden files.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cws/steal_tree/analysis.hpp"
#include "cws/traces/trace_file.hpp"
#include "helpers.hpp"

namespace cws::test::golden_checks {

using cws::test::golden;

// What identical() leaves out of version 5: steal_point's == ignores `path`
// (an offset into its own tree's table) and worker_stats' `elided`. Compares
// both, and the tables: offsets and table together fix every pedigree.
inline ::testing::AssertionResult same_pedigrees_and_elided(const traces::trace_file& a, const traces::trace_file& b) {
  if (a.phases.size() != b.phases.size()) return ::testing::AssertionFailure() << "run counts differ";
  for (std::size_t i = 0; i < a.phases.size(); ++i) {
    const steal_tree::phase_record &x = a.phases[i], &y = b.phases[i];
    if (x.steals.paths != y.steals.paths) return ::testing::AssertionFailure() << "run " << i << ": pedigree tables";
    if (x.stats.size() != y.stats.size()) return ::testing::AssertionFailure() << "run " << i << ": worker counts";
    for (std::size_t w = 0; w < x.stats.size(); ++w)
      if (x.stats[w].elided != y.stats[w].elided)
        return ::testing::AssertionFailure()
               << "run " << i << ", worker " << w << ": elided " << x.stats[w].elided << " vs " << y.stats[w].elided;
    if (x.steals.segments.size() != y.steals.segments.size())
      return ::testing::AssertionFailure() << "run " << i << ": segment counts";
    for (std::size_t g = 0; g < x.steals.segments.size(); ++g) {
      const auto &p = x.steals.segments[g].steals, &q = y.steals.segments[g].steals;
      if (p.size() != q.size()) return ::testing::AssertionFailure() << "run " << i << ", segment " << g << ": steals";
      for (std::size_t k = 0; k < p.size(); ++k)
        if (p[k].path != q[k].path)
          return ::testing::AssertionFailure() << "run " << i << ", segment " << g << ", steal " << k << ": path "
                                               << p[k].path << " vs " << q[k].path;
    }
  }
  return ::testing::AssertionSuccess();
}

// The pedigree of a steal point as a vector (path_of gives a span).
inline std::vector<std::uint32_t> pedigree(const steal_tree::tree& t, const steal_tree::steal_point& p) {
  const auto ranks = steal_tree::path_of(t, p);
  return {ranks.begin(), ranks.end()};
}

// A file of a version before 5: no pedigree anywhere, no elided spawn.
inline ::testing::AssertionResult has_no_v5_fields(const traces::trace_file& f) {
  for (const steal_tree::phase_record& r : f.phases) {
    if (!r.steals.paths.empty()) return ::testing::AssertionFailure() << "run " << r.iteration << ": pedigree table";
    for (const steal_tree::segment& g : r.steals.segments)
      for (const steal_tree::steal_point& p : g.steals)
        if (p.path != steal_tree::no_path || !steal_tree::path_of(r.steals, p).empty())
          return ::testing::AssertionFailure() << "run " << r.iteration << ": a steal with path " << p.path;
    for (const cws::worker_stats& w : r.stats)
      if (w.elided != 0) return ::testing::AssertionFailure() << "run " << r.iteration << ": elided " << w.elided;
  }
  return ::testing::AssertionSuccess();
}

// A file of a version before 6: no place tree, no hinted counter.
inline ::testing::AssertionResult has_no_v6_fields(const traces::trace_file& f) {
  if (!f.header.places.empty() || !(f.header.places == traces::places_info{}))
    return ::testing::AssertionFailure() << "place tree '" << f.header.places.summary << "'";
  for (const steal_tree::phase_record& r : f.phases)
    for (const cws::worker_stats& w : r.stats)
      if (w.hinted_leaf || w.hinted_node || w.hinted_root || w.het_inlined || w.place_steals || w.reclaimed)
        return ::testing::AssertionFailure() << "run " << r.iteration << ": hinted counters";
  return ::testing::AssertionSuccess();
}

// `f` without the fields format version `version` (5 or 6) added: 5 the
// steal points' pedigrees and the elided counts, 6 the place tree and the
// hinted counters.
inline traces::trace_file without_fields_added_in(std::uint32_t version, traces::trace_file f) {
  if (version == 6) f.header.places = {};
  for (steal_tree::phase_record& r : f.phases) {
    if (version == 5) {
      r.steals.paths.clear();
      for (steal_tree::segment& g : r.steals.segments)
        for (steal_tree::steal_point& p : g.steals) p.path = steal_tree::no_path;
    }
    for (cws::worker_stats& w : r.stats) {
      if (version == 5) w.elided = 0;
      if (version == 6)
        w.hinted_leaf = w.hinted_node = w.hinted_root = w.het_inlined = w.place_steals = w.reclaimed = 0;
    }
  }
  return f;
}

// The name of golden file `rest` of format version `version`, "v<version>-<rest>",
// and its path.
inline std::string golden_name(std::uint32_t version, const std::string& rest) {
  std::string name = "v";  // appended piece by piece: GCC 12 warns (-Wrestrict) on "v" + to_string(...)
  name += std::to_string(version);
  name += '-';
  name += rest;
  return name;
}
inline std::string golden_of(std::uint32_t version, const std::string& rest) {
  return golden(golden_name(version, rest));
}

}  // namespace cws::test::golden_checks
