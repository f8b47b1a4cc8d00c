#include "cg/runner.hpp"

#include <utility>

namespace cg {

namespace {
std::vector<cws::schedule*> one_per_kernel(std::vector<cws::schedule*> s) {
  s.resize(kernel_count, nullptr);
  return s;
}
}  // namespace

loops_runner::loops_runner(cws_apps::bench_env& env, cws_apps::loop_flavour flavour, std::size_t blocks,
                           std::vector<cws::schedule*> schedules, bool serial_init)
    : env_(env),
      blocks_(blocks),
      schedules_(one_per_kernel(std::move(schedules))),
      serial_init_(serial_init),
      loops_(env, flavour, blocks, 1, schedules_),
      logs_(kernel_count) {}

double loops_runner::run(kernel k, const block_body& body) {
  double s = 0;
  if (k != kernel::init || !serial_init_)
    s = loops_.run(index(k), body);
  else if (!loops_.runs_cws_phases())
    return cws_apps::seconds_of([&] { body(0, blocks_); });
  else
    s = cws_apps::seconds_of([&] { env_.rt().run(*schedules_[index(k)], [&] { body(0, blocks_); }); });
  if (!loops_.runs_cws_phases()) return s;
  kernel_log& log = logs_[index(k)];
  if (const cws::run_report* r = schedules_[index(k)]->last_report()) {
    if (measuring_) log.ran_as.add(r->ran_as);
    if (r->converged && !log.converged_at) log.converged_at = log.phases;
  }
  ++log.phases;
  if (lines_ && k == lines_kernel_) lines_->add(env_.rt(), *schedules_[index(k)]);
  return s;
}

const std::vector<cws_apps::iteration_line>& loops_runner::lines() const {
  static const std::vector<cws_apps::iteration_line> none;
  return lines_ ? lines_->lines() : none;
}

}  // namespace cg
