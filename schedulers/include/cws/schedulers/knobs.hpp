#pragma once
// The knobs of the replay and hinted policies: cws::schedulers owns them,
// parses them from its own CWS_* table (schedulers/src/knobs.cpp) through
// the core's table type and parsers (cws/env_knobs.hpp), and keeps them in
// runtime_config::extensions, so they travel with the config a runtime is
// created from and are in force from its first phase.
//
// From the environment: runtime_config::from_env() applies this table along
// with the core's (cws::cws registers it, register_knobs()); a bad value
// throws there, before the runtime exists, with the core's one-line error.
// From code: set them in the config the runtime is created from:
//   cws::runtime_config cfg = cws::runtime_config::from_env();
//   cws::schedulers::knobs_of(cfg).replay.evolve_bound = 3;
//   cws::runtime rt(cfg);
// A config nobody set them in (runtime_config{}) has the defaults below.
//
// Replay (stows, stuws, relws, evolve, coarsen; policies.hpp):
//   CWS_EVOLVE_BOUND     RELWS iterations evolve runs at most before STOWS (default 5)
//   CWS_EVOLVE_SLOWDOWN  percent by which the lower quartile of a converged evolve's last 8
//                        STOWS runs may stay above that of its runs before, 8 runs in a row,
//                        before it returns to RELWS (default 25; 0 = never return;
//                        cws/schedulers/slowdown_watch.hpp)
//   CWS_EVOLVE_CONTENTION 1 = a converged evolve reads the program's involuntary context
//                        switches every 16 runs (1 ms of them at least) and, when other work takes its cores and
//                        random stealing is faster there, runs under random stealing (the
//                        template kept) until the template is as fast again (default);
//                        0 = it stays on the strict replay
//   CWS_STALL_MS         how long every worker may wait with nothing runnable
//                        before a replay is declared diverged (default 50)
//   CWS_REPLAY_GRACE_US  how long a worker of a strict replay (stows, stuws, user) may find
//                        nothing it may run -- in a sync, or waiting for a designated task --
//                        before the phase finishes under random stealing, the template kept
//                        (default 200; 0 = wait however long)
//   CWS_EVOLVE_RELOCALIZE 1 = evolve relocalizes the pages of a phase that
//                        declared touches after each RELWS iteration and after
//                        STOWS ones until the pages stay put (default), 0 = never
//   CWS_EVOLVE_BALANCE   evolve converges only when every worker owns work and the
//                        busiest one's share of the tasks is <= (1 + pct/100)/P (default 10; 0 = off)
//   CWS_ELIDE            1 = STOWS/STUWS run spawns with no designated steal below
//                        them as plain calls (serial elision; default), 0 = always spawn
//   CWS_COARSEN_TRIES    pruning depths the `coarsen` policy tries (default 4)
//   CWS_TEMPLATE_TRIES   random runs a strict policy (stows, stuws) without a template records
//                        at most until one passes the CWS_EVOLVE_BALANCE rule, then adopting
//                        the most balanced of them (1: the first run, whose first touches
//                        placed the data; default 0 = auto: 1 with several NUMA nodes, 5 on one)
//   CWS_REPLAY_ALONE_US  stows, stuws and a converged evolve time a template whose replays take at
//                        most this many microseconds against the calling thread alone (every spawn a
//                        call, no helper woken), and replay the faster way (0 = never alone; default
//                        auto: 20 on one NUMA node, off with several)
// Hinted mode (PufferFish; the `hinted` and `hinted-hpt` policies; CWS_HPT is the core's):
//   CWS_HINTED_HET       1 = hierarchical elastic tasks in `hinted` (default), 0 = off
//   CWS_HINTED_HET_LIMIT a leaf's HET flag is set by a push onto a deque already
//                        holding more than this many tasks (default 2, as PufferFish)
//   CWS_HINTED_RELAXED   1 = `hinted` workers may also steal leaf and node-place
//                        work of other nodes after the root ("fully relaxed"),
//                        0 = nodes exchange work only through the root (default)

#include "cws/config.hpp"

namespace cws::schedulers {

struct replay_knobs {
  unsigned evolve_bound = 5;          // CWS_EVOLVE_BOUND
  unsigned evolve_slowdown_pct = 25;  // CWS_EVOLVE_SLOWDOWN
  unsigned stall_ms = 50;             // CWS_STALL_MS
  // A strict replay (stows, stuws, user) in which a worker found nothing it
  // may run for this long -- a spawner in a sync whose thief lost its core
  // or is still busy, a thief whose designated task its spawner has not
  // spawned -- runs the rest of the phase under random stealing, the
  // template kept (ran_as::random_released). 0: wait however long.
  unsigned grace_us = 200;            // CWS_REPLAY_GRACE_US
  bool evolve_relocalize = true;      // CWS_EVOLVE_RELOCALIZE
  // A converged evolve watches for other work taking the program's cores
  // (involuntary context switches) and runs under random stealing while a
  // strict replay is slower there (evolve_controller.hpp, `contended`).
  bool evolve_contention = true;  // CWS_EVOLVE_CONTENTION
  // evolve converges only to a template in which every worker owns work and
  // the busiest worker's share of the tasks is at most (1 + pct/100) / P.
  unsigned evolve_balance_pct = 10;  // CWS_EVOLVE_BALANCE (0: balance is not required)
  // That rule on a run's or a tree's balance (run_report::balance,
  // steal_tree::balance): always true when the knob is 0.
  bool balanced(unsigned idle_workers, double max_share) const noexcept {
    return evolve_balance_pct == 0 || (idle_workers == 0 && max_share <= 1.0 + evolve_balance_pct / 100.0);
  }
  // The order among runs that are not: fewer idle workers first (an idle
  // worker is a core the replay never uses), then the smaller busiest share.
  static bool more_balanced(unsigned idle_a, double share_a, unsigned idle_b, double share_b) noexcept {
    return idle_a != idle_b ? idle_a < idle_b : share_a < share_b;
  }
  // Strict replays (stows, stuws) run every spawn with no designated steal
  // below it as a plain call (serial elision) when the template knows its
  // steals' pedigrees. Not with audit (it records tasks, and elided calls are not tasks).
  bool elide = true;  // CWS_ELIDE
  // coarsen: pruning depths it tries (one run each) before keeping the fastest.
  unsigned coarsen_tries = 4;  // CWS_COARSEN_TRIES
  // stows, stuws: random runs recorded at most, until one is balanced, before
  // the most balanced becomes the template (schedulers/src/template_pick.hpp).
  // 1: the first run, whatever its balance: its first touches placed the
  // data, so replaying it keeps the tasks beside their pages. 0 (the
  // default): for the machine, see template_tries_on.
  unsigned template_tries = 0;  // CWS_TEMPLATE_TRIES
  // The bound on a machine with `numa_nodes` nodes: the knob, or when it is
  // 0, 1 with several nodes (the first run's first touches placed the pages:
  // a later template would not follow them) and 5 on one node, where no page
  // placement depends on the template and a first run that left a worker
  // idle would make every replay of a phase serial.
  unsigned template_tries_on(unsigned numa_nodes) const noexcept {
    return template_tries != 0 ? template_tries : numa_nodes <= 1 ? 5 : 1;
  }
  // stows, stuws, a converged evolve: a template whose replays take at most
  // this long is timed against runs on the calling thread alone, and the
  // faster way is kept (schedulers/src/alone_trial.hpp). 0: never alone.
  // `alone_auto` (the default): for the machine, see alone_us_on.
  static constexpr unsigned alone_auto = ~0u;
  unsigned alone_us = alone_auto;  // CWS_REPLAY_ALONE_US
  // The bound on a machine with `numa_nodes` nodes: the knob when set, else
  // 20 us on one node and off with several, where a strict replay is there
  // for its locality (an alone run touches every page from the caller's
  // node) and a synthetic topology's simulated page homes cost no time for
  // a trial to see.
  unsigned alone_us_on(unsigned numa_nodes) const noexcept {
    return alone_us != alone_auto ? alone_us : numa_nodes <= 1 ? 20 : 0;
  }
};

struct hinted_knobs {
  bool het = true;         // CWS_HINTED_HET
  unsigned het_limit = 2;  // CWS_HINTED_HET_LIMIT
  bool relaxed = false;    // CWS_HINTED_RELAXED
};

struct knobs {
  replay_knobs replay;
  hinted_knobs hinted;
};

// The knobs kept in `cfg`, to set (added with the defaults on first use).
knobs& knobs_of(runtime_config& cfg);
// The knobs in force for `cfg`: the defaults when none were set.
const knobs& knobs_of(const runtime_config& cfg) noexcept;

// Adds the table of the variables above to the core's registry
// (env_knobs::add_table), and an extension that shows the knobs in force in
// runtime::describe(); once. cws_register_components() calls it.
void register_knobs();

}  // namespace cws::schedulers
