#include "cws/stats.hpp"

#include <numeric>

namespace cws {

namespace {
template <class Field>
auto sum(const std::vector<worker_stats>& v, Field field) {
  using value = std::remove_cvref_t<decltype(v.front().*field)>;
  return std::accumulate(v.begin(), v.end(), value{},
                         [field](value acc, const worker_stats& w) { return acc + w.*field; });
}
}  // namespace

std::uint64_t phase_stats::tasks() const noexcept { return sum(per_worker, &worker_stats::tasks); }
std::uint64_t phase_stats::steals() const noexcept { return sum(per_worker, &worker_stats::steals); }
std::uint64_t phase_stats::failed_steals() const noexcept { return sum(per_worker, &worker_stats::failed_steals); }
std::uint64_t phase_stats::segments() const noexcept { return sum(per_worker, &worker_stats::segments); }
double phase_stats::idle_s() const noexcept { return sum(per_worker, &worker_stats::idle_s); }
std::uint64_t phase_stats::designated() const noexcept { return sum(per_worker, &worker_stats::designated); }
std::uint64_t phase_stats::taken_back() const noexcept { return sum(per_worker, &worker_stats::taken_back); }
std::uint64_t phase_stats::elided() const noexcept { return sum(per_worker, &worker_stats::elided); }

}  // namespace cws
