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
      loops_(env, flavour, blocks, 1, schedules_) {}

double loops_runner::run(kernel k, const block_body& body) {
  if (k != kernel::init || !serial_init_) return loops_.run(index(k), body);
  if (!loops_.runs_cws_phases()) return cws_apps::seconds_of([&] { body(0, blocks_); });
  return cws_apps::seconds_of([&] { env_.rt().run(*schedules_[index(k)], [&] { body(0, blocks_); }); });
}

}  // namespace cg
