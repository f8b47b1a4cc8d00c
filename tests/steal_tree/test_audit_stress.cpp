// Repeated audit runs on unbalanced trees (labels stress, tsan): on 2
// workers and synthetic 4- and 8-worker topologies (more workers than cores:
// preemption, nested segments, steals of steals), every other run audited
// through audit_next_phase, each audited run checked against its recorded
// tree (check_audit: parents, levels, counts, steals) and the program's
// node count; the runs between keep no audit records. Under TSan this is
// the race check of the per-worker audit logs and their reuse.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

#include "record_checks.hpp"

namespace {

namespace st = cws::steal_tree;

constexpr std::uint64_t mix(std::uint64_t x) noexcept {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

constexpr unsigned max_children = 6;

// A node spawns 0..max_children children (from its hash) above `depth`.
unsigned children_of(std::uint64_t state, unsigned depth) { return depth == 0 ? 0 : mix(state) % (max_children + 1); }

std::uint64_t unbalanced(std::uint64_t state, unsigned depth) {
  const unsigned n = children_of(state, depth);
  std::array<std::uint64_t, max_children> counts{};
  for (unsigned i = 0; i < n; ++i)
    cws::spawn([&counts, i, s = mix(state + i + 1), depth] { counts[i] = unbalanced(s, depth - 1); });
  cws::sync();
  std::uint64_t total = 1;
  for (unsigned i = 0; i < n; ++i) total += counts[i];
  return total;
}

std::uint64_t serial_unbalanced(std::uint64_t state, unsigned depth) {
  std::uint64_t total = 1;
  for (unsigned i = 0, n = children_of(state, depth); i < n; ++i)
    total += serial_unbalanced(mix(state + i + 1), depth - 1);
  return total;
}

class audit_stress : public ::testing::TestWithParam<cws::test::topo_case> {};

TEST_P(audit_stress, repeated_audit_runs) {
  cws::runtime rt(cws::test::audit_config(GetParam(), 7, false));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  auto& s = rt.schedule("unbalanced");
  std::uint64_t steals = 0;
  for (std::uint64_t run = 0; run < 40; ++run) {
    const std::uint64_t seed = mix(run / 2);  // each tree twice: normal, then audited
    const bool audited = run % 2 == 1;
    if (audited) rec->audit_next_phase();
    std::uint64_t nodes = 0;
    const cws::phase_stats& stats = rt.run(s, [&] { nodes = unbalanced(seed, 7); });
    ASSERT_EQ(nodes, serial_unbalanced(seed, 7));
    const st::phase_record& r = *rec->latest("unbalanced");
    if (!audited) {
      EXPECT_TRUE(r.steals.audit.empty()) << "run " << run;
      continue;
    }
    steals += stats.steals();
    cws::test::check_audit(r, stats, "run " + std::to_string(run));
    if (HasFatalFailure()) return;
  }
  std::printf("%s: %llu steals in the audited runs\n", GetParam().name, static_cast<unsigned long long>(steals));
}

INSTANTIATE_TEST_SUITE_P(topologies, audit_stress, ::testing::ValuesIn(cws::test::topo_cases),
                         [](const auto& p) { return std::string(p.param.name); });

}  // namespace
