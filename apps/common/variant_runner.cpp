#include "common/variant_runner.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cws_apps {

void add_variants_option(CLI::App& app, std::vector<std::string>& chosen, const std::string& help, bool show_default) {
  CLI::Option* o = app.add_option("--variants", chosen, help)->delimiter(',')->check(CLI::IsMember(chosen));
  if (show_default) o->capture_default_str();
}

bool is_chosen(const std::vector<std::string>& chosen, std::string_view name) {
  return std::find(chosen.begin(), chosen.end(), name) != chosen.end();
}

json plan_params(const run_plan& plan) {
  return {{"runs", plan.runs}, {"warmup", plan.warmup}, {"order", to_string(plan.order)}};
}

json with_plan_params(json before, const run_plan& plan, const json& after) {
  before.update(plan_params(plan));
  before.update(after);
  return before;
}

void put_check(json& entry, std::vector<std::string>& wrong, const std::string& mismatch) {
  if (!mismatch.empty()) wrong.push_back(mismatch);
  entry["verified"] = mismatch.empty();
}

int report_failures(const std::string& app_name, const std::vector<std::string>& wrong, const std::string& more) {
  if (wrong.empty()) return 0;
  const std::string others = wrong.size() > 1 ? fmt::format(" (and {} more{})", wrong.size() - 1, more) : "";
  return report_error(app_name, (wrong.front() + others).c_str(), 1);
}

void variant_runner::add_ratios(const std::vector<ratio_spec>& ratios) const {
  for (const ratio_spec& r : ratios) out_.add_ratio(r.name, r.key, r.baseline);
  env_.save_trace();
}

int variant_runner::print_and_report(const std::string& caption, const std::vector<column>& columns,
                                     std::vector<std::string> notes) const {
  notes.insert(notes.end(), notes_.begin(), notes_.end());
  out_.print(opt_.json, caption, columns, notes);
  for (const std::string& w : wrong_) report_error(app_name_, w.c_str(), 1);
  return wrong_.empty() ? 0 : 1;
}

}  // namespace cws_apps
