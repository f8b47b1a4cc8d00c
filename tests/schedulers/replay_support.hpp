#pragma once
// Shared by the replay suites: small deterministic workloads (fib, a Jacobi
// heat step, a loop that records who ran each block) and checks of a replayed
// tree against its template, and templates recorded by random runs.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"

namespace cws::test {

// A 2D Jacobi step on an n x n grid (fixed boundary), rows bisected down to
// `block` rows: the SC14 heat benchmark in miniature.
struct heat_grid {
  std::size_t n;
  std::vector<double> a, b;
  explicit heat_grid(std::size_t size) : n(size), a(size * size, 0.0), b(size * size, 0.0) {
    for (std::size_t j = 0; j < n; ++j) a[j] = b[j] = 100.0;  // hot top edge
  }
  void step_rows(std::size_t lo, std::size_t hi) {
    for (std::size_t i = std::max<std::size_t>(lo, 1); i < std::min(hi, n - 1); ++i)
      for (std::size_t j = 1; j + 1 < n; ++j)
        b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
  }
  void step(std::size_t block) {
    cws::parallel_for_range(
        0, n, [this](std::size_t lo, std::size_t hi) { step_rows(lo, hi); }, block);
    a.swap(b);
  }
  void serial_step() {
    step_rows(0, n);
    a.swap(b);
  }
};

// The template's steal points, per-worker segment order and audit mapping
// reproduced exactly by a replayed tree.
inline void expect_same_steal_points(const steal_tree::tree& templ, const steal_tree::tree& run) {
  ASSERT_EQ(templ.segments.size(), run.segments.size());
  for (std::size_t i = 0; i < templ.segments.size(); ++i) {
    const auto& x = templ.segments[i];
    const auto& y = run.segments[i];
    EXPECT_EQ(x.worker, y.worker) << "segment " << i;
    EXPECT_EQ(x.parent, y.parent) << "segment " << i;
    EXPECT_EQ(x.level, y.level) << "segment " << i;
    EXPECT_EQ(x.step, y.step) << "segment " << i;
    EXPECT_EQ(x.tasks, y.tasks) << "segment " << i;
    EXPECT_EQ(x.steals, y.steals) << "segment " << i;
  }
}

// Every task ran on the worker the template ran it on (audit mode: exact,
// task by task through spawn paths).
inline void expect_same_task_mapping(const steal_tree::tree& templ, const steal_tree::tree& run) {
  ASSERT_FALSE(templ.audit.empty());
  ASSERT_FALSE(run.audit.empty());
  const std::vector<std::uint32_t> one_node(templ.workers, 0);
  const steal_tree::distance d = steal_tree::schedule_distance(templ, run, one_node);
  EXPECT_TRUE(d.exact);
  EXPECT_EQ(d.moved_worker, 0.0);
  EXPECT_EQ(d.work, templ.audit.size());
}

inline runtime_config audited(unsigned workers, std::string synthetic = {}) {
  runtime_config c = config(workers, std::move(synthetic));
  c.audit = true;
  // These tests assert that strict replays never diverge. With up to 8
  // workers on 2 cores under TSan, a worker can sleep or be preempted past
  // the default 50 ms window while the others wait on it, and the watch
  // takes that for a stall (the phase then finishes under random stealing,
  // which is right, but the test reads it as a failed replay). A real
  // deadlock still shows up, 2 s later.
  cws::schedulers::knobs_of(c).replay.stall_ms = 2000;
  return c;
}

// The latest recorded run of `schedule` (a failure when there is none).
inline const steal_tree::phase_record& latest(const cws::runtime& rt, const std::string& schedule) {
  const steal_tree::phase_record* r = steal_tree::recorder_of(rt)->latest(schedule);
  EXPECT_NE(r, nullptr);
  return *r;
}

// A template worth replaying: a random run of `program` on schedule `name`
// that stole something (more than `more_segments_than` segments), in
// at most `attempts` runs (on a loaded machine a short phase may run entirely
// on worker 0).
template <class Program>
steal_tree::tree record_with_steals(cws::runtime& rt, const std::string& name, Program program, int attempts,
                                    std::size_t more_segments_than) {
  auto& s = rt.schedule(name, cws::policy::random);
  for (int i = 0; i < attempts; ++i) {
    rt.run(s, program);
    if (latest(rt, name).steals.segments.size() > more_segments_than) break;
  }
  return latest(rt, name).steals;
}

}  // namespace cws::test
