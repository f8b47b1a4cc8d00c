#pragma once
// Phases per cws::ran_as, counted by an app after each rt.run of a measured
// solve. That count runs between the phases, inside the timed solve that
// TBB and OpenMP run without it, so it is an array indexed by the enum: a
// map keyed by the token string cost a string and a lookup of cold nodes per
// phase. The tokens appear only when the report is written.
//
//   cws_apps::ran_as_counts counts;
//   counts.add(report.ran_as);            // per phase
//   entry["ran_as"] = counts.by_token();  // {"stows": 1200, "relws": 3}
//
// Header-only.

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include <cws/cws.hpp>

namespace cws_apps {

class ran_as_counts {
 public:
  void add(cws::ran_as r) noexcept { ++counts_[slot(r)]; }
  std::uint64_t of(cws::ran_as r) const noexcept { return counts_[slot(r)]; }
  // The kinds that occurred, by their cws::to_string token.
  std::map<std::string, std::uint64_t> by_token() const {
    std::map<std::string, std::uint64_t> out;
    for (std::size_t i = 0; i < kinds; ++i)
      if (counts_[i] != 0) out[std::string(cws::to_string(static_cast<cws::ran_as>(i)))] = counts_[i];
    return out;
  }

 private:
  // random_released is the last enumerator (run_report.hpp); a later one
  // would be counted as `other` until this learns of it.
  static constexpr std::size_t kinds = static_cast<std::size_t>(cws::ran_as::random_released) + 1;
  static std::size_t slot(cws::ran_as r) noexcept {
    const auto i = static_cast<std::size_t>(r);
    return i < kinds ? i : static_cast<std::size_t>(cws::ran_as::other);
  }
  std::array<std::uint64_t, kinds> counts_{};
};

}  // namespace cws_apps
