#pragma once
// The constrained work-stealing policies (Lifflander et al., SC14; DESIGN §4),
// registered by name with cws::policy_registry when a program links cws::cws
// (register_policies(), called from traces/src/components.cpp):
//
//   stows   strict, ordered: a designated task runs on the template's thief,
//           each worker starts its segments in exactly the template's order,
//           nothing else moves.
//   stuws   strict, unordered: same assignment, segments start as their
//           tasks become ready.
//   relws   relaxed: designated tasks go to their thief, but the spawner takes
//           one back if it reaches sync before the thief started it; a worker
//           that has started all the segments the template planned for it
//           steals undesignated tasks at random. Each run is the next template.
//   evolve  relws until the tree stops changing (an iteration with no extra
//           steal and no take-back) *and* is balanced (every worker owns work,
//           the busiest one's share of the tasks <= (1 + CWS_EVOLVE_BALANCE%)/P),
//           or CWS_EVOLVE_BOUND iterations; then stows. At the bound it takes
//           the best tree the relws runs produced (balanced first, then the
//           better balanced, more local, faster one), and when none was
//           balanced (oversubscribed or busy machines) it records one audit
//           run and lets the planner (steal_tree::plan) build a balanced
//           template, which relws then refines. A converged template
//           (learned, or loaded with load_options::converged) goes back to
//           relws only on evidence that it is wrong: a divergence, or a
//           slowdown that persists (the lower quartile of its last 8 stows
//           runs over CWS_EVOLVE_SLOWDOWN percent above that of its runs
//           before, 8 runs in a row: slowdown_watch.hpp) that a probe
//           confirms (3 rounds of a random-stealing run and a template run,
//           random stealing faster by that margin in each; else the machine
//           slowed down and the template stays); slow runs, even 6 of 8 (a
//           descheduled worker), are noise.
//   coarsen evolve, then, once converged, one stows run per pruning depth of
//           the template (steal_tree::coarsen's max_level; CWS_COARSEN_TRIES
//           depths), keeping the fastest: SC14's dynamic coarsening. With
//           serial elision, a fine grain then costs little: spawns off the
//           pruned tree's paths are plain calls.
//   Serial elision (CWS_ELIDE, default on): stows and stuws run every spawn
//           with no designated steal below it as a plain call when the
//           template knows its steals' pedigrees (recorded since trace format
//           5); a divergence under elision drops the template, so the next
//           run records a fresh one.
//   user    the designations of cws::designate_after_next_spawn, run like
//           stuws; the recorded result is kept as the schedule's template.
//
// The hinted policies (PufferFish, Kumar HiPC 2020) route spawns that carry
// data-affinity hints (cws::spawn(cws::hint(a, lo, hi), f)) on the place
// tree (runtime::places(): root -> NUMA nodes -> L3 groups -> workers):
//   hinted         find_place: the spawner's deque when the data is on its
//                  node, that node's place when on another node, the root
//                  when it spans nodes (several hints: the paper's page count).
//                  Steals: own L3 group -> own node's place -> sibling L3
//                  groups -> root; nodes exchange work only through the root
//                  (CWS_HINTED_RELAXED=1 lets them steal across after the
//                  root). Hierarchical elastic tasks (CWS_HINTED_HET, limit
//                  CWS_HINTED_HET_LIMIT = 2): while a leaf's flag is set,
//                  node-local hinted spawns run at once.
//   hinted-hpt     HClib's HPT_DA: the same routing, steals own L3 group ->
//                  own node's place -> root, no HET.
//   evolve-hinted  evolve whose template-less runs (the first, or after a
//                  divergence) run under `hinted` instead of random, so the
//                  first template is the hinted schedule.
// A spawner blocked in sync takes back its own placed children nobody came
// for once a back-off window passed with every worker idle (worker_stats::reclaimed): no place is
// ever left without a worker that may serve it. Unhinted spawns, and hints on
// first-touch memory, are ordinary spawns. Every hinted phase records a
// steal tree like any other.
//
// A template is a steal tree: the schedule's own latest one, one seeded from a
// trace file (runtime::load_traces), a pruned one (coarsen), or another
// schedule's (schedule::follow). A replaying policy asked to run a schedule
// that has no template yet runs that iteration under `random` to record one,
// and says so in its report (schedule_store.hpp). Replay needs recording
// (CWS_RECORD=1, the default); with recording off these policies refuse to run.
//
// Divergence: a template that does not fit the program never hangs nor
// crashes a phase. A designated (level, step) that its segment never spawned,
// or every worker waiting with nothing runnable for CWS_STALL_MS, releases all
// mailboxed work to normal stealing; the phase finishes correctly under
// random stealing, the schedule is marked diverged (one warning on stderr per
// schedule), and the fresh tree becomes its template. A template recorded
// with another worker count is refused before the phase starts.

#include <string_view>

namespace cws {

namespace policy {
inline constexpr std::string_view stows = "stows";
inline constexpr std::string_view stuws = "stuws";
inline constexpr std::string_view relws = "relws";
inline constexpr std::string_view evolve = "evolve";
inline constexpr std::string_view coarsen = "coarsen";
inline constexpr std::string_view user = "user";
inline constexpr std::string_view hinted = "hinted";          // PufferFish: find_place, HET, hierarchical stealing
inline constexpr std::string_view hinted_hpt = "hinted-hpt";  // HClib's HPT_DA: find_place, leaf -> node -> root
inline constexpr std::string_view evolve_hinted =
    "evolve-hinted";  // evolve whose first template is a hinted run's tree
}  // namespace policy

namespace schedulers {
// Adds the policies above to cws::policy_registry and the schedule store to
// the runtime extensions (idempotent). Called by cws::cws's registration
// (components.cpp), not by including this header.
bool register_policies();
}  // namespace schedulers

}  // namespace cws
