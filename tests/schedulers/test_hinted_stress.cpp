// Place pushes under load: many phases of irregular hinted recursions over
// block-cyclic data on synthetic 2- and 4-node machines (oversubscribed on
// this host), with audit counts: every spawned task runs exactly once, none
// is lost on a growing place deque, and the statistics add up. Also under
// ThreadSanitizer (label tsan).

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "cws/cws.hpp"

namespace {

struct irregular_loop {
  cws::numa::array<std::uint32_t>* runs;
  std::atomic<std::uint64_t>* spawned;
  std::size_t tile;
  // A 2-, 3- or 4-way split chosen from the range, hints on every child;
  // some children hint two ranges (one of them spanning the whole array).
  void operator()(std::size_t lo, std::size_t hi) const {
    const std::size_t len = hi - lo;
    if (len <= tile) {
      for (std::size_t i = lo; i < hi; ++i) ++(*runs)[i];
      return;
    }
    const std::size_t ways = 2 + (lo / tile + len) % 3;
    std::size_t from = lo;
    for (std::size_t k = 0; k < ways; ++k) {
      const std::size_t to = k + 1 == ways ? hi : from + len / ways;
      spawned->fetch_add(1, std::memory_order_relaxed);
      if (k == 1)
        cws::spawn(cws::hints(cws::hint(*runs, from, to), cws::hint(*runs, 0, runs->size())),
                   [this, from, to] { (*this)(from, to); });
      else
        cws::spawn(cws::hint(*runs, from, to), [this, from, to] { (*this)(from, to); });
      from = to;
    }
    cws::sync();
  }
};

void stress(const std::string& topo, unsigned workers, std::string_view policy, unsigned phases) {
  cws::runtime_config cfg;
  cfg.workers = workers;
  cfg.topology = topo;
  cws::schedulers::knobs_of(cfg).hinted.het_limit = 1;  // elide early and often
  cws::runtime rt(cfg);
  auto runs = cws::numa::allocate<std::uint32_t>(std::size_t{1} << 15, cws::numa::block_cyclic, rt.topology());
  cws::schedule& s = rt.schedule("stress", policy);
  std::atomic<std::uint64_t> spawned{0};
  for (unsigned p = 1; p <= phases; ++p) {
    spawned = 0;
    const std::size_t n = runs.size() - (p * 977) % 4096;  // the tree changes from phase to phase
    const irregular_loop loop{&runs, &spawned, 8 + p % 24};
    const cws::run_report& r = rt.run(s, [&] { loop(0, n); });
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const std::uint32_t want = i < n ? 1 : 0;
      if (runs[i] != want) FAIL() << policy << " phase " << p << ": element " << i << " ran " << runs[i] << " times";
      runs[i] = 0;
    }
    std::uint64_t placed = 0, inlined = 0;
    for (const cws::worker_stats& w : r.per_worker) {
      placed += w.hinted_leaf + w.hinted_node + w.hinted_root;
      inlined += w.het_inlined;
    }
    ASSERT_EQ(r.tasks(), spawned.load() + 1) << "every spawn ran as a task (inlined ones too), plus the root";
    if (policy != cws::policy::evolve_hinted || r.ran_as == cws::ran_as::hinted) {
      ASSERT_EQ(placed, spawned.load()) << "every spawn was hinted";
      ASSERT_LE(inlined, placed);
    }
  }
}

TEST(HintedStress, TwoNodesHinted) { stress("pack:2 numa:1 core:2 pu:1", 4, cws::policy::hinted, 150); }
TEST(HintedStress, FourNodesHinted) { stress("pack:4 numa:1 l3:2 core:1 pu:1", 8, cws::policy::hinted, 100); }
TEST(HintedStress, FourNodesHpt) { stress("pack:4 numa:1 core:2 pu:1", 8, cws::policy::hinted_hpt, 100); }
TEST(HintedStress, TwoNodesEvolveHinted) { stress("pack:2 numa:1 core:1 pu:1", 2, cws::policy::evolve_hinted, 60); }
TEST(HintedStress, OneWorker) { stress("pack:4 numa:1 core:1 pu:1", 1, cws::policy::hinted, 40); }

}  // namespace
