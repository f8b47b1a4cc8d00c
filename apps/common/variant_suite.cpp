#include "common/variant_suite.hpp"

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

void put_plan(json& params, const run_plan& plan) {
  params["runs"] = plan.runs;
  params["warmup"] = plan.warmup;
  params["order"] = to_string(plan.order);
}

int report_failures(const std::string& app_name, const std::vector<std::string>& wrong, const std::string& more) {
  if (wrong.empty()) return 0;
  const std::string others = wrong.size() > 1 ? fmt::format(" (and {} more{})", wrong.size() - 1, more) : "";
  return report_error(app_name, (wrong.front() + others).c_str(), 1);
}

}  // namespace cws_apps
