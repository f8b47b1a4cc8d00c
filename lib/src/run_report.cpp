#include "cws/run_report.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace cws {

namespace {
constexpr std::array<std::pair<ran_as, std::string_view>, 10> tokens{{
    {ran_as::other, "other"},
    {ran_as::random, "random"},
    {ran_as::stows, "stows"},
    {ran_as::stuws, "stuws"},
    {ran_as::relws, "relws"},
    {ran_as::user, "user"},
    {ran_as::random_no_template, "random_no_template"},
    {ran_as::random_diverged, "random_diverged"},
    {ran_as::hinted, "hinted"},
    {ran_as::random_released, "random_released"},
}};
}  // namespace

std::string_view to_string(ran_as r) noexcept {
  for (const auto& [value, token] : tokens)
    if (value == r) return token;
  return "other";
}

std::optional<ran_as> ran_as_from_string(std::string_view s) noexcept {
  for (const auto& [value, token] : tokens)
    if (token == s) return value;
  return std::nullopt;
}

std::string ran_as_label(ran_as r, ran_as planned, std::string_view reason) {
  std::string out;
  switch (r) {
    case ran_as::random_no_template:
      out = "random (";
      out += reason.empty() ? std::string_view("no template yet") : reason;
      out += ')';
      return out;
    case ran_as::random_diverged:
      out = "random (diverged from ";
      out += to_string(planned);
      out += ')';
      return out;
    case ran_as::random_released:
      out = "random (released from ";
      out += to_string(planned);
      out += ')';
      return out;
    default:
      return std::string(to_string(r));
  }
}

load_balance balance_of(std::span<const worker_stats> per_worker, double wall_s) noexcept {
  load_balance b;
  std::uint64_t total = 0, most = 0;
  double busy_total = 0, busiest = 0;
  for (const worker_stats& w : per_worker) {
    total += w.tasks;
    most = std::max(most, w.tasks);
    b.idle_workers += w.tasks == 0;
    const double busy = busy_s(w, wall_s);
    busy_total += busy;
    busiest = std::max(busiest, busy);
  }
  const auto workers = static_cast<double>(per_worker.size());
  if (total > 0) b.max_over_fair = static_cast<double>(most) * workers / static_cast<double>(total);
  if (busy_total > 0) b.busy_over_fair = busiest * workers / busy_total;
  return b;
}

}  // namespace cws
