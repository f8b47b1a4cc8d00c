#pragma once
// A schedule under a policy the test defines, and that very policy object,
// for tests that steer the core through scheduling_policy's hooks.
#include <memory>
#include <stdexcept>
#include <string>

#include "cws/cws.hpp"

namespace cws::test {

template <class Policy>
struct own_policy_schedule {
  cws::schedule& schedule;
  Policy& policy;
};

// Registers `Policy` (default-constructed) as `policy_name` -- the registry
// is process-wide and outlives the test; registering the name again replaces
// its factory -- and makes schedule `schedule_name` of `rt` under it.
template <class Policy>
own_policy_schedule<Policy> schedule_under_own_policy(cws::runtime& rt, const std::string& schedule_name,
                                                      const std::string& policy_name) {
  static Policy* made = nullptr;
  made = nullptr;
  cws::policy_registry::add(policy_name, [] {
    auto p = std::make_unique<Policy>();
    made = p.get();
    return p;
  });
  cws::schedule& s = rt.schedule(schedule_name, policy_name);
  if (made == nullptr) throw std::logic_error("the schedule did not make its policy from the registry");
  return {s, *made};
}

}  // namespace cws::test
