// A phase the policy runs alone (scheduling_policy::runs_alone): the helpers
// are neither woken nor let in, so the caller runs every task and the
// report counts it alone; the phases around it still run on every worker.
// A stress of the phase protocol's alone path between ordinary phases (TSan).

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "cws/cws.hpp"
#include "support/own_policy.hpp"
#include "support/runtime_fixture.hpp"

namespace {

// Random stealing, and alone in the phases the test asks for.
class alone_when_asked final : public cws::scheduling_policy {
 public:
  std::string_view name() const noexcept override { return "test-alone-when-asked"; }
  bool runs_alone() const noexcept override { return alone; }
  cws::task_handle find_work(cws::worker_view& v) override {
    const unsigned victim = static_cast<unsigned>(v.random() % v.workers());
    return victim == v.self() ? nullptr : v.steal(victim);
  }
  bool alone = false;
};

std::atomic<unsigned> off_caller{0};
thread_local bool on_caller = false;

std::uint64_t counted_fib(unsigned n) {
  if (!on_caller) off_caller.fetch_add(1, std::memory_order_relaxed);
  if (n < 2) return n;
  std::uint64_t a = 0;
  cws::spawn([&a, n] { a = counted_fib(n - 1); });
  const std::uint64_t b = counted_fib(n - 2);
  cws::sync();
  return a + b;
}

TEST(alone_phase, the_caller_runs_every_task_and_the_phases_around_it_still_share) {
  cws::runtime rt(cws::test::config(2));
  auto [s, own] = cws::test::schedule_under_own_policy<alone_when_asked>(rt, "fib", "test-alone-when-asked");
  alone_when_asked* const policy = &own;
  on_caller = true;
  unsigned shared_phases = 0;
  for (int run = 0; run < 1500; ++run) {
    policy->alone = run % 3 != 0;
    off_caller = 0;
    std::uint64_t result = 0;
    const cws::run_report& r = rt.run(s, [&] { result = counted_fib(14); });
    ASSERT_EQ(result, cws::test::serial_fib(14)) << "run " << run;
    if (policy->alone) {
      ASSERT_EQ(r.workers_joined, 1u) << "run " << run;
      ASSERT_EQ(off_caller.load(), 0u) << "run " << run;
      ASSERT_EQ(r.per_worker[1].tasks, 0u) << "run " << run;
      ASSERT_EQ(r.steals(), 0u) << "run " << run;
    } else {
      shared_phases += off_caller.load() != 0;
    }
  }
  RecordProperty("shared_phases", static_cast<int>(shared_phases));
}

}  // namespace
