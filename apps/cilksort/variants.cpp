#include "cilksort/variants.hpp"

#include <omp.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/partitioner.h>

#include <algorithm>

#include "cilksort/fork_join.hpp"
#include "common/hinted_counts.hpp"
#include "common/hinted_recursion.hpp"
#include "common/hinted_variants.hpp"
#include "common/variant_runner.hpp"

namespace cilksort {

const std::vector<variant_spec>& all_variants() {
  static const std::vector<variant_spec> specs = [] {
    std::vector<variant_spec> s = {{"std-sort", flavour::std_sort}, {"serial", flavour::serial}};
    for (const cws_apps::hinted_variant& h : cws_apps::hinted_cws_variants())
      s.push_back({h.name, flavour::cws, h.policy, h.placement});
    s.insert(s.end(), {{"tbb-task-group", flavour::tbb_task_group},
                       {"tbb-parallel-sort", flavour::tbb_parallel_sort},
                       {"omp-tasks", flavour::omp_tasks}});
    return s;
  }();
  return specs;
}

std::vector<std::string> variant_names() {
  std::vector<std::string> names;
  for (const variant_spec& s : all_variants()) names.emplace_back(s.name);
  return names;
}

std::vector<variant> make_variants(cws::runtime& rt, const std::vector<std::string>& chosen) {
  std::vector<variant> variants;
  for (const variant_spec& s : all_variants()) {
    if (!cws_apps::is_chosen(chosen, s.name)) continue;
    variant v{.spec = s, .name = std::string(s.name)};
    if (v.is_cws()) {
      const std::string suffix = v.name.substr(4);
      v.sort_schedule = &rt.schedule("cilksort/" + suffix, s.policy);
      // The input writer of the block placements runs hinted (each block on
      // its home node, as PufferFish's initializer); the others at random
      // (a first-touch array's pages go where random stealing puts them).
      v.init_schedule =
          &rt.schedule("cilksort-init/" + suffix,
                       s.placement == cws::numa::block_cyclic ? cws::policy::hinted : cws::policy::random);
    }
    variants.push_back(std::move(v));
  }
  return variants;
}

void problem::cut_input(unsigned workers) noexcept {
  constexpr std::size_t page_values = 4096 / sizeof(value);
  const std::size_t per_block = (n + 16 * std::size_t{workers} - 1) / (16 * std::size_t{workers});
  block = std::max<std::size_t>(1, (per_block + page_values - 1) / page_values) * page_values;
}

void sort_counters::add(const cws::phase_stats& s) {
  ++sorts;
  cws_apps::add_counts(work, s);
}

const digest& expected_digests::of(const generator& g) {
  auto it = by_seed_.find(g.seed);
  if (it == by_seed_.end()) it = by_seed_.emplace(g.seed, digest_of(g, n_)).first;
  return it->second;
}

void prepare(variant& v, cws_apps::bench_env& env, const problem& p, const cws_apps::run_plan& plan) {
  const bool binds = v.spec.placement != cws::numa::first_touch;
  v.a.emplace(cws::numa::allocate<value>(p.n, v.spec.placement));
  if (binds) cws::numa::prefault_zero(*v.a);
  if (v.needs_scratch()) {
    v.t.emplace(cws::numa::allocate<value>(p.n, v.spec.placement));
    if (binds) cws::numa::prefault_zero(*v.t);
  }
  // The sort schedule's iteration count before the first warm-up run starts the map.
  if (v.is_cws())
    v.sort_lines.emplace(
        cws_apps::run_map{v.sort_schedule->iterations(), p.iters, plan.warmup, plan.warmup + plan.runs});
  write_input(v, env, p, p.input_of(0, 0), true);
}

void release(variant& v) noexcept {
  v.a.reset();
  v.t.reset();
}

double write_input(variant& v, cws_apps::bench_env& env, const problem& p, const generator& g, bool touch_scratch) {
  value* const a = v.a->data();
  value* const t = touch_scratch && v.t ? v.t->data() : nullptr;
  const std::size_t n = p.n, block = p.block, blocks = p.blocks();
  // Blocks [kl, kh) of the input; every flavour cuts the array into the same blocks.
  const auto write = [a, t, g, n, block](std::size_t kl, std::size_t kh) {
    const std::size_t lo = kl * block, hi = std::min(n, kh * block);
    fill(a, g, lo, hi);
    if (t != nullptr) std::fill(t + lo, t + hi, value{0});
  };
  switch (v.spec.how) {
    case flavour::std_sort:
    case flavour::serial:
      return cws_apps::seconds_of([&] { write(0, blocks); });
    case flavour::cws: {
      const cws::numa::array<value>* const arr = &*v.a;
      // Hinted like every other spawn of the app: under the hinted policies
      // each block is written on its home node; elsewhere the block's
      // writer is its first toucher.
      const auto hint_of = [arr, n, block](std::size_t kl, std::size_t kh) {
        return cws::hint(*arr, kl * block, std::min(n, kh * block));
      };
      return cws_apps::seconds_of([&] {
        env.rt().run(*v.init_schedule,
                     [&] { cws_apps::hinted_for(cws_apps::recursion::regular, 0, blocks, 1, hint_of, write); });
      });
    }
    case flavour::tbb_task_group:
    case flavour::tbb_parallel_sort:
      return cws_apps::seconds_of([&] {
        env.in_tbb([&] {
          tbb::parallel_for(
              tbb::blocked_range<std::size_t>(0, blocks, 1),
              [&](const tbb::blocked_range<std::size_t>& r) { write(r.begin(), r.end()); }, tbb::simple_partitioner());
        });
      });
    case flavour::omp_tasks:
      return cws_apps::seconds_of([&] {
#pragma omp parallel for schedule(static)
        for (std::size_t k = 0; k < blocks; ++k) write(k, k + 1);
      });
  }
  return 0;
}

double sort_once(variant& v, cws_apps::bench_env& env, const problem& p, bool measured) {
  value* const a = v.a->data();
  const std::size_t n = p.n;
  const sort_setup setup{a, v.t ? v.t->data() : nullptr, &*v.a, p.quick_size, p.merge_size, p.hints()};
  switch (v.spec.how) {
    case flavour::std_sort:
      return cws_apps::seconds_of([&] { std::sort(a, a + n); });
    case flavour::serial:
      return cws_apps::seconds_of([&] { recursion<serial_group>(setup).sort(0, n); });
    case flavour::cws: {
      if (measured && !v.measuring) v.clock.reset(), v.measuring = true;
      cws_apps::cws_phase_clock unmeasured;
      cws_apps::cws_phase_clock& clock = measured ? v.clock : unmeasured;
      const double s = clock.run([&]() -> const cws::run_report& {
        return env.rt().run(*v.sort_schedule, [&] { recursion<cws_group>(setup).sort(0, n); });
      });
      const cws::run_report& report = *v.sort_schedule->last_report();
      v.sort_lines->add(env.rt(), *v.sort_schedule);
      if (measured) v.counters.add(report);
      return s;
    }
    case flavour::tbb_task_group:
      return cws_apps::seconds_of([&] { env.in_tbb([&] { recursion<tbb_group>(setup).sort(0, n); }); });
    case flavour::tbb_parallel_sort:
      return cws_apps::seconds_of([&] { env.in_tbb([&] { tbb::parallel_sort(a, a + n); }); });
    case flavour::omp_tasks: {
      const recursion<omp_group> sorter(setup);
      return cws_apps::seconds_of([&] {
#pragma omp parallel
#pragma omp single
        sorter.sort(0, n);
      });
    }
  }
  return 0;
}

void one_run(variant& v, cws_apps::bench_env& env, const problem& p, expected_digests& expected,
             cws_apps::phase_timer& t) {
  const unsigned run = v.runs_done++;
  unsigned rep = 0;
  double init_s = 0;
  t.time_reported("sort", p.iters, [&] {
    const generator g = p.input_of(run, rep++);
    init_s += write_input(v, env, p, g, false);
    const double s = sort_once(v, env, p, t.recording());
    if (p.corrupt_output) corrupt(v.a->data(), p.n);
    ++v.checked;
    if (v.failure.empty()) {
      const std::string wrong = check_sorted(v.a->data(), p.n, expected.of(g));
      if (!wrong.empty()) v.failure = "run " + std::to_string(run) + ": " + wrong;
    }
    return s;
  });
  t.time_reported("init", 1, [&] { return init_s / p.iters; });
}

}  // namespace cilksort
