// The `hinted` and `hinted-hpt` policies: hinted_engine as a scheduling
// policy (schedulers/include/cws/schedulers/policies.hpp).

#include "hinted_policy.hpp"

#include <memory>
#include <string>

#include "cws/run_report.hpp"
#include "cws/runtime.hpp"
#include "cws/schedulers/knobs.hpp"
#include "cws/schedulers/policies.hpp"
#include "hinted_engine.hpp"
#include "policy_kinds.hpp"

namespace cws::schedulers::detail {

namespace {

class hinted_policy final : public scheduling_policy {
 public:
  hinted_policy(std::string_view name, hinted_mode mode) : name_(name), mode_(mode) {}

  std::string_view name() const noexcept override { return name_; }
  void attach(const policy_context& ctx) override {
    engine_.attach(ctx.runtime.places(), knobs_of(ctx.runtime.config()).hinted, mode_);
  }
  bool routes_hints() const noexcept override { return true; }
  place_target place_for(worker_view& view, const hint_home& home) override { return engine_.place_for(view, home); }
  task_handle find_work(worker_view& view) override { return engine_.find_work(view); }
  void end_phase(run_report& report) override {
    report.ran_as = ran_as::hinted;
    report.planned = ran_as::hinted;
  }

 private:
  std::string name_;
  hinted_mode mode_;
  hinted_engine engine_;
};

}  // namespace

void register_hinted_policies() {
  policy_registry::add(
      std::string(policy::hinted),
      [] { return std::make_unique<hinted_policy>(policy::hinted, hinted_mode::pufferfish); }, hinted_traits);
  policy_registry::add(
      std::string(policy::hinted_hpt), [] { return std::make_unique<hinted_policy>(policy::hinted_hpt, hinted_mode::hpt); },
      hinted_traits);
}

}  // namespace cws::schedulers::detail
