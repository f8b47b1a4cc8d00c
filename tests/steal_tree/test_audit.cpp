// Audit runs (recorder::audit_next_phase, runtime_config::audit) on trees of
// known shape: the parent links rebuild exactly the spawn tree the program
// made, with the counts, segments and steals of the recorded tree
// (check_audit), whether the run stole or not; audit_next_phase audits one
// run only; and the audit logs keep their storage between runs.

#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>

#include "audit_trees.hpp"
#include "record_checks.hpp"

namespace {

namespace st = cws::steal_tree;

// A runtime of `workers` whose runs are all audited, or only those
// audit_next_phase asks for.
class steal_tree_audit_runs : public ::testing::Test {
 protected:
  void start(unsigned workers, bool audit_every_run, unsigned history = 64) {
    cws::runtime_config cfg = cws::test::config(workers);
    cfg.audit = audit_every_run;
    cfg.history = history;
    rt.emplace(cfg);
    rec = st::recorder_of(*rt);
    ASSERT_NE(rec, nullptr);
    ASSERT_EQ(rec->audit(), audit_every_run);
  }
  std::optional<cws::runtime> rt;
  st::recorder* rec = nullptr;
};

TEST_F(steal_tree_audit_runs, one_worker_uniform_tree) {
  ASSERT_NO_FATAL_FAILURE(start(1, true));
  std::uint64_t n = 0;
  const auto& s = rt->run([&] { n = cws::test::uniform_tree(5, 3); });
  ASSERT_EQ(n, cws::test::uniform_tree_tasks(5, 3));
  const st::phase_record& r = *rec->latest("default");
  cws::test::check_audit(r, s, "1 worker");
  cws::test::expect_uniform_shape(r.steals, 5, 3);
  // One segment, run in depth-first order: every record's parent precedes it.
  for (std::size_t i = 1; i < r.steals.audit.size(); ++i) EXPECT_LT(r.steals.audit[i].parent, i);
}

TEST_F(steal_tree_audit_runs, audit_next_phase_audits_one_run) {
  ASSERT_NO_FATAL_FAILURE(start(2, false));
  auto& s = rt->schedule("tree");
  for (int round = 0; round < 3; ++round) {
    rt->run(s, [] { cws::test::uniform_tree(4, 4); });
    EXPECT_TRUE(rec->latest("tree")->steals.audit.empty()) << "round " << round;
    rec->audit_next_phase();
    EXPECT_TRUE(rec->wants_task_events());
    const auto& stats = rt->run(s, [] { cws::test::uniform_tree(4, 4); });
    EXPECT_FALSE(rec->wants_task_events());
    const st::phase_record& r = *rec->latest("tree");
    cws::test::check_audit(r, stats, "audited round " + std::to_string(round));
    cws::test::expect_uniform_shape(r.steals, 4, 4);
  }
}

// Steals whatever the load: the forced steal of record_checks, with the
// stolen child spawning a uniform subtree (and the root one after the steal),
// so that parents are found across workers and below a stolen root.
TEST_F(steal_tree_audit_runs, parents_across_a_forced_steal) {
  ASSERT_NO_FATAL_FAILURE(start(2, true));
  for (int round = 0; round < 5; ++round) {
    std::atomic<bool> started{false};
    const auto& s = rt->run([&] {
      cws::spawn([&] {
        started = true;
        cws::test::uniform_tree(3, 3);
      });
      while (!started.load()) std::this_thread::yield();
      cws::test::uniform_tree(3, 3);  // inline: the root's own children
      cws::sync();
    });
    ASSERT_GE(s.steals(), 1u);
    const st::phase_record& r = *rec->latest("default");
    cws::test::check_audit(r, s, "forced steal, round " + std::to_string(round));
    // 1 root + the stolen child's subtree + the root's own uniform children and their subtrees.
    const std::uint64_t subtree = cws::test::uniform_tree_tasks(3, 3);
    ASSERT_EQ(r.steals.audit.size(), 1 + subtree + (subtree - 1));
    const cws::test::spawn_shape shape = cws::test::shape_of(r.steals);
    ASSERT_EQ(shape.roots, 1u);
    EXPECT_EQ(shape.reached, r.steals.audit.size());
    EXPECT_EQ(shape.children[0], 1u + 3u) << "the root spawned the stolen child and 3 of its own";
  }
}

TEST_F(steal_tree_audit_runs, logs_keep_their_storage) {
  ASSERT_NO_FATAL_FAILURE(start(1, false, 4));
  const std::size_t before = rec->buffer_bytes();
  rec->audit_next_phase();
  rt->run([] { cws::test::uniform_tree(6, 3); });
  const std::size_t grown = rec->buffer_bytes();
  EXPECT_GT(grown, before) << "the audit logs grew to the phase's size";
  for (int i = 0; i < 3; ++i) {
    rec->audit_next_phase();
    rt->run([] { cws::test::uniform_tree(6, 3); });
    EXPECT_EQ(rec->buffer_bytes(), grown) << "the same phase again: nothing grows";
    rt->run([] { cws::test::uniform_tree(6, 3); });
    EXPECT_EQ(rec->buffer_bytes(), grown) << "a normal run keeps the audit logs' storage";
  }
}

}  // namespace
