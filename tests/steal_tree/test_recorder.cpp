// The recorder on real runs: attachment through the extension registry and
// CWS_RECORD (config.record), the phase history, the tree's agreement with the
// core's statistics, audit mode against the tree (fib and a memcopy-like
// parallel_for, several seeds, 2 workers and synthetic 4- and 8-worker
// topologies), and the O(segments + steals) size of what is recorded.

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "record_checks.hpp"

namespace {

namespace st = cws::steal_tree;
using cws::test::config;

TEST(steal_tree_recorder, attached_by_default) {
  const auto names = cws::extension_registry::names();
  EXPECT_NE(std::find(names.begin(), names.end(), "steal_tree"), names.end());
  cws::runtime rt(config(2));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rt.extension("steal_tree"), static_cast<cws::runtime_extension*>(rec));
  EXPECT_FALSE(rec->audit());
  EXPECT_FALSE(rec->wants_task_events());
  EXPECT_TRUE(rec->phases().empty());
  EXPECT_EQ(rec->latest("default"), nullptr);
}

TEST(steal_tree_recorder, record_off_gives_no_recorder) {
  auto cfg = config(2);
  cfg.record = false;
  cfg.audit = true;  // audit without recording is meaningless: still nothing
  cws::runtime rt(cfg);
  EXPECT_EQ(st::recorder_of(rt), nullptr);
  EXPECT_EQ(rt.extension("steal_tree"), nullptr);
  std::uint64_t r = 0;
  rt.run([&] { r = cws::test::fib(15); });
  EXPECT_EQ(r, cws::test::serial_fib(15));
}

TEST(steal_tree_recorder, history_latest_and_clear) {
  cws::runtime rt(config(2));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  auto& a = rt.schedule("a");
  auto& b = rt.schedule("b");
  for (int i = 0; i < 3; ++i) {
    const auto& sa = rt.run(a, [] { cws::test::fib(16); });
    cws::test::check_tree(*rec->latest("a"), sa, "a");
    const auto& sb = rt.run(b, [] { cws::test::fib(12); });
    cws::test::check_tree(*rec->latest("b"), sb, "b");
  }
  ASSERT_EQ(rec->phases().size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(rec->phases()[i].schedule, i % 2 ? "b" : "a");
    EXPECT_EQ(rec->phases()[i].iteration, i / 2);
    EXPECT_EQ(rec->phases()[i].policy, "random");
  }
  EXPECT_EQ(rec->latest("a"), &rec->phases()[4]);
  EXPECT_EQ(rec->latest("b"), &rec->phases()[5]);
  EXPECT_EQ(rec->latest("c"), nullptr);
  rec->clear();
  EXPECT_TRUE(rec->phases().empty());
  EXPECT_EQ(rec->latest("a"), nullptr);
  rt.run(a, [] { cws::test::fib(10); });
  ASSERT_EQ(rec->phases().size(), 1u);
  EXPECT_EQ(rec->phases()[0].iteration, 3u);
}

TEST(steal_tree_recorder, single_worker_records_one_segment) {
  cws::runtime rt(config(1));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  const auto& s = rt.run([] { cws::test::fib(18); });
  const st::tree& t = rec->latest("default")->steals;
  ASSERT_EQ(t.segments.size(), 1u);
  EXPECT_EQ(t.segments[0].tasks, cws::test::fib_spawns(18) + 1);
  EXPECT_TRUE(t.segments[0].steals.empty());
  EXPECT_EQ(st::summarize(t), (st::totals{cws::test::fib_spawns(18) + 1, 0, 1, 1}));
  EXPECT_LE(static_cast<double>(t.segments[0].end_ns) * 1e-9, s.wall_s + 0.05);
  cws::test::check_tree(*rec->latest("default"), s, "1 worker");
}

TEST(steal_tree_recorder, phase_that_throws_is_recorded) {
  auto cfg = config(2);
  cfg.audit = true;
  cws::runtime rt(cfg);
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  auto& s = rt.schedule("boom");
  EXPECT_THROW(rt.run(s, [] {
    cws::test::fib(16);
    cws::spawn([] { throw std::runtime_error("child failed"); });
    cws::test::fib(14);
  }),
               std::runtime_error);
  ASSERT_EQ(rec->phases().size(), 1u);
  ASSERT_NE(s.last(), nullptr);
  cws::test::check_tree(rec->phases()[0], *s.last(), "throwing phase");
  cws::test::check_audit(rec->phases()[0], *s.last(), "throwing phase");
  // And the runtime keeps recording.
  const auto& ok = rt.run(s, [] { cws::test::fib(14); });
  ASSERT_EQ(rec->phases().size(), 2u);
  cws::test::check_tree(rec->phases()[1], ok, "after the throw");
}

// 1.35 million tasks, nothing recorded per task: the history grows with the
// number of segments, not with the number of tasks.
TEST(steal_tree_recorder, size_is_proportional_to_segments_not_tasks) {
  for (bool big_first : {false, true}) {
    cws::runtime rt(config(2));
    st::recorder* rec = st::recorder_of(rt);
    ASSERT_NE(rec, nullptr);
    const unsigned n = big_first ? 30 : 12;
    const auto& s = rt.run([n] { cws::test::fib(n); });
    ASSERT_EQ(s.tasks(), cws::test::fib_spawns(n) + 1);
    const st::phase_record& r = *rec->latest("default");
    cws::test::check_tree(r, s, "size");
    EXPECT_TRUE(r.steals.audit.empty());
    const std::size_t segs = r.steals.segments.size();
    // Per segment: the segment (64 bytes), one steal point (16) in its parent, one index (4).
    const std::size_t per_segment = sizeof(st::segment) + sizeof(st::steal_point) + sizeof(std::uint32_t);
    const std::size_t fixed = sizeof(st::phase_record) + 2 * 64 + s.per_worker.size() * (sizeof(cws::worker_stats) + 24);
    EXPECT_LE(rec->history_bytes(), fixed + segs * per_segment) << segs << " segments";
    // The workers' buffers: a fixed reserve plus at most twice the segments they held.
    EXPECT_LE(rec->buffer_bytes(), 2 * 64 * 1024 + 2 * segs * 64);
    if (big_first) {
      EXPECT_LT(rec->history_bytes() + rec->buffer_bytes(), s.tasks() / 4)
          << "recording costs far less than a byte per task";
    }
  }
}

TEST(steal_tree_recorder, audit_size_is_one_record_per_task) {
  auto cfg = config(2);
  cfg.audit = true;
  cws::runtime rt(cfg);
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  EXPECT_TRUE(rec->wants_task_events());
  const auto& s = rt.run([] { cws::test::fib(20); });
  EXPECT_EQ(rec->latest("default")->steals.audit.size(), s.tasks());
}

TEST(steal_tree_recorder, detaches_when_destroyed) {
  // A second recorder on the same runtime sees the same phases; once destroyed it no longer observes.
  cws::runtime rt(config(2));
  std::vector<st::phase_record> copy;
  {
    st::recorder extra(rt);
    const auto& s = rt.run([] { cws::test::fib(15); });
    ASSERT_EQ(extra.phases().size(), 1u);
    cws::test::check_tree(extra.phases()[0], s, "extra recorder");
    copy = extra.phases();
  }
  rt.run([] { cws::test::fib(15); });
  EXPECT_EQ(st::recorder_of(rt)->phases().size(), 2u);
}

// ---------------------------------------------------------------- audit vs tree

class steal_tree_audit : public ::testing::TestWithParam<cws::test::topo_case> {};

TEST_P(steal_tree_audit, fib_and_memcopy_several_seeds) {
  cws::test::run_counts counts;
  for (std::uint64_t seed : {1ull, 2ull, 0x5eedull, 0xdeadbeefull}) {
    cws::test::run_and_check(GetParam(), seed, 18, 1 << 15, 64, 2, counts);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(counts.steals, 0u) << "no steal in 16 phases: the audit checks ran on trivial trees";
}

INSTANTIATE_TEST_SUITE_P(topologies, steal_tree_audit, ::testing::ValuesIn(cws::test::topo_cases),
                         [](const auto& p) { return std::string(p.param.name); });

}  // namespace
