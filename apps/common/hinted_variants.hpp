#pragma once
// The cws variants of PufferFish's hinted benchmarks, as cws-lulesh and
// cws-cilksort run them: the policy of the measured phases and where the
// arrays' pages live.
//
//   cws-hinted         hinted (PufferFish): find_place routes every hinted
//                      spawn; arrays block_cyclic (blocks per node)
//   cws-hinted-hpt     hinted-hpt (HClib's HPT_DA), block_cyclic
//   cws-random-ft      random, first touch (HClib / Cilk FT)
//   cws-random-il      random, interleaved (numactl -i)
//   cws-evolve         evolve, first touch
//   cws-evolve-hinted  evolve-hinted (its first template a hinted run), block_cyclic
//
// What their setup loops run under is each app's own rule (a setup under
// evolve would move the pages to the setup's tree after each of its runs).

#include <string_view>
#include <vector>

#include <cws/cws.hpp>

namespace cws_apps {

struct hinted_variant {
  std::string_view name;
  std::string_view policy;
  cws::numa::placement placement;
};

// The six, in the order above (the apps' output order).
const std::vector<hinted_variant>& hinted_cws_variants();

}  // namespace cws_apps
