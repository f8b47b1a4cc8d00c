#include "common/iteration_lines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>

namespace cws_apps {

namespace {

std::optional<double> local_share(const cws::run_report& r) {
  return r.locality ? std::optional<double>(r.locality->share()) : std::nullopt;
}
std::optional<std::uint64_t> pages_moved(const cws::run_report& r) {
  const cws::relocalization_report* moved = r.relocalization();
  return moved != nullptr ? std::optional<std::uint64_t>(moved->pages_moved) : std::nullopt;
}

// Policies that keep no trees (random, hinted) leave distance_to_previous
// empty. The recorder still holds their trees, so the tables show how far
// one random schedule lies from the next, beside the replaying policies' 0:
// `r`'s, from its tree `now` and the tree of the run just before, if known.
void fill_distance(const cws::runtime& rt, cws::run_report& r, const cws::steal_tree::tree& now,
                   const cws::steal_tree::tree* previous, std::uint64_t previous_run) {
  if (!r.distance_to_previous && previous != nullptr && previous_run + 1 == r.phase.iteration)
    r.distance_to_previous = cws::schedulers::moved_share(rt, *previous, now);
}

// The line of report `r`, if `map` covers its run.
std::optional<iteration_line> line_of(const run_map& map, const cws::run_report& r) {
  const std::uint64_t it = r.phase.iteration, end = map.first + std::uint64_t{map.runs_total} * map.per_run;
  if (it < map.first || it >= end) return std::nullopt;
  const std::uint64_t k = it - map.first;
  const auto run = static_cast<unsigned>(k / map.per_run);
  return iteration_line{run, run < map.warmup, static_cast<unsigned>(k % map.per_run), r};
}

}  // namespace

void line_log::add(const cws::runtime& rt, const cws::schedule& s) {
  const cws::run_report* r = s.last_report();
  if (r == nullptr) return;
  const cws::steal_tree::recorder* rec = cws::steal_tree::recorder_of(rt);
  const cws::steal_tree::phase_record* tree = rec != nullptr ? rec->latest(s.name()) : nullptr;
  if (tree != nullptr && tree->iteration != r->phase.iteration) tree = nullptr;  // not recorded
  if (std::optional<iteration_line> l = line_of(map_, *r)) {
    if (tree != nullptr)
      fill_distance(rt, l->report, tree->steals, previous_run_ ? &previous_ : nullptr, previous_run_.value_or(0));
    lines_.push_back(std::move(*l));
  }
  if (tree != nullptr) {
    previous_ = tree->steals;  // assignment keeps the copy's storage from one run to the next
    previous_run_ = tree->iteration;
  } else {
    previous_run_.reset();
  }
}

json lines_json(const std::vector<iteration_line>& lines) {
  json a = json::array();
  for (const iteration_line& l : lines) {
    const auto& r = l.report;
    a.push_back({{"run", l.run},
                 {"warmup", l.warmup},
                 {"iteration", l.index},
                 {"schedule_iteration", r.phase.iteration},
                 {"ran_as", r.label()},
                 {"ran_as_kind", cws::to_string(r.ran_as)},
                 {"ran_as_reason", r.reason},
                 {"template_from", r.template_from},
                 {"wall_s", r.wall_s},
                 {"tasks", r.tasks()},
                 {"segments", r.segments()},
                 {"designated", r.designated()},
                 {"extra_steals", r.extra_steals()},
                 {"taken_back", r.taken_back()},
                 {"waiting_s", r.idle_s()},
                 {"elided", r.elided()},
                 {"max_share_ratio", r.balance.max_over_fair},
                 {"idle_workers", r.balance.idle_workers},
                 {"distance_to_previous", r.distance_to_previous ? json(*r.distance_to_previous) : json(nullptr)},
                 {"diverged", r.diverged()},
                 {"divergence", r.diverged() ? r.reason : std::string()},
                 {"converged", r.converged},
                 {"note", r.note},
                 {"local_share", local_share(r) ? json(*local_share(r)) : json(nullptr)},
                 {"pages_moved", pages_moved(r) ? json(*pages_moved(r)) : json(nullptr)}});
  }
  return a;
}

void put_summary(json& entry, const std::vector<iteration_line>& lines, const std::string& policy) {
  double designated = 0, extra = 0, back = 0, waiting = 0, distance = 0, share = 0;
  std::size_t n = 0, with_distance = 0, replayed = 0, diverged = 0;
  for (const iteration_line& l : lines) {
    if (l.warmup) continue;
    const auto& r = l.report;
    ++n;
    designated += static_cast<double>(r.designated());
    extra += static_cast<double>(r.extra_steals());
    back += static_cast<double>(r.taken_back());
    waiting += r.idle_s();
    if (r.distance_to_previous) distance += *r.distance_to_previous, ++with_distance;
    share += r.balance.max_over_fair;
    replayed += r.ran_as == cws::ran_as::stows || r.ran_as == cws::ran_as::stuws || r.ran_as == cws::ran_as::relws ||
                r.ran_as == cws::ran_as::user;
    diverged += r.diverged();
  }
  if (n == 0) return;
  const double d = static_cast<double>(n);
  entry["designated_per_iter"] = designated / d;
  entry["extra_steals_per_iter"] = extra / d;
  entry["taken_back_per_iter"] = back / d;
  entry["waiting_s_per_iter"] = waiting / d;
  entry["mean_distance"] = with_distance ? json(distance / static_cast<double>(with_distance)) : json(nullptr);
  entry["replayed_share"] = policy == "random" ? json(nullptr) : json(static_cast<double>(replayed) / d);
  entry["diverged_iterations"] = diverged;
  entry["mean_max_share_ratio"] = share / d;
  if (const auto last = std::find_if(lines.rbegin(), lines.rend(), [](const iteration_line& l) { return !l.warmup; });
      last != lines.rend()) {
    entry["last_max_share_ratio"] = last->report.balance.max_over_fair;
    entry["last_idle_workers"] = last->report.balance.idle_workers;
  }
}

void print_run(const std::string& title, const std::vector<iteration_line>& lines, unsigned run) {
  std::size_t ran_width = 6;
  for (const iteration_line& l : lines)
    if (l.run == run) ran_width = std::max(ran_width, l.report.label().size());
  fmt::print("{}\n", title);
  fmt::print("  {:>4}  {:<{}}  {:>8}  {:>6}  {:>6}  {:>5}  {:>8}  {:>6}  {:>4}  {:>6}  {:>6}  {:>7}  {}\n", "it",
             "ran as", ran_width, "wall ms", "desig", "extra", "back", "wait ms", "dist", "div", "local", "moved",
             "balance", "template");
  bool was_converged = false;
  for (const iteration_line& l : lines) {
    if (l.run != run) continue;
    const auto& r = l.report;
    const bool converges_here = r.converged && !was_converged;  // mark the switch only
    was_converged = r.converged;
    const std::string dist =
        r.distance_to_previous ? fmt::format("{:.1f}%", 100 * *r.distance_to_previous) : std::string("-");
    const std::optional<double> share = local_share(r);
    const std::optional<std::uint64_t> pages = pages_moved(r);
    const std::string local = share ? fmt::format("{:.1f}%", 100 * *share) : std::string("-");
    const std::string moved = pages ? fmt::format("{}", *pages) : std::string("-");
    // Balance: the busiest worker's share of the tasks over 1/P, "+Ni" with N idle workers.
    const std::string balance = fmt::format("x{:.2f}{}", r.balance.max_over_fair,
                                            r.balance.idle_workers ? fmt::format("+{}i", r.balance.idle_workers) : "");
    fmt::print("  {:>4}  {:<{}}  {:>8.3f}  {:>6}  {:>6}  {:>5}  {:>8.3f}  {:>6}  {:>4}  {:>6}  {:>6}  {:>7}  {}{}\n",
               l.index, r.label(), ran_width, r.wall_s * 1e3, r.designated(), r.extra_steals(), r.taken_back(),
               r.idle_s() * 1e3, dist, r.diverged() ? "yes" : "no", local, moved, balance,
               r.template_from.empty() ? "-" : r.template_from,
               !r.note.empty()  ? "  [" + r.note + "]"
               : converges_here ? std::string("  [converged]")
                                : std::string());
    if (r.diverged() && !r.reason.empty()) fmt::print("        diverged: {}\n", r.reason);
  }
}

}  // namespace cws_apps
