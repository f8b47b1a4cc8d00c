#include "common/hinted_variants.hpp"

namespace cws_apps {

const std::vector<hinted_variant>& hinted_cws_variants() {
  using cws::numa::block_cyclic, cws::numa::first_touch, cws::numa::interleaved;
  static const std::vector<hinted_variant> variants = {
      {"cws-hinted", cws::policy::hinted, block_cyclic},
      {"cws-hinted-hpt", cws::policy::hinted_hpt, block_cyclic},
      {"cws-random-ft", cws::policy::random, first_touch},
      {"cws-random-il", cws::policy::random, interleaved},
      {"cws-evolve", cws::policy::evolve, first_touch},
      {"cws-evolve-hinted", cws::policy::evolve_hinted, block_cyclic},
  };
  return variants;
}

}  // namespace cws_apps
