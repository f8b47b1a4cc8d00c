#pragma once
// The schedule store: per named schedule, its current template, where that
// template came from and the convergence state of evolve. One store per
// runtime (a runtime extension):
//
//   auto& step = rt.schedule("stencil", cws::policy::evolve);
//   for (int it = 0; it < iters; ++it) rt.run(step, [&] { ... });
//   const auto& s = cws::schedulers::store_of(rt).at("stencil");
//   fmt::print("{}: {}\n", s.converged ? "converged" : "learning", s.template_from);
//
// What each run did is in its schedule's history of typed reports
// (schedule::history(), run_report.hpp), which the policies write into.
//
// Templates come from the schedule's own recorded runs (the policies update
// them), from a trace file (runtime::load_traces seeds every schedule it holds
// with its latest run), or are set directly (seed(), e.g. a coarsened tree).
// All of it is read and written between phases only, on the thread that runs
// them.
//
// A schedule's history keeps the reports of its last runtime_config::history
// runs (CWS_HISTORY, default 4). What a replay needs never depends on that
// window: the template, the previous tree and evolve's state are kept here as
// such, and a schedule that follows another keeps its own copy of the
// followed run it replays. Trees recorded per run (relws, evolve) reuse the
// storage of the ones they replace (tree_pool.hpp), so a phase allocates
// nothing here in steady state.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cws/extension.hpp"
#include "cws/run_report.hpp"
#include "cws/runtime.hpp"
#include "cws/schedulers/coarsen_search.hpp"
#include "cws/schedulers/slowdown_watch.hpp"
#include "cws/schedulers/tree_pool.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "cws/steal_tree/coarsen.hpp"
#include "cws/steal_tree/plan.hpp"
#include "cws/steal_tree/tree.hpp"

namespace cws::schedulers {

enum class evolve_mode { relws, stows };

namespace detail {
// What evolve counts to make its decisions. Kept in the schedule's state so
// that it lives as long as the schedule, but read and written by evolve's
// state machine only (schedulers/src/evolve_controller.hpp, which resets it
// all in one place); programs read the decisions from the run reports.
struct evolve_counters {
  unsigned relws_runs = 0;     // relws iterations since the last switch
  slowdown_watch slowdown;     // the stows runs' times since the switch (CWS_EVOLVE_SLOWDOWN)
  unsigned settling_runs = 0;  // stows runs after the switch that still moved pages (bounded by evolve_bound)
  // The best tree the relws runs produced since evolve (re)started: balanced
  // first, then the better balanced / more local / faster (what evolve takes
  // at the bound instead of the last tree).
  std::shared_ptr<const steal_tree::tree> best;
  std::uint64_t best_run = 0;
  bool best_balanced = false;
  double best_share = 0;    // its busiest worker's share over 1/P
  double best_local = -1;   // its run's local share (-1: no touches declared)
  double best_s = 0;        // its run's time
  bool planned = false;     // the planner was tried since evolve (re)started
  bool auditing = false;    // the coming run is the audit run the planner needs
  bool relearning = false;  // relws again after a persistent slowdown (the best tree and the planner's verdict stay)
  bool probing = false;     // in the probe of a converged template's slowdown (evolve_controller.hpp)
  bool probe_template_turn = false;  // the coming probe run replays the template (else: random stealing)
  unsigned probe_rounds_won = 0;     // probe rounds in which random stealing beat the template by the margin
  double probe_random_s = 0;         // the current round's random run (contended: the gap's fastest)
  std::uint64_t probe_switches = 0;  // the program's involuntary context switches when the round began
  // Other work takes the program's cores: random stealing, the template kept
  // (evolve_controller.hpp, stage `contended`).
  bool contended = false;
  unsigned contended_runs = 0;   // random runs since the template last ran while contended
  unsigned contended_every = 0;  // random runs between two runs of the template while contended
  // Converged runs since the involuntary context switches were last read,
  // their summed wall time, and that read.
  static constexpr std::uint64_t unread = ~std::uint64_t{0};
  unsigned switch_check_runs = 0;
  double switch_check_s = 0;
  std::uint64_t checked_switches = unread;
};
}  // namespace detail

struct schedule_state {
  std::string name;
  // The template the next run replays; null before the first recorded run.
  std::shared_ptr<const steal_tree::tree> templ;
  std::string template_from;                         // "recorded run #3", "file h.cwst, run #7", "coarsened ...", ...
  std::shared_ptr<const steal_tree::tree> previous;  // the latest recorded tree (for distances)
  // schedule::follow of a schedule without a template of its own (the core's
  // random policy keeps none): a copy of the followed schedule's run that this
  // one replays, `followed_run` of `followed_schedule`. Made once per run of
  // the followed schedule, not per phase; it outlives the recorder's window.
  std::shared_ptr<const steal_tree::tree> followed;
  std::string followed_schedule;
  std::uint64_t followed_run = 0;
  bool diverged = false;  // some run diverged (sticky; the schedule's history says which)
  bool warned = false;    // the divergence warning was printed
  // evolve: where it is (its decisions are in each run's report)
  evolve_mode mode = evolve_mode::relws;
  bool converged = false;
  std::uint64_t converged_at = 0;  // iteration after which evolve switched to stows (while converged)
  // evolve relocalizes until a stows run finds every page in place.
  bool pages_settled = false;
  detail::evolve_counters evolve_counters;  // evolve's own bookkeeping, not an API
  detail::coarsen_search coarsen_search;    // the coarsen policy's, likewise
};

class schedule_store final : public cws::runtime_extension {
 public:
  explicit schedule_store(cws::runtime& rt) : rt_(rt) {}

  // The state of schedule `name`, or nullptr when nothing is known about it.
  const schedule_state* find(std::string_view name) const noexcept;
  // Same, but throws cws::error naming the schedule when unknown.
  const schedule_state& at(std::string_view name) const;
  // Created on first use: a replaying policy creates its schedule's when the
  // schedule is made (runtime::schedule), and keeps a reference to it. States
  // are never erased, and the store outlives the policies.
  schedule_state& state(std::string_view name);

  // Sets the template of `name` (replacing any). A tree recorded for another
  // worker count is re-planned for this runtime's (the planner when it has
  // audit records; else steals by missing workers are dropped, or new workers
  // start without work), and template_from says so. A tree that is malformed or
  // does not fit the program is accepted here and handled when it runs: the
  // replay diverges (see policies.hpp), it never hangs nor crashes.
  void seed(std::string_view name, steal_tree::tree t, std::string from);

  // Puts the schedule's template (seeded, e.g. from a trace file of an
  // earlier program run) in evolve's converged stage: evolve and coarsen
  // replay it from their next run under stows (stuws when it is a planned,
  // stamp-less template), with no relws run first, and leave it only on a
  // divergence or a persistent slowdown (slowdown_watch.hpp). Policies that
  // do not evolve ignore it. Throws cws::error when `name` has no template.
  void mark_converged(std::string_view name);

  // Dynamic coarsening: replaces the template of `name` (its own, else its
  // latest recorded run) by the tree steal_tree::coarsen() prunes from it;
  // replay it with stuws. Returns what was pruned. Throws cws::error when the
  // schedule has neither a template nor a recorded run.
  steal_tree::coarsen_summary coarsen(std::string_view name, const steal_tree::coarsen_options& options);

  // Every schedule known, by name.
  const std::map<std::string, schedule_state, std::less<>>& schedules() const noexcept { return states_; }

  // A shared copy of `t` (a recorded run becoming a template or the previous
  // tree), in the storage of a pooled tree nobody holds any more: no
  // allocation in steady state.
  std::shared_ptr<const steal_tree::tree> share(const steal_tree::tree& t);

  // moved_share(runtime(), a, b) with the store's own scratch (the policies
  // compare every run with the previous one): no allocation in steady state.
  std::optional<double> moved_share(const steal_tree::tree& a, const steal_tree::tree& b);

  // Bytes held: every schedule's state and trees, and the tree pool, for the
  // flat-memory checks.
  std::size_t bytes() const;

  cws::runtime& runtime() noexcept { return rt_; }

  // The planner (steal_tree::plan): replaces the template of `name` by a
  // balanced plan made from the schedule's latest recorded run that has audit
  // records (else from its template, when that has them), for this runtime's
  // worker count; template_from says "planned from <source> (<method>)".
  // worker_order defaults to the workers sorted by NUMA node (rt.placement()),
  // so contiguous ranges stay on one node. Returns what the planner did.
  // Throws cws::error when no audit run is available (record one with
  // CWS_AUDIT=1 / runtime_config::audit; a serial one, e.g. under stows with
  // a root-only template, plans best) or when the planner refuses it.
  steal_tree::plan_summary plan(std::string_view name, const steal_tree::plan_options& options = {});

 private:
  cws::runtime& rt_;
  std::map<std::string, schedule_state, std::less<>> states_;
  tree_pool pool_;
  steal_tree::distance_workspace distance_scratch_;
  std::vector<std::uint32_t> node_of_worker_;  // from rt_.placement(), filled on first use
};

// The store of `rt` (created with the runtime when cws::schedulers is linked).
// Throws cws::error if the runtime has none.
schedule_store& store_of(cws::runtime& rt);
const schedule_store& store_of(const cws::runtime& rt);

// Share of the work that ran on another worker in `b` than in `a`
// (steal_tree::schedule_distance with rt's worker -> node map); empty when the
// trees cannot be compared (another worker count).
std::optional<double> moved_share(const cws::runtime& rt, const steal_tree::tree& a, const steal_tree::tree& b);

// Checks that `t` was recorded for `workers` workers; throws cws::error
// with the reason otherwise.
void check_template(const steal_tree::tree& t, unsigned workers);

}  // namespace cws::schedulers
