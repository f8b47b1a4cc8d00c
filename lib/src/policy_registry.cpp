#include <map>
#include <mutex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cws/error.hpp"
#include "cws/policy.hpp"
#include "random_policy.hpp"

namespace cws {

namespace {
struct registry {
  std::mutex mutex;
  std::map<std::string, policy_registry::factory, std::less<>> factories{
      {"random", [] { return std::make_unique<detail::random_policy>(); }},
  };
};
registry& instance() {
  static registry r;
  return r;
}
}  // namespace

void policy_registry::add(std::string name, factory make) {
  if (name.empty() || !make) throw error("policy_registry::add: a policy needs a name and a factory");
  registry& r = instance();
  std::lock_guard lock(r.mutex);
  r.factories.insert_or_assign(std::move(name), std::move(make));
}

std::unique_ptr<scheduling_policy> policy_registry::create(std::string_view name) {
  registry& r = instance();
  std::lock_guard lock(r.mutex);
  auto it = r.factories.find(name);
  if (it == r.factories.end()) {
    std::vector<std::string> valid;
    for (const auto& [n, f] : r.factories) valid.push_back(n);
    // Names cws::cws provides, for a program that linked only cws::core.
    for (std::string_view replay : {"stows", "stuws", "relws", "evolve", "user"})
      if (name == replay)
        throw error(
            fmt::format("policy '{}' is not linked into this program: the replay policies come with cws::cws "
                        "(target_link_libraries(... cws::cws), or pkg-config cws); available here: {}",
                        name, fmt::join(valid, ", ")));
    throw error(fmt::format("unknown policy '{}' (valid: {})", name, fmt::join(valid, ", ")));
  }
  return it->second();
}

std::vector<std::string> policy_registry::names() {
  registry& r = instance();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> out;
  for (const auto& [n, f] : r.factories) out.push_back(n);
  return out;
}

}  // namespace cws
