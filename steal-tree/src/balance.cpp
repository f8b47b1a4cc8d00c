#include "cws/steal_tree/balance.hpp"

#include <algorithm>

namespace cws::steal_tree {

balance balance_of(const tree& t) {
  balance b;
  std::size_t workers = t.workers;
  for (const segment& s : t.segments) workers = std::max<std::size_t>(workers, std::size_t{s.worker} + 1);
  b.tasks.assign(workers, 0);
  for (const segment& s : t.segments) b.tasks[s.worker] += s.tasks;
  std::uint64_t most = 0;
  for (const std::uint64_t n : b.tasks) {
    b.total += n;
    most = std::max(most, n);
    b.idle_workers += n == 0;
  }
  if (b.total > 0)
    b.max_share_ratio = static_cast<double>(most) * static_cast<double>(workers) / static_cast<double>(b.total);
  return b;
}

bool is_balanced(const balance& b, double tolerance) noexcept {
  return b.total > 0 && b.idle_workers == 0 && b.max_share_ratio <= tolerance;
}

}  // namespace cws::steal_tree
