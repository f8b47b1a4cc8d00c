// The five replaying policies: one class, configured by name, on the shared
// replay engine. begin_phase() decides what this run replays (and refuses a
// template for another worker count); end_phase() writes the report, updates
// the template and runs evolve's state machine. Both run between phases on
// the thread that calls runtime::run.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "cws/error.hpp"
#include "cws/runtime.hpp"
#include "cws/schedulers/policies.hpp"
#include "cws/schedulers/schedule_store.hpp"
#include "cws/steal_tree/recorder.hpp"
#include "replay_policy.hpp"
#include "template_plan.hpp"

namespace cws::schedulers {

namespace detail {
bool register_store();  // schedule_store.cpp
}

namespace {

using detail::replay_mode;

class replay_policy final : public scheduling_policy {
 public:
  explicit replay_policy(std::string_view name) : name_(name) {}

  std::string_view name() const noexcept override { return name_; }
  bool routes_spawns() const noexcept override { return engine_.routes(); }

  void begin_phase(const phase_info& info) override;
  void end_phase(const phase_stats& stats) override;

  spawn_target route(unsigned spawner, const task_tag& tag, unsigned designated, segment_marks& marks) override {
    return engine_.route(spawner, tag, designated, marks);
  }
  void segment_begin(unsigned worker, const task_tag& root, std::uint32_t note, segment_marks& marks) override {
    engine_.segment_begin(worker, root, note, marks);
  }
  void segment_end(unsigned worker) override { engine_.segment_end(worker); }
  cws::detail::task* find_work(worker_view& view) override { return engine_.find_work(view); }
  void idle_pass(worker_view& view) override { engine_.idle_pass(view); }
  bool relocalize_after_phase() const noexcept override { return relocalize_; }
  void relocalized(const relocalization_report& report) override;

 private:
  struct chosen_template {
    std::shared_ptr<const steal_tree::tree> tree;
    std::string from;
    std::string missing;  // why there is none
  };
  chosen_template choose_template(const phase_info& info, schedule_store& store,
                                  const steal_tree::recorder& rec) const;
  void evolve_after(schedule_state& s, iteration_report& r, const runtime_config& cfg,
                    std::shared_ptr<const steal_tree::tree> fresh);

  std::string name_;
  detail::replay_engine engine_;
  // This run, as decided by begin_phase.
  std::string ran_as_;
  std::string template_from_;
  std::shared_ptr<const detail::template_plan> plan_;  // cached: recompiled only when the template changes
  bool relocalize_ = false;  // evolve: move the pages to where the template runs (see end_phase)
  bool relocalizing_stows_ = false;  // ... after a stows run (settling), not a template-making one
};

cws::runtime& current_runtime(std::string_view policy) {
  cws::runtime* rt = cws::runtime::current();
  if (rt == nullptr) throw error(fmt::format("policy '{}' used without a live cws::runtime", policy));
  return *rt;
}

const steal_tree::recorder& recorder_for(cws::runtime& rt, std::string_view schedule, std::string_view policy) {
  const steal_tree::recorder* rec = steal_tree::recorder_of(rt);
  if (rec == nullptr)
    throw error(fmt::format("schedule '{}': policy '{}' replays recorded steal trees, but recording is off "
                            "(CWS_RECORD=0 or runtime_config::record = false)",
                            schedule, policy));
  return *rec;
}

replay_policy::chosen_template replay_policy::choose_template(const phase_info& info, schedule_store& store,
                                                              const steal_tree::recorder& rec) const {
  if (info.follows.empty()) {
    const schedule_state& s = store.state(info.schedule);
    if (s.templ) return {s.templ, s.template_from, {}};
    return {nullptr, {}, "no template yet"};
  }
  if (const schedule_state* other = store.find(info.follows); other != nullptr && other->templ)
    return {other->templ, fmt::format("follows '{}': {}", info.follows, other->template_from), {}};
  if (const steal_tree::phase_record* r = rec.latest(info.follows))
    return {std::make_shared<const steal_tree::tree>(r->steals),
            fmt::format("follows '{}': its run #{}", info.follows, r->iteration), {}};
  return {nullptr, {}, fmt::format("'{}', which it follows, has not run yet", info.follows)};
}

void replay_policy::begin_phase(const phase_info& info) {
  cws::runtime& rt = current_runtime(name_);
  const steal_tree::recorder& rec = recorder_for(rt, info.schedule, name_);
  schedule_store& store = store_of(rt);
  schedule_state& state = store.state(info.schedule);

  replay_mode mode = replay_mode::user;
  chosen_template chosen;
  if (name_ != policy::user) {
    chosen = choose_template(info, store, rec);
    if (name_ == policy::evolve)
      mode = state.mode == evolve_mode::stows ? replay_mode::stows : replay_mode::relws;
    else
      mode = name_ == policy::stows ? replay_mode::stows : name_ == policy::stuws ? replay_mode::stuws : replay_mode::relws;
    if (!chosen.tree) mode = replay_mode::random;
  }

  std::string unusable;  // a template that runs as an immediate divergence
  if (chosen.tree) {
    if (std::string why = detail::worker_count_error(*chosen.tree, info.workers); !why.empty())
      throw error(fmt::format("schedule '{}' (policy {}): refusing to replay its template ({}): {}", info.schedule,
                              name_, chosen.from, why));
    if (std::string why = detail::structural_error(*chosen.tree); !why.empty()) {
      unusable = "the template is malformed: " + why;
      plan_.reset();
    } else {
      if (!plan_ || plan_->tree != chosen.tree) plan_ = detail::compile(chosen.tree);
      if (std::string bad = detail::consistency_error(*chosen.tree); !bad.empty())
        unusable = "the template is inconsistent: " + bad;
    }
  } else {
    plan_.reset();
  }

  template_from_ = chosen.from;
  if (!unusable.empty()) {
    ran_as_ = detail::to_string(mode);
    engine_.prepare(replay_mode::random, nullptr, info.workers, rt.config().stall_ms);
    engine_.diverge_up_front(std::move(unusable));
    return;
  }
  engine_.prepare(mode, mode == replay_mode::random ? nullptr : plan_, info.workers, rt.config().stall_ms);
  if (mode == replay_mode::random) {
    ran_as_ = fmt::format("random ({})", chosen.missing);
  } else {
    ran_as_ = detail::to_string(mode);
  }
}

void replay_policy::end_phase(const phase_stats& stats) {
  cws::runtime& rt = current_runtime(name_);
  const std::string& schedule = stats.phase.schedule;
  schedule_state& s = store_of(rt).state(schedule);
  const steal_tree::recorder* rec = steal_tree::recorder_of(rt);
  const steal_tree::phase_record* record = rec ? rec->latest(schedule) : nullptr;
  std::shared_ptr<const steal_tree::tree> fresh;
  if (record != nullptr && record->iteration == stats.phase.iteration)
    fresh = std::make_shared<const steal_tree::tree>(record->steals);

  iteration_report r = report_of(stats);
  r.policy = name_;
  r.ran_as = ran_as_;
  r.template_from = template_from_;
  r.diverged = engine_.diverged();
  if (r.diverged) {
    r.divergence = engine_.divergence();
    r.ran_as = fmt::format("random (diverged from {})", ran_as_);
    s.diverged = true;
    if (!s.warned) {
      s.warned = true;
      std::fprintf(stderr,
                   "cws: warning: schedule '%s' diverged from its template (%s): %s; the phase finished under random "
                   "stealing and its fresh tree is the schedule's new template\n",
                   schedule.c_str(), template_from_.c_str(), r.divergence.c_str());
    }
  }
  if (fresh && s.previous) r.distance_to_previous = moved_share(rt, *s.previous, *fresh);
  // evolve moves pages after every run that becomes the template (relws, or a
  // random first or diverged run), and after the stows runs of a converged
  // template until one finds every page in place: a phase that alternates
  // buffers (a Jacobi sweep reading one grid, writing the other) touches each
  // buffer in both roles only over two runs, so the run that converged cannot
  // place the pages its successor writes.
  relocalizing_stows_ = !r.diverged && engine_.mode() == replay_mode::stows;
  relocalize_ = name_ == policy::evolve && rt.config().evolve_relocalize && fresh &&
                (!relocalizing_stows_ || !s.pages_settled);

  // The next template.
  const std::string recorded = fmt::format("recorded run #{}", r.iteration);
  if (fresh) {
    const replay_mode mode = engine_.mode();
    if (r.diverged || mode == replay_mode::random) {
      s.templ = fresh;
      s.template_from = r.diverged ? recorded + " (after divergence)" : recorded;
      s.mode = evolve_mode::relws;
      s.relws_runs = 0;
      s.converged = false;
      s.pages_settled = false;
      s.settling_runs = 0;
    } else if (name_ == policy::evolve) {
      evolve_after(s, r, rt.config(), fresh);
    } else if (mode == replay_mode::relws) {
      s.templ = fresh;
      s.template_from = recorded + " (relws)";
    } else if (mode == replay_mode::user) {
      s.templ = fresh;
      s.template_from = fmt::format("designations of run #{}", r.iteration);
    }
    s.previous = fresh;
  }
  s.history.push_back(std::move(r));
}

// evolve: relws until an iteration adds no steal and takes nothing back (the
// tree stopped changing) or the bound is reached, then stows; back to relws
// when stows gets markedly slower than its best run.
void replay_policy::evolve_after(schedule_state& s, iteration_report& r, const runtime_config& cfg,
                                 std::shared_ptr<const steal_tree::tree> fresh) {
  if (engine_.mode() == replay_mode::relws) {
    s.templ = std::move(fresh);
    s.template_from = fmt::format("recorded run #{} (relws)", r.iteration);
    ++s.relws_runs;
    const bool settled = r.extra_steals == 0 && r.taken_back == 0;
    if (settled || s.relws_runs >= cfg.evolve_bound) {
      s.mode = evolve_mode::stows;
      s.converged = true;
      s.converged_at = r.iteration;
      s.best_stows_s = 0;
      s.slow_stows_runs = 0;
      s.pages_settled = false;
      s.settling_runs = 0;
      r.converged = true;
      r.note = settled ? fmt::format("converged after {} relws runs: switching to stows", s.relws_runs)
                       : fmt::format("bound of {} relws runs reached: switching to stows", cfg.evolve_bound);
      s.relws_runs = 0;
    }
    return;
  }
  // A stows run: the template stays. One slow run is noise (a preempted
  // worker, a page-fault storm); two in a row mean the schedule no longer fits.
  const bool slow = cfg.evolve_slowdown_pct > 0 && s.best_stows_s > 0 &&
                    r.wall_s > s.best_stows_s * (1.0 + cfg.evolve_slowdown_pct / 100.0);
  if (!slow) {
    s.slow_stows_runs = 0;
    if (s.best_stows_s == 0 || r.wall_s < s.best_stows_s) s.best_stows_s = r.wall_s;
  } else if (++s.slow_stows_runs >= 2) {
    s.mode = evolve_mode::relws;
    s.converged = false;
    s.slow_stows_runs = 0;
    r.note = fmt::format("two stows runs in a row over {}% slower than the best one: back to relws",
                         cfg.evolve_slowdown_pct);
  }
}

void replay_policy::relocalized(const relocalization_report& report) {
  cws::runtime& rt = current_runtime(name_);
  schedule_state& s = store_of(rt).state(report.schedule);
  if (!s.history.empty() && s.history.back().iteration == report.iteration) s.history.back().pages_moved = report.pages_moved;
  if (!relocalizing_stows_ || s.pages_settled) return;
  // Under stows every run replays the same tree, so the touches repeat with the
  // phase's own period; a bound still stops phases whose touches follow the data.
  if (report.pages_moved == 0 || ++s.settling_runs >= rt.config().evolve_bound) {
    s.pages_settled = true;
    if (s.history.empty()) return;
    std::string& note = s.history.back().note;
    note += note.empty() ? "" : "; ";
    note += report.pages_moved == 0
                ? std::string("pages in place: no more relocalization")
                : fmt::format("pages still moving after {} stows runs: no more relocalization", s.settling_runs);
  }
}

}  // namespace

bool register_policies() {
  static const bool done = [] {
    for (std::string_view name : {policy::stows, policy::stuws, policy::relws, policy::evolve, policy::user})
      policy_registry::add(std::string(name), [name] { return std::make_unique<replay_policy>(name); });
    return detail::register_store();
  }();
  return done;
}

}  // namespace cws::schedulers
