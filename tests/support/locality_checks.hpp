#pragma once
// The locality checks shared by the synthetic-topology suite
// (tests/schedulers/test_locality_replay.cpp, simulated page homes) and the
// numa-vm suite (tests/numa_vm, the kernel's page homes):
//   * schedule follows data: memcopy's copy replaying init's template under
//     STOWS is local and relocalizing it moves nothing;
//   * random stealing over first-touched pages is as local as first touch
//     by init's run makes that copy's run (computed from their touches: no
//     claim on what random stealing happens to do), interleaved pages are
//     1/N local (between 0 and 1/4 on 8 nodes, with leaves of 4 pages);
//   * evolve relocalizes heat's pages until it has converged and a stows run
//     finds them in place, then stays as local as the touches allow (>= 99%)
//     and moves nothing more; the result equals a serial run.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
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

// Share of the bytes `copy`'s latest run touched that lay on pages first
// touched (by `init`'s latest run) from the same node: the locality first
// touch gives that copy, whatever its schedule. Empty when some page was
// touched from two nodes in init (then the first toucher is not known).
inline std::optional<double> first_touch_share(const cws::runtime& rt, const cws::schedule& init,
                                               const cws::schedule& copy) {
  std::vector<unsigned> node_of_worker;
  for (const cws::worker_placement& w : rt.placement()) node_of_worker.push_back(w.numa_node);
  const unsigned nodes = rt.topology().numa_nodes();
  const cws::page_usage ui = cws::usage_of(init.touches(), node_of_worker, nodes, system_page());
  const cws::page_usage uc = cws::usage_of(copy.touches(), node_of_worker, nodes, system_page());
  std::map<std::uintptr_t, unsigned> home;
  for (std::size_t p = 0; p < ui.pages.size(); ++p)
    for (unsigned node = 0; node < nodes; ++node)
      if (ui.bytes_of(p, node) > 0 && !home.emplace(ui.pages[p], node).second) return std::nullopt;
  std::uint64_t local = 0, total = 0;
  for (std::size_t p = 0; p < uc.pages.size(); ++p)
    for (unsigned node = 0; node < nodes; ++node) {
      total += uc.bytes_of(p, node);
      auto it = home.find(uc.pages[p]);
      if (it != home.end() && it->second == node) local += uc.bytes_of(p, node);
    }
  return total == 0 ? 0.0 : static_cast<double>(local) / static_cast<double>(total);
}

// Random stealing need not lose locality (two random trees can coincide,
// and on a loaded machine one worker may run everything), so nothing here
// depends on what the schedules were: the copy's local share must be what
// first touch by init's run gives that copy's run (computed from the two
// runs' touches), and interleaved pages give what interleaving gives any
// schedule.
inline void check_random_and_interleave(const runtime_config& cfg) {
  cws::runtime rt(cfg);
  const unsigned nodes = rt.topology().numa_nodes();
  std::vector<double> random_shares, interleaved_shares;
  for (int attempt = 0; attempt < 4; ++attempt) {
    memcopy_scenario m(rt, 16);
    auto& init = rt.schedule("init/random");
    auto& copy = rt.schedule("copy/random");
    m.init(init);
    m.copy(copy, static_cast<std::uint64_t>(attempt) + 1);  // uneven leaves: see memcopy_scenario::copy
    EXPECT_TRUE(m.copied());
    const std::optional<double> expected = first_touch_share(rt, init, copy);
    // Leaves of four whole pages (memcopy_scenario::grain): no page has two touchers.
    ASSERT_TRUE(expected.has_value()) << "a page of init was touched from two nodes";
    random_shares.push_back(share_of(copy));
    // Simulated homes follow the first declared touch exactly. A kernel's
    // first touch may be an earlier one (a page the allocator handed out
    // again, a prefault): there the share is only a figure, never a claim.
    if (rt.page_homes().name() == "simulated") {
      EXPECT_NEAR(random_shares.back(), *expected, 1e-12) << "attempt " << attempt;
    } else {
      EXPECT_GE(random_shares.back(), 0.0);
      EXPECT_LE(random_shares.back(), 1.0);
    }
    memcopy_scenario mi(rt, 16, cws::numa::interleaved);
    mi.init(rt.schedule("init/interleaved"));
    interleaved_shares.push_back(share_of(rt.schedule("init/interleaved")));
    // Page p on node (p + first) % N: each leaf's four consecutive pages of
    // each array hold floor(4/N) to ceil(4/N) pages of any node, whichever
    // worker runs it (exactly 1/N on 2 and 4 nodes).
    const double lo = static_cast<double>(4 / nodes) / 4, hi = static_cast<double>((4 + nodes - 1) / nodes) / 4;
    EXPECT_GE(interleaved_shares.back(), lo - 1e-12) << "attempt " << attempt;
    EXPECT_LE(interleaved_shares.back(), hi + 1e-12) << "attempt " << attempt;
  }
  std::printf("  %u nodes (%s): random + first touch %.1f%% local, random + interleave %.1f%%\n", nodes,
              rt.page_homes().name().c_str(), 100 * mean_share(random_shares), 100 * mean_share(interleaved_shares));
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

inline void check_evolve_heat(runtime_config cfg, unsigned steps = 20) {
  cfg.history = steps;  // the checks read every step's report
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
  for (const auto& r : step.history())
    history += "\n  #" + std::to_string(r.phase.iteration) + " " + r.label() + " moved " +
               (r.relocalization() ? std::to_string(r.relocalization()->pages_moved) : std::string("-")) + " " +
               r.note + " " + (r.diverged() ? r.reason : std::string());
  ASSERT_TRUE(state->converged) << "evolve did not converge within " << steps << " iterations:" << history;
  ASSERT_TRUE(state->pages_settled) << "pages still moving after " << steps << " iterations:" << history;
  ASSERT_EQ(step.history().size(), steps);
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
  for (const auto& r : step.history()) {
    const relocalization_report* moved = r.relocalization();
    EXPECT_EQ(moved != nullptr, r.phase.iteration <= last->iteration) << "iteration " << r.phase.iteration << history;
    if (moved != nullptr && moved->pages_moved > 0) last_move = r.phase.iteration;
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
