#include "pcg/kernel_schedules.hpp"

#include <string_view>

#include "common/bench_env.hpp"
#include "pcg/schedule_file.hpp"

namespace pcg {

std::vector<cws::schedule*> kernel_schedules(cws::runtime& rt, const std::string& policy, const std::string& suffix,
                                             const std::vector<std::string>& kernels, const std::string& key,
                                             bool follow) {
  const std::string spmv = schedule_name(suffix, "spmv", key);
  std::vector<cws::schedule*> schedules;
  for (const std::string& k : kernels) {
    const bool rare = follow && (k == "init" || k == "start");
    const std::string_view kernel_policy = k == "check" ? "random" : rare ? cws::policy::stows : policy;
    cws::schedule& s = rt.schedule(schedule_name(suffix, k, key), kernel_policy);
    if (cws_apps::replays(policy) && k != "spmv" && k != "check" && (follow || k == "init")) s.follow(spmv);
    schedules.push_back(&s);
  }
  return schedules;
}

}  // namespace pcg
