// Black-box (public headers only): the random policy actually steals.
//
// With 2 workers and fib(25) (about 120 000 spawns) worker 1 has plenty to
// steal. On a loaded 2-core machine a phase may still run entirely on
// worker 0 (worker 1 not scheduled in time), so run up to 200 phases and
// require one with a steal. Without work stealing (steals never attempted,
// or never succeeding) every phase has steals() == 0 and the test fails; the
// per-phase figures must also agree with each other.

#include <gtest/gtest.h>

#include <cstdint>

#include "cws/core.hpp"
#include "support/runtime_fixture.hpp"

namespace {

TEST(steals_happen, two_workers_steal_from_each_other_on_fib) {
  cws::runtime rt(cws::test::config(2));
  ASSERT_EQ(rt.workers(), 2u);
  auto& s = rt.schedule("fib", cws::policy::random);
  const std::uint64_t expected = cws::test::serial_fib(25);
  int runs = 0;
  std::uint64_t steals = 0;
  while (runs < 200 && steals == 0) {
    std::uint64_t result = 0;
    const cws::phase_stats& st = rt.run(s, [&] { result = cws::test::fib(25); });
    ++runs;
    ASSERT_EQ(result, expected) << "run " << runs;
    steals = st.steals();
    // One segment per steal plus the root's (random policy: no mailboxes).
    EXPECT_EQ(st.segments(), st.steals() + 1) << "run " << runs;
    EXPECT_EQ(st.designated(), 0u);
    EXPECT_EQ(st.tasks(), cws::test::fib_spawns(25) + 1) << "every spawn and the root ran once";
    if (steals > 0) {
      EXPECT_GT(st.per_worker.at(1).tasks, 0u) << "worker 1 stole, so it ran tasks";
      EXPECT_GT(st.per_worker.at(1).steals + st.per_worker.at(0).steals, 0u);
    }
  }
  EXPECT_GT(steals, 0u) << "no steal in " << runs << " phases of fib(25) on 2 workers";
  std::printf("first phase with steals: run %d (%llu steals)\n", runs, static_cast<unsigned long long>(steals));
}

}  // namespace
