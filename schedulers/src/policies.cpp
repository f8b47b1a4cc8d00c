// The five replaying policies: one class, configured by name, on the shared
// replay engine. begin_phase() decides what this run replays (and refuses a
// template for another worker count); end_phase() writes the report, updates
// the template and runs evolve's state machine. Both run between phases on
// the thread that calls runtime::run.
#include <fmt/format.h>

#include <cstdio>
#include <algorithm>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cws/error.hpp"
#include "cws/runtime.hpp"
#include "cws/schedulers/policies.hpp"
#include "cws/schedulers/schedule_store.hpp"
#include "cws/steal_tree/balance.hpp"
#include "cws/steal_tree/coarsen.hpp"
#include "cws/steal_tree/recorder.hpp"
#include "hinted_engine.hpp"
#include "hinted_policy.hpp"
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
  task_handle find_work(worker_view& view) override {
    return hinting_ ? hinted_->find_work(view) : engine_.find_work(view);
  }
  void idle_pass(worker_view& view) override {
    if (!hinting_) engine_.idle_pass(view);
  }
  bool relocalize_after_phase() const noexcept override { return relocalize_; }
  void relocalized(const relocalization_report& report) override;

 private:
  // The template this run replays (null: none), with template_from_ set, or
  // missing_ saying why there is none.
  std::shared_ptr<const steal_tree::tree> choose_template(const phase_info& info, schedule_store& store,
                                                          schedule_state& s, const steal_tree::recorder& rec);
  // A plan for `t` in the storage of a plan no longer in use.
  std::shared_ptr<const detail::template_plan> compile_pooled(std::shared_ptr<const steal_tree::tree> t);
  bool evolves() const noexcept {
    return name_ == policy::evolve || name_ == policy::coarsen || name_ == policy::evolve_hinted;
  }
  void evolve_after(schedule_state& s, iteration_report& r, const run_report& stats, const runtime_config& cfg,
                    std::shared_ptr<const steal_tree::tree> fresh);
  void after_audit(schedule_state& s, iteration_report& r, const steal_tree::phase_record& record);
  void converge(schedule_state& s, iteration_report& r);
  void coarsen_after(schedule_state& s, iteration_report& r, const runtime_config& cfg);

  // The runtime this policy's schedule belongs to (attach()), throwing when
  // the policy was never attached to a schedule.
  cws::runtime& runtime() const;

  std::string name_;
  // From attach(): the runtime, its schedule store and its recorder (null
  // when recording is off). Looked up once, not per phase.
  cws::runtime* rt_ = nullptr;
  schedule_store* store_ = nullptr;
  steal_tree::recorder* recorder_ = nullptr;
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

// out = the formatted text, reusing out's storage (no allocation once it is
// large enough), where fmt::format would build a new string.
template <class... Args>
void format_into(std::string& out, fmt::format_string<Args...> f, Args&&... args) {
  out.clear();
  fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
}

void replay_policy::attach(const policy_context& ctx) {
  if (name_ == policy::evolve_hinted) {
    hinted_ = std::make_unique<detail::hinted_engine>();
    hinted_->attach(ctx.runtime.places(), ctx.runtime.config().hinted, detail::hinted_mode::pufferfish);
  }
  rt_ = &ctx.runtime;
  store_ = &store_of(ctx.runtime);
  recorder_ = steal_tree::recorder_of(ctx.runtime);
}

cws::runtime& replay_policy::runtime() const {
  if (rt_ == nullptr)
    throw error(fmt::format("policy '{}' used outside a runtime (make it with cws::runtime::schedule)", name_));
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

std::shared_ptr<const steal_tree::tree> replay_policy::choose_template(const phase_info& info, schedule_store& store,
                                                                       schedule_state& s,
                                                                       const steal_tree::recorder& rec) {
  template_from_.clear();
  missing_.clear();
  if (info.follows.empty()) {
    if (s.templ) {
      template_from_ = s.template_from;
      return s.templ;
    }
    missing_ = "no template yet";
    return nullptr;
  }
  if (const schedule_state* other = store.find(info.follows); other != nullptr && other->templ) {
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
    s.followed = store.share(r->steals);
    s.followed_schedule = info.follows;
    s.followed_run = r->iteration;
  }
  if (s.followed && s.followed_schedule == info.follows) {
    format_into(template_from_, "follows '{}': its run #{}", info.follows, s.followed_run);
    return s.followed;
  }
  format_into(missing_, "'{}', which it follows, has not run yet", info.follows);
  return nullptr;
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

void replay_policy::begin_phase(const phase_info& info) {
  cws::runtime& rt = runtime();
  const steal_tree::recorder& rec = recorder_for(recorder_, info.schedule, name_);
  schedule_store& store = *store_;
  schedule_state& state = store.state(info.schedule);

  replay_mode mode = replay_mode::user;
  std::shared_ptr<const steal_tree::tree> chosen;
  template_from_.clear();
  if (name_ != policy::user) {
    chosen = choose_template(info, store, state, rec);
    if (evolves())
      mode =
          state.mode == evolve_mode::stows || state.evolve_counters.auditing ? replay_mode::stows : replay_mode::relws;
    else
      mode = name_ == policy::stows   ? replay_mode::stows
             : name_ == policy::stuws ? replay_mode::stuws
                                      : replay_mode::relws;
    if (!chosen) mode = replay_mode::random;
  }

  std::string unusable;  // a template that runs as an immediate divergence
  if (chosen) {
    if (std::string why = detail::worker_count_error(*chosen, info.workers); !why.empty())
      throw error(fmt::format("schedule '{}' (policy {}): refusing to replay its template ({}): {}", info.schedule,
                              name_, template_from_, why));
    // A template is checked and compiled once, when it changes: replaying the
    // same one again (stows after convergence, a follower) costs nothing here.
    if (!plan_ || plan_->tree != chosen) {
      plan_.reset();
      if (std::string why = detail::structural_error(*chosen, check_scratch_); !why.empty()) {
        unusable = "the template is malformed: " + why;
      } else {
        plan_ = compile_pooled(chosen);
        inconsistency_ = detail::consistency_error(*chosen, check_scratch_);
      }
    }
    if (plan_ && !inconsistency_.empty()) unusable = "the template is inconsistent: " + inconsistency_;
  } else {
    plan_.reset();
  }

  // evolve's strict stage keeps the template's order only where the order is
  // a fact: a planned template (no stamps: steal_tree::plan) lists each
  // worker's segments in an estimated order, which may wait for a segment
  // that only a later one lets come. Its thieves are exact all the same, so
  // it replays under stuws: every task still runs where the plan put it.
  if (mode == replay_mode::stows && evolves() && !state.evolve_counters.auditing && plan_ && !plan_->nesting_known)
    mode = replay_mode::stuws;

  planned_ = detail::ran_as_of(mode);
  hinting_ = hinted_ && mode == replay_mode::random && unusable.empty();
  if (hinting_) planned_ = cws::ran_as::hinted;
  if (!unusable.empty()) {
    engine_.prepare(replay_mode::random, nullptr, info.workers, rt.config().replay.stall_ms);
    engine_.diverge_up_front(std::move(unusable));
    return;
  }
  // The planner's audit run records every task: no elision for it (elided calls are not tasks).
  const bool auditing = evolves() && state.evolve_counters.auditing && mode == replay_mode::stows;
  if (auditing) recorder_->audit_next_phase();
  const bool elide = rt.config().replay.elide && !rt.config().audit && !auditing;
  engine_.prepare(mode, mode == replay_mode::random ? nullptr : plan_, info.workers, rt.config().replay.stall_ms,
                  elide);
}

void replay_policy::end_phase(run_report& stats) {
  cws::runtime& rt = runtime();
  const std::string& schedule = stats.phase.schedule;
  schedule_store& store = *store_;
  schedule_state& s = store.state(schedule);
  const steal_tree::phase_record* record = recorder_ ? recorder_->latest(schedule) : nullptr;
  if (record != nullptr && record->iteration != stats.phase.iteration) record = nullptr;
  // Plans nobody replays any more let go of their trees, so that the pool can
  // rewrite those for the fresh tree below.
  for (const auto& p : plans_)
    if (p.use_count() == 1) p->tree.reset();

  // The report goes into the storage of the oldest one kept once the window is
  // full; fill_report overwrites every field.
  iteration_report& r = s.history.next();
  fill_report(r, stats);
  // Room for evolve's longest note from the start, so that a decision taken
  // long after the window filled does not allocate.
  if (r.note.capacity() < 192) r.note.reserve(192);
  r.policy = name_;
  r.ran_as = r.planned = planned_;
  if (planned_ == cws::ran_as::random_no_template || planned_ == cws::ran_as::hinted) r.reason = missing_;
  r.template_from = template_from_;
  r.diverged = engine_.diverged();
  if (r.diverged) {
    r.divergence = engine_.divergence();
    r.ran_as = cws::ran_as::random_diverged;
    r.reason = r.divergence;
    s.diverged = true;
    ++divergences_;
    // Every divergence is said (a stalled phase cost CWS_STALL_MS): the first
    // in full, later ones in one short line with the count.
    if (!s.warned) {
      s.warned = true;
      std::fprintf(stderr,
                   "cws: warning: schedule '%s' diverged from its template (%s): %s; the phase finished under random "
                   "stealing and %s\n",
                   schedule.c_str(), template_from_.c_str(), r.divergence.c_str(),
                   engine_.elides() ? "the next run records a fresh template (serial elision was on)"
                                    : "its fresh tree is the schedule's new template");
    } else {
      std::fprintf(stderr, "cws: warning: schedule '%s' diverged again in run #%llu (%llu divergences so far; %s): %s\n",
                   schedule.c_str(), static_cast<unsigned long long>(r.iteration),
                   static_cast<unsigned long long>(divergences_), template_from_.c_str(), r.divergence.c_str());
    }
  }
  if (record != nullptr && s.previous) r.distance_to_previous = store.moved_share(*s.previous, record->steals);
  // evolve moves pages after every run that becomes the template (relws, or a
  // random first or diverged run), and after the stows runs of a converged
  // template until one finds every page in place: a phase that alternates
  // buffers (a Jacobi sweep reading one grid, writing the other) touches each
  // buffer in both roles only over two runs, so the run that converged cannot
  // place the pages its successor writes.
  relocalizing_stows_ = !r.diverged && s.converged &&  // not the audit run
                        (engine_.mode() == replay_mode::stows || engine_.mode() == replay_mode::stuws);
  relocalize_ = evolves() && rt.config().replay.evolve_relocalize && record != nullptr &&
                (!relocalizing_stows_ || !s.pages_settled);

  // The next template. The recorded tree is copied once (into a pooled tree:
  // no allocation in steady state) and shared by the template and `previous`.
  if (record != nullptr) {
    std::shared_ptr<const steal_tree::tree> fresh = store.share(record->steals);
    const replay_mode mode = engine_.mode();
    if (r.diverged || mode == replay_mode::random) {
      // Start over from the fresh tree. Under serial elision a diverged run's
      // extra steals are named without the elided spawns, so that tree is no
      // template: the next run records one under random stealing.
      const bool elided = r.diverged && engine_.elides();
      s.templ = elided ? nullptr : fresh;
      if (elided)
        format_into(s.template_from, "none (run #{} diverged under serial elision)", r.iteration);
      else
        format_into(s.template_from, "recorded run #{}{}", r.iteration, r.diverged ? " (after divergence)" : "");
      if (evolves() && r.diverged)
        format_into(r.note, "diverged: evolve starts over from {}", elided ? "a fresh random run" : "this run's tree");
      s.mode = evolve_mode::relws;
      s.converged = false;
      s.pages_settled = false;
      s.evolve_counters = {};
      s.coarsen_search = {};
    } else if (evolves() && s.evolve_counters.auditing) {
      after_audit(s, r, *record);
    } else if (evolves()) {
      evolve_after(s, r, stats, rt.config(), fresh);
    } else if (mode == replay_mode::relws) {
      s.templ = fresh;
      format_into(s.template_from, "recorded run #{} (relws)", r.iteration);
    } else if (mode == replay_mode::user) {
      s.templ = fresh;
      format_into(s.template_from, "designations of run #{}", r.iteration);
    }
    s.previous = std::move(fresh);
  }

  // The run's report: what the history entry says, typed (assignments reuse
  // the report's strings).
  stats.ran_as = r.ran_as;
  stats.planned = r.planned;
  stats.reason = r.reason;
  stats.template_from = r.template_from;
  stats.distance_to_previous = r.distance_to_previous;
  stats.converged = evolves() && s.converged;
}

// Whether a relws tree with these figures is a better template than evolve's
// best so far: balanced beats unbalanced; between unbalanced ones the smaller
// busiest share wins; between balanced ones the more local, then the faster.
// evolve's balance rule (CWS_EVOLVE_BALANCE): every worker ran a task and the
// busiest one's share is within the tolerance of 1/P; always true when off.
bool balanced_enough(unsigned idle_workers, double max_share, const runtime_config& cfg) {
  if (cfg.replay.evolve_balance_pct == 0) return true;
  return idle_workers == 0 && max_share <= 1.0 + cfg.replay.evolve_balance_pct / 100.0;
}

bool better_template(const detail::evolve_counters& c, bool balanced, double share, double local, double seconds) {
  if (!c.best) return true;
  if (balanced != c.best_balanced) return balanced;
  if (!balanced) return share < c.best_share;
  if (local != c.best_local) return local > c.best_local;
  return seconds < c.best_s;
}

void replay_policy::converge(schedule_state& s, iteration_report& r) {
  s.mode = evolve_mode::stows;
  s.converged = true;
  s.converged_at = r.iteration;
  s.evolve_counters.slowdown.reset();
  s.evolve_counters.relws_runs = 0;
  s.pages_settled = false;
  s.evolve_counters.settling_runs = 0;
  s.coarsen_search = {};
  r.converged = true;
}

// evolve: relws until an iteration adds no steal, takes nothing back (the
// tree stopped changing) and is balanced, or the bound is reached (then the
// best tree, or a planned one), then stows; back to relws when the stows
// runs got slower for good.
void replay_policy::evolve_after(schedule_state& s, iteration_report& r, const run_report& stats,
                                 const runtime_config& cfg, std::shared_ptr<const steal_tree::tree> fresh) {
  detail::evolve_counters& c = s.evolve_counters;
  if (engine_.mode() == replay_mode::relws) {
    s.templ = fresh;
    format_into(s.template_from, "recorded run #{} (relws)", r.iteration);
    ++c.relws_runs;
    const bool balanced = balanced_enough(r.balance.idle_workers, r.balance.max_over_fair, cfg);
    const double local = stats.locality ? stats.locality->share() : -1.0;
    if (better_template(c, balanced, r.balance.max_over_fair, local, r.wall_s)) {
      c.best = std::move(fresh);
      c.best_run = r.iteration;
      c.best_balanced = balanced;
      c.best_share = r.balance.max_over_fair;
      c.best_local = local;
      c.best_s = r.wall_s;
    }
    const bool settled = r.extra_steals == 0 && r.taken_back == 0;
    if (settled && balanced) {
      format_into(r.note, "converged after {} relws runs (busiest worker x{:.2f} of 1/P): switching to stows",
                  c.relws_runs, r.balance.max_over_fair);
      converge(s, r);
      return;
    }
    if (c.relws_runs + 1 == cfg.replay.evolve_bound && !c.best_balanced && !c.planned && s.templ->workers > 1) {
      // One run left and no run showed a balanced tree (workers that never
      // got a core look like workers with nothing to do): the bound's last
      // run replays the best tree recording every task, so that the planner
      // can hand out the work evenly. It counts against the bound, so evolve
      // converges within it whatever the machine's load.
      c.planned = true;
      c.auditing = true;
      s.templ = c.best;
      format_into(s.template_from, "recorded run #{} (best relws run)", c.best_run);
      format_into(r.note,
                  "no balanced tree in {} relws runs (best: run #{}, busiest x{:.2f}): the last run of the bound of {} "
                  "is an audit run of it, then the planner",
                  c.relws_runs, c.best_run, c.best_share, cfg.replay.evolve_bound);
      return;
    }
    if (c.relws_runs < cfg.replay.evolve_bound) return;
    s.templ = c.best;
    format_into(s.template_from, "recorded run #{} (best of the relws runs)", c.best_run);
    format_into(r.note,
                "bound of {} relws runs reached: the best tree (run #{}, busiest x{:.2f}{}), switching to stows",
                cfg.replay.evolve_bound, c.best_run, c.best_share, c.best_balanced ? "" : ", unbalanced");
    converge(s, r);
    return;
  }
  if (name_ == policy::coarsen && !s.coarsen_search.done) return coarsen_after(s, r, cfg);
  // A stows run: the template stays unless the runs got slower for good
  // (slowdown_watch.hpp): a slow run, or a few, is noise (a descheduled
  // worker, a page-fault storm); a divergence is handled in end_phase.
  const unsigned pct = cfg.replay.evolve_slowdown_pct;
  detail::slowdown_watch& watch = s.evolve_counters.slowdown;
  if (!watch.add(r.wall_s, pct)) return;
  format_into(r.note,
              "slowdown: even the faster of the last {} stows runs (lower quartile {:.3f} ms) stayed over {}% "
              "slower than the {} before (x{:.2f}) for {} runs: back to relws",
              detail::slowdown_watch::recent, watch.now_s() * 1e3, pct, watch.baseline_runs(),
              watch.now_s() / watch.baseline_s(), watch.slow_runs());
  // relws refines the converged template; the best tree and the planner's
  // verdict of the earlier learning stay (planning again allocates, and
  // would plan from the same kind of run).
  s.mode = evolve_mode::relws;
  s.converged = false;
}

// The audit run evolve asked for, the bound's last: plan a balanced template
// from it and converge on that. When the planner cannot balance it, evolve
// settles on its best relws tree.
void replay_policy::after_audit(schedule_state& s, iteration_report& r, const steal_tree::phase_record& record) {
  detail::evolve_counters& c = s.evolve_counters;
  c.auditing = false;
  std::string refused;
  steal_tree::plan_summary summary;
  if (record.steals.audit.empty()) {
    refused = "the run recorded no audit records";
  } else {
    try {
      summary = store_->plan(s.name);
    } catch (const cws::error& e) {
      refused = e.what();
    }
  }
  if (refused.empty() && summary.balanced) {
    // The audit run was the bound's last: the planned tree is the converged
    // one (it carries no time stamps, so strict replay takes no nesting from
    // it; steal_tree::plan).
    converge(s, r);
    format_into(r.note,
                "planned a balanced template from this audit run (busiest x{:.2f} of 1/P, {} steals): switching to "
                "stuws (a planned order is an estimate)",
                summary.after.max_share_ratio, summary.steals_after);
    return;
  }
  s.templ = c.best;
  format_into(s.template_from, "recorded run #{} (best of the relws runs)", c.best_run);
  format_into(r.note, "the planner could not balance it ({}): the best tree, switching to stows",
              refused.empty() ? fmt::format("busiest x{:.2f}", summary.after.max_share_ratio) : refused);
  converge(s, r);
}

steal_tree::coarsen_options pruned_at(std::uint32_t depth) {
  steal_tree::coarsen_options o;
  o.max_level = depth;
  return o;
}

// coarsen, once evolve converged: the candidate depths are the levels at
// which the converged tree has steals, shallowest first, keeping only those
// whose pruned tree still gives every worker work (and the unpruned tree,
// last); each gets one stows run, with serial elision, and the fastest stays.
void replay_policy::coarsen_after(schedule_state& s, iteration_report& r, const runtime_config& cfg) {
  detail::coarsen_search& k = s.coarsen_search;
  if (!k.active) {
    k = {};
    k.base = s.templ;
    std::vector<std::uint32_t> levels;
    for (const steal_tree::segment& g : k.base->segments)
      for (const steal_tree::steal_point& p : g.steals) levels.push_back(p.level);
    std::sort(levels.begin(), levels.end());
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
    for (std::size_t i = 0; i + 1 < levels.size() && k.depths.size() + 1 < cfg.replay.coarsen_tries; ++i) {
      const steal_tree::balance b = steal_tree::balance_of(steal_tree::coarsen(*k.base, pruned_at(levels[i])));
      if (b.idle_workers == 0 && balanced_enough(b.idle_workers, b.max_share_ratio, cfg)) k.depths.push_back(levels[i]);
    }
    k.depths.push_back(levels.empty() ? 0 : levels.back());  // unpruned
    k.active = true;
  } else {
    if (k.best_s == 0 || r.wall_s < k.best_s) {
      k.best_s = r.wall_s;
      k.best_depth = k.depths[k.next];
    }
    ++k.next;
  }
  if (k.next < k.depths.size()) {
    s.templ = store_->share(steal_tree::coarsen(*k.base, pruned_at(k.depths[k.next])));
    format_into(s.template_from, "coarsened to depth {} (try {} of {})", k.depths[k.next], k.next + 1, k.depths.size());
    return;
  }
  s.templ = store_->share(steal_tree::coarsen(*k.base, pruned_at(k.best_depth)));
  format_into(s.template_from, "coarsened to depth {} (fastest of {} depths)", k.best_depth, k.depths.size());
  std::string tried;
  for (std::uint32_t d : k.depths) fmt::format_to(std::back_inserter(tried), "{}{}", tried.empty() ? "" : ",", d);
  format_into(r.note, "coarsen: tried depths {}; kept depth {} ({:.3f} ms)", tried, k.best_depth, k.best_s * 1e3);
  k.active = false;
  k.done = true;
  k.base.reset();
}

void replay_policy::relocalized(const relocalization_report& report) {
  cws::runtime& rt = runtime();
  schedule_state& s = store_->state(report.schedule);
  if (!s.history.empty() && s.history.back().iteration == report.iteration)
    s.history.back().pages_moved = report.pages_moved;
  if (!relocalizing_stows_ || s.pages_settled) return;
  // Under stows every run replays the same tree, so the touches repeat with the
  // phase's own period; a bound still stops phases whose touches follow the data.
  if (report.pages_moved == 0 || ++s.evolve_counters.settling_runs >= rt.config().replay.evolve_bound) {
    s.pages_settled = true;
    if (s.history.empty()) return;
    std::string& note = s.history.back().note;
    note += note.empty() ? "" : "; ";
    // Appended in place (the report's storage is reused from run to run).
    if (report.pages_moved == 0)
      note += "pages in place: no more relocalization";
    else
      fmt::format_to(std::back_inserter(note), "pages still moving after {} stows runs: no more relocalization",
                     s.evolve_counters.settling_runs);
  }
}

}  // namespace

bool register_policies() {
  static const bool done = [] {
    for (std::string_view name : {policy::stows, policy::stuws, policy::relws, policy::evolve, policy::coarsen,
                                  policy::user, policy::evolve_hinted})
      policy_registry::add(std::string(name), [name] { return std::make_unique<replay_policy>(name); });
    detail::register_hinted_policies();
    return detail::register_store();
  }();
  return done;
}

}  // namespace cws::schedulers
