#pragma once
// The locality checks shared by the synthetic-topology suite
// (tests/schedulers/test_locality_replay.cpp, simulated page homes) and the
// numa-vm suite (tests/numa_vm, the kernel's page homes):
//   * schedule follows data: memcopy's copy replaying init's template under
//     STOWS is local and relocalizing it moves nothing;
//   * random stealing over first-touched pages loses locality (in some runs:
//     two random trees can coincide), interleaved pages are ~1/N local;
//   * evolve relocalizes heat's pages until it has converged and a stows run
//     finds them in place, then stays as local as the touches allow (>= 99%)
//     and moves nothing more; the result equals a serial run.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cws/cws.hpp"
#include "support/locality_scenarios.hpp"

namespace cws::test {

inline void check_copy_follows_init(const runtime_config& cfg) {
  cws::runtime rt(cfg);
  memcopy_scenario m(rt, 16);
  auto& init = rt.schedule("init", "stows");
  auto& copy = rt.schedule("copy", "stows").follow("init");
  m.init(init);  // no template yet: random; first touch places the pages
  EXPECT_GE(share_of(init), 0.99) << rt.page_homes().name();
  for (int it = 0; it < 5; ++it) {
    m.copy(copy);
    EXPECT_GE(share_of(copy), 0.99) << "copy " << it;
  }
  EXPECT_TRUE(m.copied());
  const relocalization_report& r = rt.relocalize(copy);
  EXPECT_EQ(r.pages_examined, 2 * m.n * sizeof(double) / system_page());
  EXPECT_EQ(r.pages_moved, 0u);
  EXPECT_EQ(r.pages_failed, 0u);
  EXPECT_TRUE(m.copied());
}

inline void check_random_and_interleave(const runtime_config& cfg) {
  cws::runtime rt(cfg);
  const unsigned nodes = rt.topology().numa_nodes();
  std::vector<double> random_shares, interleaved_shares;
  double lowest_random = 1.0;
  // When one worker does all of init (a loaded machine), every page is on its
  // node and a copy by that worker is local again: only runs whose init was
  // shared (a steal, so pages on two nodes at least) count, up to 8 of them
  // in 40 attempts. The copy may run on any workers: that is what random
  // stealing does to it.
  for (int attempt = 0; attempt < 40 && random_shares.size() < 8; ++attempt) {
    memcopy_scenario m(rt, 16);
    auto& init = rt.schedule("init/random");
    auto& copy = rt.schedule("copy/random");
    m.init(init);
    m.copy(copy, static_cast<std::uint64_t>(attempt) + 1);  // uneven leaves: see memcopy_scenario::copy
    EXPECT_TRUE(m.copied());
    if (init.last()->steals() == 0) continue;
    random_shares.push_back(share_of(copy));
    lowest_random = std::min(lowest_random, random_shares.back());
    memcopy_scenario mi(rt, 16, cws::numa::interleaved);
    mi.init(rt.schedule("init/interleaved"));
    interleaved_shares.push_back(share_of(rt.schedule("init/interleaved")));
  }
  if (random_shares.size() < 3) GTEST_SKIP() << "no worker ever stole from init's (machine too loaded)";
  const double random_mean = mean_share(random_shares), interleaved_mean = mean_share(interleaved_shares);
  std::printf("  %u nodes (%s): random + first touch %.1f%% local (lowest %.1f%%), random + interleave %.1f%%\n", nodes,
              rt.page_homes().name().c_str(), 100 * random_mean, 100 * lowest_random, 100 * interleaved_mean);
  // Page p on node p % N: whatever the schedule, about 1/N of the bytes are local.
  EXPECT_NEAR(interleaved_mean, 1.0 / nodes, 0.15);
  // Two independent random trees can still coincide, so only some runs must lose locality.
  EXPECT_LT(lowest_random, 0.9);
}

// Share of the bytes the latest run of `s` touched that the best placement of
// its pages could make local: each page on the node that touched most of it.
inline double best_share(const cws::runtime& rt, const cws::schedule& s) {
  std::vector<unsigned> node_of_worker;
  for (const cws::worker_placement& w : rt.placement()) node_of_worker.push_back(w.numa_node);
  const unsigned nodes = rt.topology().numa_nodes();
  const cws::page_usage u = cws::usage_of(s.touches(), node_of_worker, nodes, system_page());
  std::vector<int> best_homes(u.pages.size());
  for (std::size_t p = 0; p < u.pages.size(); ++p)
    best_homes[p] = static_cast<int>(cws::desired_node(u, p, cws::unknown_home));
  return cws::measure_locality(u, best_homes).share();
}

inline void check_evolve_heat(const runtime_config& cfg, unsigned steps = 20) {
  cws::runtime rt(cfg);
  // Leaves of a quarter of a worker's rows: whatever tree evolve converges to,
  // at most 4W - 1 leaf boundaries cross nodes, each costing two halo rows
  // read remotely, under 0.8% of the bytes. So >= 99% local is what placing
  // every page where the template runs must give, on any machine load.
  heat_scenario h(rt, 512, 128);
  h.init(rt.schedule("heat-init"));  // random, first touch
  auto& step = rt.schedule("heat-step", "evolve");
  std::vector<double> shares, best;
  for (unsigned it = 0; it < steps; ++it) {
    h.step(step);
    shares.push_back(share_of(step));
    best.push_back(best_share(rt, step));
  }
  EXPECT_DOUBLE_EQ(h.checksum(), heat_scenario::serial_checksum(h.rows, steps));

  const auto* state = cws::schedulers::store_of(rt).find("heat-step");
  ASSERT_NE(state, nullptr);
  std::string history;
  for (const auto& r : state->history)
    history += "\n  #" + std::to_string(r.iteration) + " " + r.label() + " moved " +
               (r.pages_moved ? std::to_string(*r.pages_moved) : std::string("-")) + " " + r.note + " " + r.divergence;
  ASSERT_TRUE(state->converged) << "evolve did not converge within " << steps << " iterations:" << history;
  ASSERT_TRUE(state->pages_settled) << "pages still moving after " << steps << " iterations:" << history;
  ASSERT_EQ(state->history.size(), steps);
  // Relocalized after every run up to convergence and after the stows runs
  // until one moved nothing (heat alternates its grids: one or two of them;
  // one more when evolve converged to an earlier, better tree than the last
  // relws run, whose pages the first stows run moves back), never after that.
  const std::uint64_t converged_at = state->converged_at;
  const relocalization_report* last = step.last_relocalization();
  ASSERT_NE(last, nullptr);
  EXPECT_GT(last->iteration, converged_at) << history;
  EXPECT_LE(last->iteration, converged_at + 3) << history;
  EXPECT_EQ(last->pages_moved, 0u) << history;
  std::uint64_t last_move = 0;
  for (const auto& r : state->history) {
    EXPECT_EQ(r.pages_moved.has_value(), r.iteration <= last->iteration) << "iteration " << r.iteration << history;
    if (r.pages_moved.value_or(0) > 0) last_move = r.iteration;
  }
  // From the first run that found every page in place: as local as any
  // placement of these touches can be, and so at least 99%.
  for (std::uint64_t it = last_move + 1; it < steps; ++it) {
    EXPECT_DOUBLE_EQ(shares[it], best[it])
        << "iteration " << it << " (pages placed after " << last_move << ")" << history;
    EXPECT_GE(shares[it], 0.99) << "iteration " << it << " (pages placed after " << last_move << ")" << history;
  }
  std::printf(
      "  %u nodes (%s): evolve converged at iteration %llu, pages in place from %llu; local share first "
      "%.1f%%, last %.2f%% (best placement %.2f%%)\n",
      rt.topology().numa_nodes(), rt.page_homes().name().c_str(), static_cast<unsigned long long>(converged_at),
      static_cast<unsigned long long>(last_move + 1), 100 * shares.front(), 100 * shares.back(), 100 * best.back());
  EXPECT_EQ(rt.relocalize(step).pages_moved, 0u);
}

}  // namespace cws::test
