#include "alone_trial.hpp"

#include <algorithm>

#include "format_into.hpp"

namespace cws::schedulers::detail {

namespace {
double median_of(std::array<double, alone_trial::runs_per_side> v) noexcept {
  std::sort(v.begin(), v.end());
  return (v[(v.size() - 1) / 2] + v[v.size() / 2]) / 2;
}
}  // namespace

bool alone_trial::use(const std::shared_ptr<const steal_tree::tree>& t, unsigned bound_us) {
  if (t == templ_) return false;
  templ_ = t;
  state_ = state::off;
  decision_.clear();
  if (t == nullptr || bound_us == 0 || t->workers <= 1 || t->segments.size() <= 1) return false;
  bound_s_ = bound_us * 1e-6;
  steals_ = t->segments.size() - 1;
  state_ = state::watching;
  in_a_row_ = 0;
  return true;
}

void alone_trial::start_trial() noexcept {
  state_ = state::trying;
  trial_run_ = alone_runs_ = replayed_runs_ = 0;
}

bool alone_trial::alone_next() const noexcept {
  if (state_ == state::trying) return trial_run_ / (block_timed + 1) % 2 == 0;  // blocks, alone first
  return state_ == state::alone;
}

bool alone_trial::after_run(bool ran_alone, double wall_s, double busy_s) {
  switch (state_) {
    case state::off:
      return false;
    case state::watching:
      if (wall_s > bound_s_) {
        in_a_row_ = 0;
        return false;
      }
      busy_workers_[in_a_row_++] = wall_s > 0 ? busy_s / wall_s : 0;
      if (in_a_row_ < runs_per_side) return false;
      if (const double busy = median_of(busy_workers_); busy > busy_workers_cap) {
        state_ = state::replayed;
        since_decision_ = 0;
        in_a_row_ = 0;
        format_into(decision_,
                    "replayed: its replays kept {:.1f} workers busy (median of {}), so the caller alone would "
                    "take about that many times as long; not tried alone",
                    busy, runs_per_side);
        return true;
      }
      start_trial();
      return false;
    case state::trying:
      if (trial_run_++ % (block_timed + 1) != 0) {  // a block's first run is untimed
        if (ran_alone)
          alone_s_[alone_runs_++] = wall_s;
        else
          replayed_s_[replayed_runs_++] = wall_s;
      }
      if (trial_run_ < trial_runs) return false;
      decide();
      return true;
    case state::alone:
      in_a_row_ = wall_s > bound_s_ ? in_a_row_ + 1 : 0;
      if (in_a_row_ >= runs_per_side) {
        state_ = state::watching;
        in_a_row_ = 0;
        format_into(decision_, "replayed again: {} runs alone in a row took over {:.0f} us", runs_per_side,
                    bound_s_ * 1e6);
        return true;
      }
      break;
    case state::replayed:
      break;
  }
  if (++since_decision_ < runs_between_trials) return false;
  // Alone runs stayed under the bound: tried again at once, so that the
  // replays the check needs come in blocks between alone ones, not 8 or
  // more in a row (evolve's slowdown watch would see those as a slowdown).
  if (state_ == state::alone) {
    start_trial();
  } else {
    state_ = state::watching;
    in_a_row_ = 0;
  }
  return false;
}

void alone_trial::decide() {
  const double alone = median_of(alone_s_), replayed = median_of(replayed_s_);
  state_ = alone <= replayed ? state::alone : state::replayed;
  format_into(decision_, "{}: median {:.1f} us alone against {:.1f} us replaying its {} steal{} ({} runs each)",
              state_ == state::alone ? "alone" : "replayed", alone * 1e6, replayed * 1e6, steals_,
              steals_ == 1 ? "" : "s", runs_per_side);
  since_decision_ = 0;
  in_a_row_ = 0;
}

}  // namespace cws::schedulers::detail
