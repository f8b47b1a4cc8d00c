#pragma once
// Per-schedule state of an app's observer (locality_tally, counter_tally):
// found by phase_info::schedule_index, an index into a vector, after every
// phase, and by name when the figures are read. An observer runs inside
// rt.run, between two phases of a timed solve, so a name lookup there would
// be the app's cost charged to cws: a string compare per map node, each on a
// line the solve's data has evicted since the schedule last ran.
//
//   cws_apps::per_schedule<log> logs;
//   logs.of(stats.phase).push_back(...);   // in on_phase_end
//   if (const log* l = logs.find("heat-step/evolve")) ...
//
// Header-only. Like every observer, used between phases on the runtime's
// calling thread.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <cws/cws.hpp>

namespace cws_apps {

template <class T>
class per_schedule {
 public:
  // The state of the phase's schedule, made empty the first time.
  T& of(const cws::phase_info& phase) {
    const std::uint32_t i = phase.schedule_index;
    if (i < by_index_.size() && by_index_[i] != nullptr) return *by_index_[i];
    T& t = named(phase.schedule);
    if (i != cws::phase_info::no_schedule_index) {
      if (i >= by_index_.size()) by_index_.resize(i + 1, nullptr);
      by_index_[i] = &t;
    }
    return t;
  }
  // The state of schedule `name`, made empty the first time (for what only
  // names its schedule, as a relocalization report).
  T& named(std::string_view name) {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) it = by_name_.emplace(std::string(name), T{}).first;
    return it->second;
  }
  const T* find(std::string_view name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, T, std::less<>> by_name_;  // nodes never move: by_index_ points into them
  std::vector<T*> by_index_;
};

}  // namespace cws_apps
