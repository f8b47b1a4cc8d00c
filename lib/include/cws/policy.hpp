#pragma once
// The scheduling-policy interface. The core asks a policy two questions:
//   * where does a freshly spawned task go?  (route: the spawner's deque, or
//     another worker's mailbox)
//   * where does a worker with nothing to run look for work?  (find_work)
// The core owns the deques, mailboxes and the determinism invariant; a policy
// only chooses among the moves the core offers through `worker_view`, and
// sees the tasks it moves only as opaque `task_handle`s. In
// particular no policy can make a worker take work from its own deque while
// it is blocked in sync: worker_view::steal refuses the worker itself.
//
// Routing (replay, designations). A routing policy marks, per open segment
// and per level, the next spawn step it wants to see (segment_marks); the core
// compares each spawn's (level, step) with that mark -- one load and compare --
// and calls route() only on a match or when the spawner called
// designate_after_next_spawn(). So replay costs O(1) per spawn and a virtual
// call per designated task only.
//
// The core ships one policy, `random` (uniform random victim). The others
// (stows, stuws, relws, evolve, user) live in cws::schedulers, which registers
// them by name with policy_registry when cws::cws wires the components in
// (cws_register_components).
//
// Hinted spawns (PufferFish). A policy whose routes_hints() is true (read once
// per phase) is asked, for every spawn with hints (cws::spawn(cws::hint(...),
// f)), where the task goes (place_for): the spawner's own deque, at once as a
// call-like child (elastic tasks), or the place deque of a NUMA node or the
// root, which only thieves take from (worker_view::steal_placed). The core
// keeps those deques per worker, one per node place plus one for the root, and
// lets a spawner blocked in sync take its own unstarted placed children back
// (newest first, like its own deque's) once a full back-off window found
// nothing and every worker is idle, so no task waits on a place nobody serves.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cws/hint.hpp"
#include "cws/observer.hpp"
#include "cws/stats.hpp"

namespace cws {

namespace detail {
struct task;
struct task_access;  // the core's way in and out of a task_handle (lib/src/task_access.hpp)
}  // namespace detail

class runtime;
class schedule;
struct run_report;

// A task a policy took through worker_view and hands back from find_work().
// Opaque on purpose: a policy chooses where work comes from, never what is in
// it, so it can only test a handle and pass it on. One pointer: no cost.
class task_handle {
 public:
  constexpr task_handle() noexcept = default;
  constexpr task_handle(std::nullptr_t) noexcept {}  // "found nothing"
  explicit constexpr operator bool() const noexcept { return t_ != nullptr; }
  friend constexpr bool operator==(task_handle, task_handle) noexcept = default;

 private:
  friend struct detail::task_access;
  explicit constexpr task_handle(detail::task* t) noexcept : t_(t) {}
  detail::task* t_ = nullptr;
};

// The moves a policy may make on behalf of one worker. Provided by the core.
// Only what the shipped policies use: a move no policy makes is a move the
// core does not have to keep correct.
class worker_view {
 public:
  virtual unsigned self() const noexcept = 0;
  virtual unsigned workers() const noexcept = 0;
  // Take the oldest task of `victim`'s deque; empty if none or lost a race.
  // Counts a successful or failed attempt. `victim == self()` returns empty.
  virtual task_handle steal(unsigned victim) noexcept = 0;
  // Take the oldest task from this worker's own mailbox; empty if none.
  virtual task_handle take_mail() noexcept = 0;
  // Per-worker generator, seeded from runtime_config::seed.
  virtual std::uint64_t random() noexcept = 0;

  // --- routing policies ---
  // Take the mail whose note (what route() attached to it) is `note` (STOWS:
  // segments start in template order); empty if it has not arrived.
  virtual task_handle take_mail_noted(std::uint32_t note) noexcept = 0;
  // Take the oldest task of another worker's mailbox (divergence: mailboxed
  // work released to normal stealing). Counts as a steal.
  virtual task_handle steal_mail(unsigned victim) noexcept = 0;
  // Workers currently looking for work or waiting (not running a task), and
  // how many times a worker has stopped being idle since the runtime started
  // (it took work, or the sync it waited in completed; wraps around). Every
  // worker idle, with no exit over a while and the phase unfinished, means
  // nothing can run. O(workers): each worker keeps its own part, so a read
  // sees each worker at its own moment (a worker idle in two reads with the
  // same exits in between was idle all along).
  struct idleness {
    unsigned idle = 0;
    std::uint32_t exits = 0;
  };
  virtual idleness idle_state() const noexcept = 0;

  // --- hinted policies (place_tree.hpp) ---
  static constexpr unsigned root_place = ~0u;
  // Take the oldest task `victim` placed on the place of node index `node`
  // (place_tree::node_place) or, with root_place, on the root place; empty if
  // none. Counts as a steal (and a place steal). `victim == self()` returns empty.
  virtual task_handle steal_placed(unsigned /*victim*/, unsigned /*node*/) noexcept { return nullptr; }
  // Tasks waiting on this worker's own deque (exact: asked by the worker itself).
  virtual std::int64_t backlog() const noexcept { return 0; }

 protected:
  ~worker_view() = default;
};

// What a policy may reach of the runtime that runs its schedule, handed to
// scheduling_policy::attach() once, when runtime::schedule() creates the slot.
// Policies keep what they need from it (cws::schedulers looks up its store and
// the recorder among the runtime's extensions) instead of asking a global, so
// any number of runtimes can live side by side.
struct policy_context {
  cws::runtime& runtime;
  const cws::schedule& schedule;
};

inline constexpr std::uint32_t no_note = ~std::uint32_t{0};
inline constexpr std::uint32_t no_mark = ~std::uint32_t{0};
inline constexpr unsigned no_designation = ~0u;

// Where a spawned task goes.
struct spawn_target {
  static constexpr unsigned local = ~0u;
  unsigned mailbox_of = local;   // `local`: the spawner's own deque
  std::uint32_t note = no_note;  // handed to segment_begin() on the worker that starts it
  // The spawner may take it back at sync while nobody has started it: at
  // once when the policy's idle_grace_ns() is 0 (RELWS), else once that
  // sync has waited the grace for it (a strict replay, CWS_REPLAY_GRACE_US).
  bool reclaimable = false;
};

// Where a hinted spawn goes (scheduling_policy::place_for).
struct place_target {
  enum class kind : unsigned char {
    leaf,        // the spawner's own deque (its leaf place)
    inline_now,  // run at once on the spawner, as a child it popped at once (HET's elision)
    node,        // the place of node index `node`: taken by that node's workers
    root,        // the root place
  };
  kind where = kind::leaf;
  unsigned node = 0;
};

// Serial elision (SC14's dynamic coarsening): the designated steals of one
// template segment as a trie of their pedigrees (steal_tree::steal_point::path).
// Node 0 is the segment's root task; a node's children are first_child, then
// each one's next_sibling (`none` ends the list). While a segment runs under
// such a plan, a spawn whose rank has no node below its parent's runs at once
// as a plain call in its own frame (no task, no deque push, nothing to steal);
// a spawn that has a node is a task as usual, and a node with a `step` is a
// designated steal: the core tags it (level, step) as the template names it
// and calls route() for it, marks are not used.
struct elision_node {
  static constexpr std::uint32_t none = ~std::uint32_t{0};
  std::uint32_t rank = 0;
  std::uint32_t first_child = none;
  std::uint32_t next_sibling = none;
  std::uint32_t step = none;  // the template's step of a designated steal; none: on the way to one
};

// Per open segment: the next spawn step, per level, at which route() wants
// to be called. Owned by the core, written by the policy from segment_begin()
// and route() on the segment's own worker.
class segment_marks {
 public:
  virtual void set(std::uint32_t level, std::uint32_t step) = 0;  // no_mark clears
  virtual void clear_all() noexcept = 0;
  // From segment_begin() only: run this segment under the elision plan
  // `nodes` (see elision_node; kept alive by the policy until the phase ends)
  // instead of marks. An empty span: no elision (the default).
  virtual void elide(std::span<const elision_node> nodes) noexcept = 0;

 protected:
  ~segment_marks() = default;
};

class scheduling_policy {
 public:
  virtual ~scheduling_policy() = default;
  virtual std::string_view name() const noexcept = 0;

  // Called once, by runtime::schedule() when it creates the slot this policy
  // serves, before any phase. The runtime and the schedule outlive the policy.
  virtual void attach(const policy_context&) {}

  // Called on the calling thread before the workers start / after they stopped.
  virtual void begin_phase(const phase_info&) {}
  // `report` holds the phase's statistics (it is a phase_stats), locality and
  // balance; its policy part is reset (ran_as::other, no template, no
  // distance). The policy says what actually ran: ran_as, reason,
  // template_from, distance_to_previous, converged. The report lives in the
  // schedule and is rewritten in place every run: assigning its strings
  // reuses their capacity.
  virtual void end_phase(run_report& /*report*/) {}
  // Asked after end_phase() of a phase that declared touches: whether the
  // runtime should relocalize that schedule's pages now (evolve after a
  // RELWS iteration, so that the next iteration finds its data in place).
  virtual bool relocalize_after_phase() const noexcept { return false; }
  // What the relocalization asked for above did (same thread, right after it).
  virtual void relocalized(const relocalization_report&) {}

  // Whether the coming phase runs on the calling thread alone (read once per
  // phase, after begin_phase): the helpers are neither woken nor let in, and
  // the phase costs no hand-over. For a policy whose plan for the phase has
  // no steal (a strict replay of a template without one, which runs every
  // spawn as a call): nothing may be routed to another worker then, since
  // none comes to take it.
  virtual bool runs_alone() const noexcept { return false; }
  // Whether the coming phase routes spawns (read once per phase). When false,
  // spawn pays nothing for routing and the hooks below are never called.
  virtual bool routes_spawns() const noexcept { return false; }
  // Called on the spawning worker for a spawn that hit a mark of its segment,
  // or whose spawner designated a worker (`designated`, else no_designation).
  virtual spawn_target route(unsigned /*spawner*/, const task_tag& /*tag*/, unsigned /*designated*/,
                             segment_marks& /*marks*/) {
    return {};
  }
  // A worker starts / ends a segment. `root` is the tag of its first task and
  // `note` what route() attached to it (no_note: the phase root or a task
  // taken from a deque). Segments nest per worker like a stack.
  virtual void segment_begin(unsigned /*worker*/, const task_tag& /*root*/, std::uint32_t /*note*/,
                             segment_marks& /*marks*/) {}
  virtual void segment_end(unsigned /*worker*/) {}
  // How long a worker may look for work in vain, in a sync or between
  // segments, before idle_past_grace() is called (0: never). Read once per
  // phase, after begin_phase.
  virtual std::uint64_t idle_grace_ns() const noexcept { return 0; }
  // A worker has found nothing it may run for idle_grace_ns() (and again
  // after each later fruitless pass of that wait). `in_sync`: it waits in a
  // sync for its children; then, once the call returns, it takes back its
  // reclaimable routed children that nobody started.
  virtual void idle_past_grace(unsigned /*worker*/, bool /*in_sync*/) {}
  // A worker's sync found a reclaimable routed child of its frame whose
  // thief has not joined the phase yet (it is still waking, or has no core).
  // Called once per such sync, only when idle_grace_ns() is not 0. True: the
  // spawner takes back its children nobody started at once, as after the
  // grace (the policy has let the phase finish under random stealing);
  // false: it waits for the thief as usual.
  virtual bool thief_not_joined(unsigned /*spawner*/, unsigned /*thief*/) noexcept { return false; }
  // A spawner took back a reclaimable routed child nobody had started (its
  // `thief` will never get it; nor, since the child now runs inside the
  // spawner's segment, any task the template planned below it). Called on
  // the spawner, once per child taken back.
  virtual void taken_back(unsigned /*spawner*/, unsigned /*thief*/) noexcept {}

  // Whether the coming phase routes hinted spawns (read once per phase). When
  // false, a hinted spawn is an ordinary one and place_for is never called.
  virtual bool routes_hints() const noexcept { return false; }
  // Called on the spawning worker for each hinted spawn, with the home of its
  // hints (hint.hpp's home_of, for the spawner's NUMA node).
  virtual place_target place_for(worker_view& /*spawner*/, const hint_home& /*home*/) { return {}; }

  // One attempt to find work for an idle or sync-blocked worker. Return a task
  // taken through `view`, or an empty handle; the core handles back-off
  // between calls. In a phase that neither routes spawns nor places hinted
  // ones, a helper idle at its top level while no worker's deque or mailbox
  // holds a task steps out of the phase: neither find_work nor idle_pass is
  // called for it until a task shows up (it steps back in first), if one
  // does before the phase ends.
  virtual task_handle find_work(worker_view& view) = 0;
  // Called on a waiting worker after each pass of its steal loop that found
  // nothing (find_work returned nullptr, or the worker is at the nesting bound
  // and may not start segments), before it backs off. A worker that is
  // preempted, or whose wait just ended, makes no passes: the replay policies
  // use that to tell a stalled phase from a slow one.
  virtual void idle_pass(worker_view& /*view*/) {}
  // Asked of a helper (any worker but the caller's) idle at its top level,
  // and only in phases that route spawns: whether this phase holds no more
  // work for it (a strict replay that has started every segment its
  // template planned there). Asked when the helper enters its steal loop
  // and after each segment it ran there, so an answer may turn true only
  // when the helper starts or ends a segment (it may turn false at any
  // time: a divergence). True lets it leave the phase at once, so the
  // phase's end waits for no hand-off with it; the policy must count it idle
  // from then on (it makes no more idle passes) and give it nothing more.
  virtual bool lets_leave(unsigned /*worker*/) noexcept { return false; }
};

// What a registered policy is, known from its name without making one. The
// component that registers a policy says it once, beside the factory, so that
// programs and other components ask the registry (e.g. whether
// schedule::follow means anything to a policy) instead of keeping their own
// lists of names.
struct policy_traits {
  bool replays = false;       // replays a template: its schedule's own, or another's through schedule::follow
  bool evolves = false;       // learns its template over runs and reports convergence (run_report::converged)
  bool routes_hints = false;  // may place hinted spawns (routes_hints() in some or all of its phases)
  bool elides = false;        // may run spawns as plain calls (serial elision, CWS_ELIDE)
  friend constexpr bool operator==(const policy_traits&, const policy_traits&) = default;
};

// Policies by name. The core registers "random"; other components add theirs.
class policy_registry {
 public:
  using factory = std::function<std::unique_ptr<scheduling_policy>()>;
  static void add(std::string name, factory make, policy_traits traits = {});
  // Throws cws::error "unknown policy 'x' (valid: random, ...)"; in a program
  // that links cws::core only, the message says which target brings the others.
  static std::unique_ptr<scheduling_policy> create(std::string_view name);
  // The traits `name` was registered with; throws as create() does.
  static policy_traits traits(std::string_view name);
  static std::vector<std::string> names();
};

// Names of the built-in policies, for rt.schedule("phase", cws::policy::random).
namespace policy {
inline constexpr std::string_view random = "random";
}  // namespace policy

}  // namespace cws
