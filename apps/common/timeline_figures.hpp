#pragma once
// The breakdown of cws phases (cws::phase_timeline) as figures: the median
// of each part over the phases added, as JSON in microseconds.
//
// Only phases run while the runtime timed them (runtime::time_phases) carry
// a timeline. cws-phases times extra calls after a variant's measured runs,
// so that its headline times carry no clock reads; the other apps time their
// measured phases themselves with --phase-timeline (cws_phase_clock).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <cws/phase_timeline.hpp>
#include <nlohmann/json.hpp>

#include "common/samples.hpp"

namespace cws_apps {

class timeline_figures {
 public:
  // The parts cws-phases tabulates, {table title, key of to_json}, in the table's order.
  static constexpr std::pair<const char*, const char*> table_parts[] = {
      {"setup", "setup_us"},     {"fork", "fork_us"},         {"1st steal", "first_steal_us"},
      {"leaves", "leaves_us"},   {"join", "join_us"},         {"out", "helpers_out_us"},
      {"collect", "collect_us"}, {"locality", "locality_us"}, {"observers", "observers_us"},
      {"policy", "policy_us"},   {"reloc", "relocalize_us"},  {"total", "total_us"}};

  void add(const cws::phase_timeline& t) {
    setup_.add(t.setup_s);
    fork_.add(t.fork_s);
    if (t.first_steal_s) first_steal_.add(*t.first_steal_s);
    leaves_.add(t.leaves_s);
    join_.add(t.join_s);
    helpers_out_.add(t.helpers_out_s);
    collect_.add(t.collect_s);
    locality_.add(t.locality_s);
    observers_.add(t.observers_s);
    policy_.add(t.policy_s);
    relocalize_.add(t.relocalize_s);
    after_.add(t.after_phase_s());
    total_.add(t.total_s);
    pages_.push_back(t.locality_pages);
  }
  std::size_t calls() const noexcept { return total_.size(); }

  // Microseconds, medians over the calls (each part on its own); first_steal
  // over the calls in which a helper stole (null when none did).
  nlohmann::ordered_json to_json() const {
    using json = nlohmann::ordered_json;
    const auto us = [](const samples& s) { return s.size() ? json(s.median() * 1e6) : nullptr; };
    std::vector<std::uint64_t> pages = pages_;
    std::sort(pages.begin(), pages.end());
    return {{"calls", calls()},
            {"setup_us", us(setup_)},
            {"fork_us", us(fork_)},
            {"first_steal_us", us(first_steal_)},
            {"calls_with_steals", first_steal_.size()},
            {"leaves_us", us(leaves_)},
            {"join_us", us(join_)},
            {"helpers_out_us", us(helpers_out_)},
            {"collect_us", us(collect_)},
            {"locality_us", us(locality_)},
            {"observers_us", us(observers_)},
            {"policy_us", us(policy_)},
            {"relocalize_us", us(relocalize_)},
            {"after_phase_us", us(after_)},
            {"total_us", us(total_)},
            {"locality_pages_median", pages.empty() ? 0 : pages[pages.size() / 2]},
            {"locality_pages_max", pages.empty() ? 0 : pages.back()}};
  }

 private:
  samples setup_, fork_, first_steal_, leaves_, join_, helpers_out_, collect_, locality_, observers_, policy_,
      relocalize_, after_, total_;
  std::vector<std::uint64_t> pages_;
};

}  // namespace cws_apps
