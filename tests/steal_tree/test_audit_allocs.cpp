// Allocations of audit runs in steady state (counting_new.cpp, from the
// schedulers' suite, counts every global operator new of this binary): once
// the audit logs, the merge scratch and the history's evicted runs have the
// phase's size, an audit run allocates exactly what a normal run of the same
// phase does. One worker, so that every run makes the same tree.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>

#include "../schedulers/counting_new.hpp"
#include "audit_trees.hpp"
#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"

namespace {

constexpr unsigned window = 8;  // runtime_config::history: small, so that the warm-up evicts
constexpr int warmup = 3 * window;
constexpr int measure = 50;

// Allocations per run of a uniform tree, after the warm-up, every run
// audited or none.
double per_run(bool audit) {
  cws::runtime_config cfg = cws::test::config(1);
  cfg.history = window;
  cfg.audit = audit;
  cws::runtime rt(cfg);
  auto& s = rt.schedule("tree");
  auto phase = [] { cws::test::uniform_tree(5, 4); };
  for (int i = 0; i < warmup; ++i) rt.run(s, phase);
  const std::uint64_t before = cws::test::allocations();
  for (int i = 0; i < measure; ++i) rt.run(s, phase);
  return static_cast<double>(cws::test::allocations() - before) / measure;
}

TEST(audit_allocations, an_audit_run_allocates_what_a_normal_run_does) {
  if (!cws::test::counting()) GTEST_SKIP() << "operator new is the sanitizer's here; counted in Release builds";
  const double normal = per_run(false);
  const double audited = per_run(true);
  std::printf("allocations per run of a %llu-task tree (1 worker, window %u): normal %.3f, audited %.3f\n",
              static_cast<unsigned long long>(cws::test::uniform_tree_tasks(5, 4)), window, normal, audited);
  EXPECT_EQ(audited, normal);
}

}  // namespace
