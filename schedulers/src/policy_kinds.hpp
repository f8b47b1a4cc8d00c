#pragma once
// The replaying policies (policies.hpp), as one table: each name, the kind of
// replay_policy it makes and the traits the registry answers for it. Read
// when the policies are registered; a replay_policy keeps its entry, so
// nothing decodes the name again after the factory ran.

#include <string_view>

#include "cws/policy.hpp"
#include "cws/schedulers/policies.hpp"

namespace cws::schedulers::detail {

enum class replay_kind {
  stows,          // strict, ordered
  stuws,          // strict, unordered
  relws,          // relaxed; every run is the next template
  evolve,         // relws until it converges, then stows
  coarsen,        // evolve, then a search over pruning depths
  evolve_hinted,  // evolve whose template-less runs run under `hinted`
  user,           // designations, run like stuws
};

struct replay_policy_kind {
  std::string_view name;
  replay_kind kind;
  policy_traits traits;
};

// `user` replays no template (it runs its program's designations, and ignores
// schedule::follow), so it does not count as replaying.
inline constexpr replay_policy_kind replay_policy_kinds[] = {
    {policy::stows, replay_kind::stows, {.replays = true, .elides = true}},
    {policy::stuws, replay_kind::stuws, {.replays = true, .elides = true}},
    {policy::relws, replay_kind::relws, {.replays = true}},
    {policy::evolve, replay_kind::evolve, {.replays = true, .evolves = true, .elides = true}},
    {policy::coarsen, replay_kind::coarsen, {.replays = true, .evolves = true, .elides = true}},
    {policy::evolve_hinted, replay_kind::evolve_hinted,
     {.replays = true, .evolves = true, .routes_hints = true, .elides = true}},
    {policy::user, replay_kind::user, {}},
};

// The hinted policies (hinted_policy.cpp) replay nothing; they place hinted spawns.
inline constexpr policy_traits hinted_traits{.routes_hints = true};

}  // namespace cws::schedulers::detail
