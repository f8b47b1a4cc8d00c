#pragma once
// The scheduling-policy interface. The core asks a policy two questions:
//   * where does a freshly spawned task go?  (route: the spawner's deque, or
//     another worker's mailbox)
//   * where does a worker with nothing to run look for work?  (find_work)
// The core owns the deques, mailboxes and the determinism invariant; a policy
// only chooses among the moves the core offers through `worker_view`. In
// particular no policy can make a worker take work from its own deque while
// it is blocked in sync: worker_view::steal refuses the worker itself.
//
// The core ships one policy, `random` (uniform random victim). The others
// (stows, stuws, relws, evolve, user, hinted) live in cws::schedulers and are
// registered by name with policy_registry.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cws/observer.hpp"
#include "cws/stats.hpp"

namespace cws {

namespace detail { struct task; }

class topology;

// The moves a policy may make on behalf of one worker. Provided by the core.
class worker_view {
 public:
  virtual unsigned self() const noexcept = 0;
  virtual unsigned workers() const noexcept = 0;
  virtual unsigned numa_node_of(unsigned worker) const noexcept = 0;
  // True while the worker is blocked in sync (any work it finds runs as a nested segment).
  virtual bool blocked_in_sync() const noexcept = 0;
  // Take the oldest task of `victim`'s deque; nullptr if empty or lost a race.
  // Counts a successful or failed attempt. `victim == self()` returns nullptr.
  virtual detail::task* steal(unsigned victim) noexcept = 0;
  // Take the oldest task from this worker's own mailbox; nullptr if empty.
  virtual detail::task* take_mail() noexcept = 0;
  // The tag a task was spawned with (to let a policy choose among tasks).
  virtual const task_tag& tag_of(const detail::task* t) const noexcept = 0;
  // Per-worker generator, seeded from runtime_config::seed.
  virtual std::uint64_t random() noexcept = 0;

 protected:
  ~worker_view() = default;
};

// Where a spawned task goes.
struct spawn_target {
  static constexpr unsigned local = ~0u;
  unsigned mailbox_of = local;  // `local`: the spawner's own deque
};

class scheduling_policy {
 public:
  virtual ~scheduling_policy() = default;
  virtual std::string_view name() const noexcept = 0;

  // Called on the calling thread before the workers start / after they stopped.
  virtual void begin_phase(const phase_info&) {}
  virtual void end_phase(const phase_stats&) {}

  // Whether route() must be consulted for every spawn of the coming phase.
  // Read once per phase; when false, spawn pays nothing for routing.
  virtual bool routes_spawns() const noexcept { return false; }
  // Called on the spawning worker (`spawner`) with the new task's tag.
  virtual spawn_target route(unsigned /*spawner*/, const task_tag& /*tag*/) { return {}; }

  // One attempt to find work for an idle or sync-blocked worker. Return a task
  // taken through `view`, or nullptr; the core handles back-off between calls.
  virtual detail::task* find_work(worker_view& view) = 0;
};

// Policies by name. The core registers "random"; other components add theirs.
class policy_registry {
 public:
  using factory = std::function<std::unique_ptr<scheduling_policy>()>;
  static void add(std::string name, factory make);
  // Throws cws::error "unknown policy 'x' (valid: random, ...)".
  static std::unique_ptr<scheduling_policy> create(std::string_view name);
  static std::vector<std::string> names();
};

// Names of the built-in policies, for rt.schedule("phase", cws::policy::random).
namespace policy {
inline constexpr std::string_view random = "random";
}  // namespace policy

}  // namespace cws
