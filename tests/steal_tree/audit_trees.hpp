#pragma once
// What the audit tests share: a uniform spawn tree whose shape is known in
// advance, and the shape of the spawn tree an audited run recorded (read
// only from the parent links), to compare the two.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "cws/cws.hpp"
#include "cws/steal_tree/tree.hpp"

namespace cws::test {

inline constexpr unsigned max_branching = 8;

// Every task above `depth` spawns `branching` (at most max_branching)
// children and syncs; returns the tasks of the subtree (the root included).
// Allocates nothing itself, for the allocation counts.
inline std::uint64_t uniform_tree(unsigned depth, unsigned branching) {
  if (depth == 0) return 1;
  std::array<std::uint64_t, max_branching> counts{};
  for (unsigned i = 0; i < branching && i < max_branching; ++i)
    cws::spawn([&counts, i, depth, branching] { counts[i] = uniform_tree(depth - 1, branching); });
  cws::sync();
  std::uint64_t total = 1;
  for (const std::uint64_t c : counts) total += c;
  return total;
}

constexpr std::uint64_t uniform_tree_tasks(unsigned depth, unsigned branching) {
  return depth == 0 ? 1 : 1 + branching * uniform_tree_tasks(depth - 1, branching);
}

// The spawn tree of an audited run, from its parent links alone.
struct spawn_shape {
  std::uint32_t roots = 0;              // records without a parent
  std::vector<std::uint32_t> children;  // per record
  std::vector<std::uint32_t> depth;     // per record, the root at 0 (records in a cycle: none reached)
  std::uint64_t reached = 0;            // records reached from the root
};

inline spawn_shape shape_of(const cws::steal_tree::tree& t) {
  namespace st = cws::steal_tree;
  const auto n = static_cast<std::uint32_t>(t.audit.size());
  spawn_shape s;
  s.children.assign(n, 0);
  s.depth.assign(n, st::no_parent);
  std::vector<std::vector<std::uint32_t>> kids(n);
  std::uint32_t root = st::no_parent;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t p = t.audit[i].parent;
    if (p == st::no_parent) {
      ++s.roots;
      root = i;
    } else if (p < n) {
      ++s.children[p];
      kids[p].push_back(i);
    }
  }
  if (s.roots != 1) return s;
  std::vector<std::uint32_t> stack{root};
  s.depth[root] = 0;
  while (!stack.empty()) {
    const std::uint32_t x = stack.back();
    stack.pop_back();
    ++s.reached;
    for (const std::uint32_t c : kids[x]) {
      s.depth[c] = s.depth[x] + 1;
      stack.push_back(c);
    }
  }
  return s;
}

// The audit of a uniform_tree(depth, branching) phase describes exactly that
// tree: one root, every record reached from it, inner records (above
// `depth`) with `branching` children, leaves at `depth`.
inline void expect_uniform_shape(const cws::steal_tree::tree& t, unsigned depth, unsigned branching) {
  ASSERT_EQ(t.audit.size(), uniform_tree_tasks(depth, branching));
  const spawn_shape s = shape_of(t);
  ASSERT_EQ(s.roots, 1u);
  ASSERT_EQ(s.reached, t.audit.size()) << "every record descends from the phase root";
  for (std::size_t i = 0; i < t.audit.size(); ++i) {
    ASSERT_LE(s.depth[i], depth) << "record " << i;
    EXPECT_EQ(s.children[i], s.depth[i] < depth ? branching : 0u) << "record " << i << " at depth " << s.depth[i];
  }
}

}  // namespace cws::test
