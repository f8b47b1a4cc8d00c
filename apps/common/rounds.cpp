#include "common/rounds.hpp"

#include <algorithm>

#include "common/settle.hpp"

namespace cws_apps {

std::vector<std::size_t> round_order(std::size_t count, unsigned round) {
  std::vector<std::size_t> order;
  order.reserve(count);
  if (count == 0) return order;
  // First row 0, 1, count-1, 2, count-2, ...: the steps between neighbours
  // are all different mod count, which is what balances the successors.
  for (std::size_t k = 0, low = 1, high = count - 1; k < count; ++k) {
    const std::size_t first = k == 0 ? 0 : (k % 2 ? low++ : high--);
    order.push_back((first + round) % count);
  }
  if (count % 2 == 1 && (round / count) % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

std::vector<phase_timer> measure_variants(const std::vector<timed_variant>& variants, const run_plan& plan) {
  std::vector<phase_timer> timers;
  timers.reserve(variants.size());
  for (const timed_variant& v : variants) timers.emplace_back(v.name);
  const auto prepare = [&](std::size_t i) {
    if (variants[i].prepare) variants[i].prepare();
    settle();  // a prepare writes the input under its runtime, whose threads then spin
  };
  const auto finish = [&](std::size_t i) {
    if (variants[i].finish) variants[i].finish(timers[i]);
  };
  const auto run = [&](std::size_t i, bool measured) {
    timers[i].set_recording(measured);
    variants[i].one_run(timers[i]);
    settle();  // settle.hpp: the next run starts with this one's threads idle
  };

  if (plan.order == run_order::sequential) {
    for (std::size_t i = 0; i < variants.size(); ++i) {
      prepare(i);
      for (unsigned r = 0; r < plan.warmup; ++r) run(i, false);
      for (unsigned r = 0; r < plan.runs; ++r) run(i, true);
      finish(i);
    }
    return timers;
  }
  for (std::size_t i = 0; i < variants.size(); ++i) prepare(i);
  for (unsigned r = 0; r < plan.warmup; ++r)
    for (std::size_t i : round_order(variants.size(), r)) run(i, false);
  for (unsigned r = 0; r < plan.runs; ++r)
    for (std::size_t i : round_order(variants.size(), r)) run(i, true);
  for (std::size_t i = 0; i < variants.size(); ++i) finish(i);
  return timers;
}

}  // namespace cws_apps
