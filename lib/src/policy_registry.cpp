#include <map>
#include <mutex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cws/error.hpp"
#include "cws/policy.hpp"
#include "random_policy.hpp"

// Defined by cws::cws (traces/src/components.cpp), absent in a program that
// links cws::core only (runtime.cpp calls it).
extern "C" void cws_register_components() __attribute__((weak));

namespace cws {

namespace {
struct entry {
  policy_registry::factory make;
  policy_traits traits;
};

struct registry {
  std::mutex mutex;
  std::map<std::string, entry, std::less<>> policies{
      {"random", {[] { return std::make_unique<detail::random_policy>(); }, {}}},
  };
};

registry& instance() {
  static registry r;
  return r;
}

// The registered policy `name`; throws for an unknown one. Call under r.mutex.
const entry& registered(registry& r, std::string_view name) {
  auto it = r.policies.find(name);
  if (it != r.policies.end()) return it->second;
  std::vector<std::string> valid;
  for (const auto& [n, e] : r.policies) valid.push_back(n);
  if (cws_register_components == nullptr)
    throw error(
        fmt::format("policy '{}' is not linked into this program: it links cws::core only, whose policies are {}; "
                    "the replay and hinted policies come with cws::cws (target_link_libraries(... cws::cws), or "
                    "pkg-config cws)",
                    name, fmt::join(valid, ", ")));
  throw error(fmt::format("unknown policy '{}' (valid: {})", name, fmt::join(valid, ", ")));
}
}  // namespace

void policy_registry::add(std::string name, factory make, policy_traits traits) {
  if (name.empty() || !make) throw error("policy_registry::add: a policy needs a name and a factory");
  registry& r = instance();
  std::lock_guard lock(r.mutex);
  r.policies.insert_or_assign(std::move(name), entry{std::move(make), traits});
}

std::unique_ptr<scheduling_policy> policy_registry::create(std::string_view name) {
  registry& r = instance();
  std::lock_guard lock(r.mutex);
  return registered(r, name).make();
}

policy_traits policy_registry::traits(std::string_view name) {
  // A program may ask before it made a runtime, which is what registers the
  // components' policies (idempotent).
  if (cws_register_components != nullptr) cws_register_components();
  registry& r = instance();
  std::lock_guard lock(r.mutex);
  return registered(r, name).traits;
}

std::vector<std::string> policy_registry::names() {
  registry& r = instance();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> out;
  for (const auto& [n, e] : r.policies) out.push_back(n);
  return out;
}

}  // namespace cws
