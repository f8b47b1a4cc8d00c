#pragma once
// A schedule whose template a test built by hand, for the replaying policies
// and for `user` (designations: no template to seed).
#include <memory>
#include <string>
#include <string_view>

#include "cws/cws.hpp"
#include "cws/schedulers/schedule_store.hpp"

namespace cws::test {

struct seeded_schedule {
  cws::schedule& schedule;
  std::shared_ptr<const steal_tree::tree> templ;  // the seeded template (null under user)
  // The template the schedule holds now (null under user).
  std::shared_ptr<const steal_tree::tree> current(cws::runtime& rt) const {
    return templ ? schedulers::store_of(rt).at(schedule.name()).templ : nullptr;
  }
};

// `name` under `policy`, seeded with `t` unless the policy is user.
inline seeded_schedule seed_unless_user(cws::runtime& rt, const std::string& name, std::string_view policy,
                                        steal_tree::tree t) {
  const bool user = policy == cws::policy::user;
  auto& store = schedulers::store_of(rt);
  if (!user) store.seed(name, std::move(t), "hand-built");
  cws::schedule& s = rt.schedule(name, policy);
  return {s, user ? nullptr : store.at(name).templ};
}

}  // namespace cws::test
