// The replaying policies (policies.hpp): one class on the shared replay
// engine, made for one entry of policy_kinds.hpp's table, which fixes its
// kind and traits once. begin_phase() decides what this run replays (and
// refuses a template for another worker count); end_phase() writes the
// report and the next template, and hands the runs of the evolving kinds to
// evolve's state machine (evolve_controller.hpp). Both run between phases on
// the thread that calls runtime::run.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cws/error.hpp"
#include "cws/runtime.hpp"
#include "cws/schedulers/knobs.hpp"
#include "cws/schedulers/policies.hpp"
#include "cws/schedulers/schedule_store.hpp"
#include "cws/steal_tree/balance.hpp"
#include "cws/steal_tree/coarsen.hpp"
#include "cws/steal_tree/recorder.hpp"
#include "alone_trial.hpp"
#include "evolve_controller.hpp"
#include "format_into.hpp"
#include "hinted_engine.hpp"
#include "hinted_policy.hpp"
#include "policy_kinds.hpp"
#include "replay_policy.hpp"
#include "template_pick.hpp"
#include "template_plan.hpp"

namespace cws::schedulers {

namespace detail {
bool register_store();  // schedule_store.cpp
}

namespace {

using detail::format_into;
using detail::replay_kind;
using detail::replay_mode;

// "No template" and "no plan", for the functions that hand out a reference
// to the one kept (no copy, so no reference count written).
const std::shared_ptr<const steal_tree::tree> no_tree;
const std::shared_ptr<const detail::template_plan> no_plan;

// The workers' busy time in a run, summed (alone_trial's estimate of what
// the caller alone would take): each worker's wall time less its idle time
// (its steal loop, its waits in syncs, and for a helper the time before it
// joined: stats.hpp), 0 for one that started no segment. O(workers).
double busy_time(const run_report& r) {
  double busy = 0;
  for (const worker_stats& w : r.per_worker) busy += busy_s(w, r.wall_s);
  return busy;
}

// How a kind that does not evolve replays a template.
constexpr replay_mode fixed_mode_of(replay_kind kind) noexcept {
  switch (kind) {
    case replay_kind::stows:
      return replay_mode::stows;
    case replay_kind::stuws:
      return replay_mode::stuws;
    case replay_kind::user:
      return replay_mode::user;
    case replay_kind::relws:
    case replay_kind::evolve:  // the evolving kinds ask evolve_controller::mode_for instead
    case replay_kind::coarsen:
    case replay_kind::evolve_hinted:
      break;
  }
  return replay_mode::relws;
}

class replay_policy final : public scheduling_policy {
 public:
  explicit replay_policy(const detail::replay_policy_kind& kind) noexcept
      : kind_(kind), fixed_mode_(fixed_mode_of(kind.kind)) {}

  std::string_view name() const noexcept override { return kind_.name; }
  bool routes_spawns() const noexcept override { return engine_.routes(); }
  bool runs_alone() const noexcept override { return alone_; }
  // evolve-hinted records its first template (and any fresh start) under `hinted`.
  bool routes_hints() const noexcept override { return hinting_; }
  place_target place_for(worker_view& view, const hint_home& home) override { return hinted_->place_for(view, home); }

  void attach(const policy_context& ctx) override;
  void begin_phase(const phase_info& info) override;
  void end_phase(run_report& report) override;

  spawn_target route(unsigned spawner, const task_tag& tag, unsigned designated, segment_marks& marks) override {
    return engine_.route(spawner, tag, designated, marks);
  }
  void segment_begin(unsigned worker, const task_tag& root, std::uint32_t note, segment_marks& marks) override {
    engine_.segment_begin(worker, root, note, marks);
  }
  void segment_end(unsigned worker) override { engine_.segment_end(worker); }
  std::uint64_t idle_grace_ns() const noexcept override { return engine_.idle_grace_ns(); }
  void idle_past_grace(unsigned worker, bool in_sync) override {
    if (!hinting_) engine_.idle_past_grace(worker, in_sync);
  }
  bool thief_not_joined(unsigned spawner, unsigned thief) noexcept override {
    return !hinting_ && engine_.thief_not_joined(spawner, thief);
  }
  void taken_back(unsigned spawner, unsigned thief) noexcept override {
    if (!hinting_) engine_.taken_back(spawner, thief);
  }
  task_handle find_work(worker_view& view) override {
    return hinting_ ? hinted_->find_work(view) : engine_.find_work(view);
  }
  void idle_pass(worker_view& view) override {
    if (!hinting_) engine_.idle_pass(view);
  }
  bool lets_leave(unsigned worker) noexcept override { return !hinting_ && engine_.lets_leave(worker); }
  bool relocalize_after_phase() const noexcept override { return relocalize_; }
  void relocalized(const relocalization_report& report) override;

 private:
  // The runtime this policy's schedule belongs to (attach()), throwing when
  // the policy was never attached to a schedule.
  cws::runtime& runtime() const;

  // --- begin_phase's steps
  // The template this run replays (null: none), with template_from_ set, or
  // missing_ saying why there is none. A reference to the pointer the store
  // keeps, not a copy: copying it writes the count beside the tree, a line
  // the helpers read during every replay, and would pull it back to the
  // caller every phase.
  const std::shared_ptr<const steal_tree::tree>& choose_template(const phase_info& info,
                                                                 const steal_tree::recorder& rec);
  // plan_ for `chosen` (compiled when the template changed); why the template
  // cannot run (it then runs as an immediate divergence), or empty. Throws for
  // a template recorded for another worker count.
  std::string load_plan(const std::shared_ptr<const steal_tree::tree>& chosen, const phase_info& info);
  // A plan for `t` in the storage of a plan no longer in use.
  std::shared_ptr<const detail::template_plan> compile_pooled(std::shared_ptr<const steal_tree::tree> t);
  replay_mode mode_of_run(bool has_template) const noexcept;
  // Whether this strict run of `chosen` goes alone (alone_trial.hpp).
  bool run_alone(const std::shared_ptr<const steal_tree::tree>& chosen);

  // --- end_phase's steps
  const steal_tree::phase_record* recorded_run(std::uint64_t iteration) const noexcept;
  void release_unused_plans() noexcept;
  void write_outcome(run_report& r);
  void report_divergence(const run_report& r);
  void plan_relocalization(const run_report& r, bool recorded);
  void next_template(run_report& r, const steal_tree::phase_record& record, bool repeated);
  void start_over(run_report& r, const std::shared_ptr<const steal_tree::tree>& fresh);
  void pick_template(run_report& r, const std::shared_ptr<const steal_tree::tree>& fresh);
  // CWS_TEMPLATE_TRIES on this runtime's machine (replay_knobs::template_tries_on).
  unsigned template_tries() const noexcept { return knobs_->replay.template_tries_on(numa_nodes_); }

  const detail::replay_policy_kind& kind_;
  const replay_mode fixed_mode_;  // the mode of a kind that does not evolve
  // From attach(): the runtime, its schedule store, this policy's schedule's
  // state in it, and the recorder (null when recording is off). Looked up
  // once, not per phase: the store keeps every state as long as it lives, and
  // it outlives the policies (runtime::~runtime).
  cws::runtime* rt_ = nullptr;
  const cws::schedule* schedule_ = nullptr;
  schedule_store* store_ = nullptr;
  const knobs* knobs_ = nullptr;  // the runtime's tuning knobs (CWS_* settings)
  unsigned numa_nodes_ = 1;       // the runtime's NUMA nodes (per-machine defaults of the knobs)
  // From here on, fields begin_phase and end_phase rewrite every phase: off
  // the line of the vtable pointer and the fields above, which every
  // worker reads on its first call of a phase.
  //
  // The report end_phase wrote (it lives in the schedule's history), for
  // relocalized(), which follows end_phase of the same run; null from
  // begin_phase on until then.
  alignas(64) run_report* last_report_ = nullptr;
  schedule_state* state_ = nullptr;
  steal_tree::recorder* recorder_ = nullptr;
  std::optional<detail::evolve_controller> evolve_;  // the evolving kinds' state machine
  // stows and stuws: which of their random runs becomes the template (template_pick.hpp).
  const bool picks_template_ = detail::is_strict(fixed_mode_);
  detail::template_pick pick_;
  // stows, stuws and a converged evolve: a small template timed against the
  // caller alone, and the plan of its alone runs (the template without its
  // steals: every spawn a call), compiled once per template. Not coarsen:
  // its search times the pruned templates themselves.
  const bool times_alone_ =
      picks_template_ || kind_.kind == replay_kind::evolve || kind_.kind == replay_kind::evolve_hinted;
  detail::alone_trial alone_trial_;
  std::shared_ptr<const detail::template_plan> alone_plan_;
  bool timed_ = false;  // this run is one the trial decided (a strict replay of a template)
  bool alone_ = false;  // this run
  detail::replay_engine engine_;
  // evolve-hinted: the hinted engine its template-less runs use instead of random.
  std::unique_ptr<detail::hinted_engine> hinted_;
  bool hinting_ = false;
  // This run, as decided by begin_phase. Strings are rewritten in place every
  // phase (keeping capacity), not rebuilt.
  cws::ran_as planned_ = cws::ran_as::other;
  std::string template_from_;
  std::string missing_;
  std::shared_ptr<const detail::template_plan> plan_;  // cached: recompiled only when the template changes
  std::string inconsistency_;                          // consistency_error() of plan_'s tree
  std::vector<std::uint32_t> check_scratch_;           // for the template checks
  // Plans compiled so far, reused once neither plan_ nor the engine holds them
  // (relws gets a new template every run).
  std::vector<std::shared_ptr<detail::template_plan>> plans_;
  std::uint64_t divergences_ = 0;    // of this schedule's runs (each one is warned about)
  bool relocalize_ = false;          // evolve: move the pages to where the template runs (see end_phase)
  bool relocalizing_stows_ = false;  // ... after a stows run (settling), not a template-making one
};

void replay_policy::attach(const policy_context& ctx) {
  if (kind_.kind == replay_kind::evolve_hinted) {
    hinted_ = std::make_unique<detail::hinted_engine>();
    hinted_->attach(ctx.runtime.places(), knobs_of(ctx.runtime.config()).hinted, detail::hinted_mode::pufferfish);
  }
  rt_ = &ctx.runtime;
  schedule_ = &ctx.schedule;
  store_ = &store_of(ctx.runtime);
  knobs_ = &knobs_of(ctx.runtime.config());
  numa_nodes_ = ctx.runtime.topology().numa_nodes();
  state_ = &store_->state(ctx.schedule.name());
  recorder_ = steal_tree::recorder_of(ctx.runtime);
  if (kind_.traits.evolves) evolve_.emplace(*state_, *store_, kind_.kind == replay_kind::coarsen, knobs_->replay);
}

cws::runtime& replay_policy::runtime() const {
  if (rt_ == nullptr)
    throw error(fmt::format("policy '{}' used outside a runtime (make it with cws::runtime::schedule)", name()));
  return *rt_;
}

const steal_tree::recorder& recorder_for(const steal_tree::recorder* rec, std::string_view schedule,
                                         std::string_view policy) {
  if (rec == nullptr)
    throw error(
        fmt::format("schedule '{}': policy '{}' replays recorded steal trees, but recording is off "
                    "(CWS_RECORD=0 or runtime_config::record = false)",
                    schedule, policy));
  return *rec;
}

// ------------------------------------------------------------- begin_phase

void replay_policy::begin_phase(const phase_info& info) {
  last_report_ = nullptr;
  timed_ = alone_ = false;
  const runtime_config& cfg = runtime().config();
  const steal_tree::recorder& rec = recorder_for(recorder_, info.schedule, name());
  template_from_.clear();
  const std::shared_ptr<const steal_tree::tree>& chosen =
      kind_.kind == replay_kind::user ? no_tree : choose_template(info, rec);
  std::string unusable = load_plan(chosen, info);
  const replay_mode mode = mode_of_run(chosen != nullptr);
  planned_ = detail::ran_as_of(mode, chosen != nullptr);
  hinting_ = hinted_ && mode == replay_mode::random && unusable.empty();
  if (hinting_) planned_ = cws::ran_as::hinted;
  if (!unusable.empty()) {
    engine_.prepare(replay_mode::random, nullptr, info.workers, knobs_->replay.stall_ms);
    engine_.diverge_up_front(std::move(unusable));
    return;
  }
  // The planner's audit run records every task: no elision for it (elided calls are not tasks).
  const bool auditing = evolve_ && evolve_->auditing() && mode == replay_mode::stows;
  if (auditing) recorder_->audit_next_phase();
  const bool elide = kind_.traits.elides && knobs_->replay.elide && !cfg.audit && !auditing;
  timed_ = times_alone_ && detail::is_strict(mode) && !auditing && (!evolve_ || state_->converged);
  alone_ = timed_ && run_alone(chosen);
  engine_.prepare(mode,
                  mode == replay_mode::random ? no_plan
                  : alone_                    ? alone_plan_
                                              : plan_,
                  info.workers, knobs_->replay.stall_ms, elide, knobs_->replay.grace_us);
}

bool replay_policy::run_alone(const std::shared_ptr<const steal_tree::tree>& chosen) {
  const unsigned bound_us = knobs_->replay.alone_us_on(numa_nodes_);
  // A template without a steal keeps every task on the caller: under a
  // strict replay the helpers would only wake to find nothing they may run.
  if (chosen->segments.size() == 1 && bound_us != 0) {
    alone_trial_.use(nullptr, bound_us);  // a template with steals later starts its trial afresh
    if (alone_plan_ != plan_) alone_plan_ = plan_;
    template_from_ += ", run alone";
    return true;
  }
  if (alone_trial_.use(chosen, bound_us)) {
    steal_tree::coarsen_options no_steals;
    no_steals.max_level = 0;
    alone_plan_ = detail::compile(store_->share(steal_tree::coarsen(*chosen, no_steals)));
  }
  if (!alone_trial_.alone_next()) return false;
  template_from_ += alone_trial_.trying() ? ", timed alone" : ", run alone";
  return true;
}

const std::shared_ptr<const steal_tree::tree>& replay_policy::choose_template(const phase_info& info,
                                                                              const steal_tree::recorder& rec) {
  schedule_state& s = *state_;  // template_from_ is empty (begin_phase)
  missing_.clear();
  if (info.follows.empty()) {
    if (s.templ) {
      template_from_ = s.template_from;
      return s.templ;
    }
    if (!pick_.picking())
      missing_ = "no template yet";
    else if (pick_.balanced_candidate())
      format_into(missing_, "a balanced run with fewer steals wanted: {} of {} tried", pick_.tries(), template_tries());
    else if (pick_.absent_uncounted() == 0)
      format_into(missing_, "no balanced run yet: {} of {} tried", pick_.tries(), template_tries());
    else
      format_into(missing_, "no balanced run yet: {} of {} tried, {} more with a helper absent", pick_.tries(),
                  template_tries(), pick_.absent_uncounted());
    return no_tree;
  }
  if (const schedule_state* other = store_->find(info.follows); other != nullptr && other->templ) {
    format_into(template_from_, "follows '{}': {}", info.follows, other->template_from);
    return other->templ;
  }
  // The followed schedule keeps no template (e.g. it runs under random): its
  // latest recorded run, copied once per run of it. The copy stays usable when
  // the recorder no longer has that run (clear(), or a window of runs that
  // the followed schedule never reaches again does not matter: a schedule
  // always keeps its latest run there).
  const steal_tree::phase_record* r = rec.latest(info.follows);
  if (r != nullptr && !(s.followed && s.followed_schedule == info.follows && s.followed_run == r->iteration)) {
    s.followed = store_->share(r->steals);
    s.followed_schedule = info.follows;
    s.followed_run = r->iteration;
  }
  if (s.followed && s.followed_schedule == info.follows) {
    format_into(template_from_, "follows '{}': its run #{}", info.follows, s.followed_run);
    return s.followed;
  }
  format_into(missing_, "'{}', which it follows, has not run yet", info.follows);
  return no_tree;
}

std::string replay_policy::load_plan(const std::shared_ptr<const steal_tree::tree>& chosen, const phase_info& info) {
  if (!chosen) {
    plan_.reset();
    return {};
  }
  if (std::string why = detail::worker_count_error(*chosen, info.workers); !why.empty())
    throw error(fmt::format("schedule '{}' (policy {}): refusing to replay its template ({}): {}", info.schedule,
                            name(), template_from_, why));
  // A template is checked and compiled once, when it changes: replaying the
  // same one again (stows after convergence, a follower) costs nothing here.
  if (!plan_ || plan_->tree != chosen) {
    plan_.reset();
    if (std::string why = detail::structural_error(*chosen, check_scratch_); !why.empty())
      return "the template is malformed: " + why;
    plan_ = compile_pooled(chosen);
    inconsistency_ = detail::consistency_error(*chosen, check_scratch_);
  }
  if (!inconsistency_.empty()) return "the template is inconsistent: " + inconsistency_;
  return {};
}

std::shared_ptr<const detail::template_plan> replay_policy::compile_pooled(std::shared_ptr<const steal_tree::tree> t) {
  for (const auto& p : plans_)
    if (p.use_count() == 1) {
      detail::compile_into(*p, std::move(t));
      return p;
    }
  auto p = std::make_shared<detail::template_plan>();
  detail::compile_into(*p, std::move(t));
  if (plans_.size() < 3) plans_.push_back(p);  // in use at once: this one, the engine's, one spare
  return p;
}

replay_mode replay_policy::mode_of_run(bool has_template) const noexcept {
  if (kind_.kind == replay_kind::user) return replay_mode::user;
  if (!has_template) return replay_mode::random;
  return evolve_ ? evolve_->mode_for(plan_.get()) : fixed_mode_;
}

// --------------------------------------------------------------- end_phase

void replay_policy::end_phase(run_report& r) {
  runtime();  // throws when never attached
  const steal_tree::phase_record* record = recorded_run(r.phase.iteration);
  release_unused_plans();
  write_outcome(r);
  if (r.diverged()) report_divergence(r);
  // Only the runs the trial decided count: not evolve's probes (random), nor its audit.
  if (timed_ && !r.diverged() &&
      alone_trial_.after_run(alone_, r.wall_s, alone_trial_.wants_busy_time(r.wall_s) ? busy_time(r) : 0))
    r.note = alone_trial_.decision();
  // A replay that took its template's steals again (most runs once a
  // schedule settled) is at distance 0 from the previous run: said without
  // computing a distance, and its tree is not copied (next_template).
  bool repeated = false;
  if (record != nullptr && state_->previous) {
    repeated = steal_tree::same_steals(*state_->previous, record->steals);
    r.distance_to_previous = repeated ? 0.0 : store_->moved_share(*state_->previous, record->steals);
  }
  plan_relocalization(r, record != nullptr);
  if (record != nullptr) next_template(r, *record, repeated);
  r.converged = kind_.traits.evolves && state_->converged;
  last_report_ = &r;  // relocalized() may add to its note
}

// The recorder's record of this run; null when it has none (recording off).
const steal_tree::phase_record* replay_policy::recorded_run(std::uint64_t iteration) const noexcept {
  const steal_tree::phase_record* record = recorder_ ? recorder_->latest(*schedule_) : nullptr;
  return record != nullptr && record->iteration == iteration ? record : nullptr;
}

// Plans nobody replays any more let go of their trees, so that the pool can
// rewrite those for the fresh tree (next_template).
void replay_policy::release_unused_plans() noexcept {
  for (const auto& p : plans_)
    if (p.use_count() == 1) p->tree.reset();
}

// What ran, and why it differs from what was planned, written into the run's
// report (the core reset its policy part; assignments reuse its strings).
void replay_policy::write_outcome(run_report& r) {
  // Room for evolve's longest note from the start, so that a decision taken
  // long after the schedule's history filled does not allocate.
  if (r.note.capacity() < 192) r.note.reserve(192);
  r.ran_as = r.planned = planned_;
  if (planned_ == cws::ran_as::random_no_template || planned_ == cws::ran_as::hinted) r.reason = missing_;
  r.template_from = template_from_;
  if (engine_.diverged()) {
    r.ran_as = engine_.released() ? cws::ran_as::random_released : cws::ran_as::random_diverged;
    engine_.divergence_into(r.reason);
  }
}

// Every divergence is said (a stalled phase cost CWS_STALL_MS): the first in
// full, later ones in one short line with the count.
void replay_policy::report_divergence(const run_report& r) {
  schedule_state& s = *state_;
  s.diverged = true;
  ++divergences_;
  if (!s.warned) {
    s.warned = true;
    std::fprintf(stderr,
                 "cws: warning: schedule '%s' diverged from its template (%s): %s; the phase finished under random "
                 "stealing and %s\n",
                 s.name.c_str(), template_from_.c_str(), r.reason.c_str(),
                 engine_.elides() ? "the next run records a fresh template (serial elision was on)"
                                  : "its fresh tree is the schedule's new template");
  } else {
    std::fprintf(stderr, "cws: warning: schedule '%s' diverged again in run #%llu (%llu divergences so far; %s): %s\n",
                 s.name.c_str(), static_cast<unsigned long long>(r.phase.iteration),
                 static_cast<unsigned long long>(divergences_), template_from_.c_str(), r.reason.c_str());
  }
}

// evolve moves pages after every run that becomes the template (relws, or a
// random first or diverged run), and after the stows runs of a converged
// template until one finds every page in place: a phase that alternates
// buffers (a Jacobi sweep reading one grid, writing the other) touches each
// buffer in both roles only over two runs, so the run that converged cannot
// place the pages its successor writes.
void replay_policy::plan_relocalization(const run_report& r, bool recorded) {
  const schedule_state& s = *state_;
  relocalizing_stows_ = !r.diverged() && !r.released() && s.converged &&  // not the audit run
                        detail::is_strict(engine_.mode());
  relocalize_ = kind_.traits.evolves && knobs_->replay.evolve_relocalize && recorded &&
                !(evolve_ && evolve_->probing()) &&  // a probe's random run is no template: the pages stay
                !r.released() &&                     // nor is a released one
                !alone_ &&                           // nor one on the caller alone: its touches are all there
                (!relocalizing_stows_ || !s.pages_settled);
}

// The next template. The recorded tree is copied once (into a pooled tree:
// no allocation in steady state) and shared by the template and `previous`.
void replay_policy::next_template(run_report& r, const steal_tree::phase_record& record, bool repeated) {
  schedule_state& s = *state_;
  const replay_mode mode = engine_.mode();
  // A strict replay's tree is only kept as `previous` (for the next
  // distance): when it repeats the previous run's steals, that one stands
  // for it (the time stamps differ, which nothing after the run reads).
  // relws replays its previous run, which is its template, and user keeps
  // its previous run as one: a run that took the same steals leaves that
  // template in place, so the run neither copies a tree nor makes the next
  // one check and compile it again (a relaxed replay reads no time stamps;
  // template_from keeps naming the run that first took those steals).
  const bool keeps = detail::is_strict(mode) || (!evolve_ && (mode == replay_mode::relws || mode == replay_mode::user));
  if (repeated && !r.diverged() && keeps) {
    if (evolve_) evolve_->after_run(mode, r, rt_->config(), s.previous, record);
    return;
  }
  // evolve's probe ran under random stealing against its converged template,
  // which stays: the probe's tree is kept nowhere.
  if (evolve_ && evolve_->probing() && mode == replay_mode::random) {
    evolve_->after_run(mode, r, rt_->config(), nullptr, record);
    return;
  }
  std::shared_ptr<const steal_tree::tree> fresh = store_->share(record.steals);
  if (!r.diverged() && mode != replay_mode::random && pick_.picking()) pick_.reset();  // a seeded template ran
  if (r.released()) {
    // A late worker, not a template that does not fit: the template stays,
    // and evolve judges the run's time as that of a strict one.
    if (evolve_) evolve_->after_run(mode, r, rt_->config(), fresh, record);
    s.previous = std::move(fresh);
    return;
  }
  if (r.diverged() || mode == replay_mode::random) {
    start_over(r, fresh);
  } else if (evolve_) {
    evolve_->after_run(mode, r, rt_->config(), fresh, record);
  } else if (mode == replay_mode::relws) {
    s.templ = fresh;
    format_into(s.template_from, "recorded run #{} (relws)", r.phase.iteration);
  } else if (mode == replay_mode::user) {
    s.templ = fresh;
    format_into(s.template_from, "designations of run #{}", r.phase.iteration);
  }
  s.previous = std::move(fresh);
}

// A template-less or diverged run: its fresh tree is the template, and evolve
// learns from scratch. Under serial elision a diverged run's extra steals are
// named without the elided spawns, so that tree is no template: the next run
// records one under random stealing.
void replay_policy::start_over(run_report& r, const std::shared_ptr<const steal_tree::tree>& fresh) {
  schedule_state& s = *state_;
  const bool elided = r.diverged() && engine_.elides();
  if (elided) {
    s.templ = nullptr;
    format_into(s.template_from, "none (run #{} diverged under serial elision)", r.phase.iteration);
  } else if (picks_template_ && !r.diverged()) {
    pick_template(r, fresh);
  } else {
    s.templ = fresh;
    format_into(s.template_from, "recorded run #{}{}", r.phase.iteration, r.diverged() ? " (after divergence)" : "");
  }
  if (kind_.traits.evolves && r.diverged())
    format_into(r.note, "diverged: evolve starts over from {}", elided ? "a fresh random run" : "this run's tree");
  detail::evolve_controller::restart(s);
}

// stows, stuws, a template-less run: its tree becomes the template if it passes the balance
// rule; otherwise the schedule records again under random, up to the bound,
// and then takes the most balanced run (template_pick.hpp). The note says
// which, so that a replay slower than random can be traced to its template.
void replay_policy::pick_template(run_report& r, const std::shared_ptr<const steal_tree::tree>& fresh) {
  schedule_state& s = *state_;
  const unsigned bound = template_tries();
  // Balanced in time; the task counts decide only whether it is adopted at once (template_pick.hpp).
  const bool balanced =
      fresh->workers <= 1 || knobs_->replay.balanced(r.balance.idle_workers, r.balance.busy_over_fair);
  // An absent helper is the machine's timing, not the phase's balance (template_pick.hpp).
  const bool helper_absent =
      detail::template_pick::helper_absent(r.workers_joined, r.per_worker.size(), r.tasks(), r.wall_s);
  // A balanced run with steals it does not need is offered pruned (template_pick.hpp).
  std::shared_ptr<const steal_tree::tree> offered = fresh;
  if (bound > 1 && balanced && detail::template_pick::extra_steals_of(*fresh) > 0)
    if (std::optional<steal_tree::tree> fewer =
            detail::template_pick::fewer_steals(*fresh, knobs_->replay, detail::template_pick::busy_of(r)))
      offered = store_->share(*fewer);
  const steal_tree::balance counts = steal_tree::balance_of(*offered);
  const bool counts_balanced =
      offered->workers <= 1 || knobs_->replay.balanced(counts.idle_workers, counts.max_share_ratio);
  const detail::template_pick::verdict v =
      pick_.offer(offered, r.balance, balanced, counts_balanced, helper_absent, r.phase.iteration, bound,
                  detail::template_pick::steals_of(*fresh));
  if (!v.adopt) {
    s.templ = nullptr;
    if (balanced)
      format_into(s.template_from, "none (run #{} balanced, with more steals than it needs or uneven tasks)",
                  r.phase.iteration);
    else
      format_into(s.template_from, "none (run #{} not balanced enough)", r.phase.iteration);
    if (!v.counted) {
      format_into(r.note,
                  "not a template: a helper had not joined when the phase ended (parked or off its core); "
                  "recording again under random (not counted in CWS_TEMPLATE_TRIES: {} of {} such runs)",
                  pick_.absent_uncounted(), detail::template_pick::absent_allowance);
      return;
    }
    if (balanced && detail::template_pick::extra_steals_of(*offered) > 0) {
      format_into(r.note,
                  "not a template yet: balanced, but {} steal(s) more than the {} a balanced tree needs; recording "
                  "again under random ({} of {}, CWS_TEMPLATE_TRIES)",
                  detail::template_pick::extra_steals_of(*offered), fresh->workers - 1, pick_.tries(), bound);
      return;
    }
    if (balanced) {
      format_into(r.note,
                  "not a template yet: balanced in time but not in tasks (busiest worker x{:.2f} of the tasks' "
                  "fair share; a worker may have lost its core); recording again under random ({} of {}, "
                  "CWS_TEMPLATE_TRIES)",
                  counts.max_share_ratio, pick_.tries(), bound);
      return;
    }
    format_into(r.note,
                "not a template: busiest worker x{:.2f} of its fair share of the busy time, {} idle "
                "(CWS_EVOLVE_BALANCE); recording again under random ({} of {}, CWS_TEMPLATE_TRIES)",
                r.balance.busy_over_fair, r.balance.idle_workers, pick_.tries(), bound);
    return;
  }
  s.templ = v.adopt;
  const std::uint64_t steals = detail::template_pick::steals_of(*v.adopt);
  const std::string_view pruned = v.recorded_steals > steals ? ", pruned" : "";
  if (!v.best_of_bound) {
    format_into(s.template_from, "recorded run #{}{}", r.phase.iteration, pruned);
    if (!pruned.empty())
      format_into(r.note, "template: this run's tree pruned from {} to {} steal(s), as balanced (CWS_EVOLVE_BALANCE)",
                  v.recorded_steals, steals);
    return;
  }
  if (v.balanced) {
    format_into(s.template_from, "recorded run #{}{}, the balanced one with the fewest steals of {} random runs", v.run,
                pruned, bound);
    format_into(r.note,
                "no random run balanced in time and in tasks with only the steals it needs in {}: run #{} ({} more, "
                "busiest worker x{:.2f} of the busy time's fair share) is the template",
                bound, v.run, v.extra_steals, v.balance.busy_over_fair);
    return;
  }
  format_into(s.template_from, "recorded run #{}, the most balanced of {} random runs", v.run, bound);
  format_into(r.note,
              "no random run balanced in {}: run #{} (busiest worker x{:.2f} of the busy time's fair share) is the "
              "template",
              bound, v.run, v.balance.busy_over_fair);
}

// Under stows every run replays the same tree, so the touches repeat with the
// phase's own period; a bound still stops phases whose touches follow the data.
void replay_policy::relocalized(const relocalization_report& report) {
  const unsigned bound = knobs_->replay.evolve_bound;
  schedule_state& s = *state_;
  if (!relocalizing_stows_ || s.pages_settled) return;
  if (report.pages_moved != 0 && ++s.evolve_counters.settling_runs < bound) return;
  s.pages_settled = true;
  // The relocalization is the latest run's (the core put it in its report).
  if (last_report_ == nullptr || last_report_->phase.iteration != report.iteration) return;
  std::string& note = last_report_->note;
  note += note.empty() ? "" : "; ";
  // Appended in place (the report's storage is reused from run to run).
  if (report.pages_moved == 0)
    note += "pages in place: no more relocalization";
  else
    fmt::format_to(std::back_inserter(note), "pages still moving after {} stows runs: no more relocalization",
                   s.evolve_counters.settling_runs);
}

}  // namespace

bool register_policies() {
  static const bool done = [] {
    for (const detail::replay_policy_kind& kind : detail::replay_policy_kinds)
      policy_registry::add(
          std::string(kind.name), [&kind] { return std::make_unique<replay_policy>(kind); }, kind.traits);
    detail::register_hinted_policies();
    return detail::register_store();
  }();
  return done;
}

}  // namespace cws::schedulers
