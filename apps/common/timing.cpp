#include "common/timing.hpp"

#include <algorithm>
#include <stdexcept>

namespace cws_apps {

const char* to_string(run_order o) noexcept { return o == run_order::sequential ? "sequential" : "interleaved"; }

double samples::median() const {
  if (values_.empty()) return 0;
  std::vector<double> v = values_;
  std::sort(v.begin(), v.end());
  std::size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

double samples::min() const { return values_.empty() ? 0 : *std::min_element(values_.begin(), values_.end()); }

const samples& phase_timer::operator[](std::string_view phase) const {
  for (const auto& [name, s] : phases_)
    if (name == phase) return s;
  throw std::out_of_range("no timings recorded for phase '" + std::string(phase) + "' of " + variant_);
}

samples& phase_timer::series(std::string_view phase) {
  for (auto& [name, s] : phases_)
    if (name == phase) return s;
  return phases_.emplace_back(std::string(phase), samples{}).second;
}

}  // namespace cws_apps
