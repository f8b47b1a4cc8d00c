#include "cws/steal_tree/balance.hpp"

#include <algorithm>
#include <utility>

namespace cws::steal_tree {

balance balance_of(const tree& t) {
  std::size_t workers = t.workers;
  for (const segment& s : t.segments) workers = std::max<std::size_t>(workers, std::size_t{s.worker} + 1);
  std::vector<std::uint64_t> tasks(workers, 0);
  for (const segment& s : t.segments) tasks[s.worker] += s.tasks;
  return balance_of(std::move(tasks));
}

balance balance_of(std::vector<std::uint64_t> tasks) {
  balance b;
  b.tasks = std::move(tasks);
  const std::size_t workers = b.tasks.size();
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
