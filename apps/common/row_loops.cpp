#include "common/row_loops.hpp"

#include <algorithm>

namespace pufferfish {

const std::vector<variant_kind>& variant_table() {
  using cws::numa::block_cyclic;
  using cws::numa::first_touch;
  using cws::numa::interleaved;
  const std::string random(cws::policy::random), hinted(cws::policy::hinted);
  static const std::vector<variant_kind> table = {
      {"serial", runner::serial, "", "", first_touch},
      // PufferFish and HClib's HPT_DA: hints routed by find_place, arrays in blocks per node.
      {"cws-hinted", runner::cws, hinted, hinted, block_cyclic},
      {"cws-hinted-hpt", runner::cws, std::string(cws::policy::hinted_hpt), std::string(cws::policy::hinted_hpt),
       block_cyclic},
      // Random work stealing, the hints only declared: HClib(FT) and HClib(IL).
      {"cws-random-ft", runner::cws, random, random, first_touch},
      {"cws-random-il", runner::cws, random, random, interleaved},
      // evolve learns the placement from its recorded trees; its init runs
      // under random, which never moves pages (an init under evolve would move
      // them to init's tree after each of its relws runs).
      {"cws-evolve", runner::cws, std::string(cws::policy::evolve), random, first_touch},
      {"cws-evolve-hinted", runner::cws, std::string(cws::policy::evolve_hinted), hinted, block_cyclic},
      {"tbb-simple", runner::tbb_simple, "", "", first_touch},
      {"tbb-affinity", runner::tbb_affinity, "", "", first_touch},
      {"omp-static", runner::omp_static, "", "", first_touch},
  };
  return table;
}

std::string variant_names() {
  std::string names;
  for (const variant_kind& v : variant_table()) names += (names.empty() ? "" : ",") + v.name;
  return names;
}

std::vector<variant_kind> choose_variants(const std::vector<std::string>& names, const std::string& policy) {
  for (const std::string& n : names)
    if (std::none_of(variant_table().begin(), variant_table().end(),
                     [&](const variant_kind& v) { return v.name == n; }))
      throw cws::error("unknown variant '" + n + "' (variants: " + variant_names() + ")");
  if (!policy.empty() && std::none_of(variant_table().begin(), variant_table().end(),
                                      [&](const variant_kind& v) { return v.policy == policy; })) {
    std::vector<std::string> policies;
    for (const variant_kind& v : variant_table())
      if (v.how == runner::cws && std::find(policies.begin(), policies.end(), v.policy) == policies.end())
        policies.push_back(v.policy);
    std::string list;
    for (const std::string& p : policies) list += (list.empty() ? "" : ", ") + p;
    throw cws::error("no variant runs policy '" + policy + "' (policies: " + list + ")");
  }
  std::vector<variant_kind> chosen;
  for (const variant_kind& v : variant_table()) {
    if (!names.empty() && std::find(names.begin(), names.end(), v.name) == names.end()) continue;
    if (!policy.empty() && v.how == runner::cws && v.policy != policy) continue;
    chosen.push_back(v);
  }
  if (chosen.empty()) throw cws::error("no variant left to run (--variants and --policy exclude each other)");
  return chosen;
}

bool learns_trees(const variant_kind& v) noexcept {
  return v.how == runner::cws && (v.policy == cws::policy::evolve || v.policy == cws::policy::evolve_hinted);
}

const char* to_string(cws_apps::recursion r) noexcept {
  return r == cws_apps::recursion::regular ? "regular" : "irregular";
}

}  // namespace pufferfish
