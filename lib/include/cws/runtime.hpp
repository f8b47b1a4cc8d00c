#pragma once
// cws::runtime — the worker pool and the entry point of every parallel phase.
//
//   cws::runtime rt;                                   // config from CWS_* variables
//   auto& step = rt.schedule("stencil", cws::policy::random);
//   for (int it = 0; it < iters; ++it)
//     rt.run(step, [&] { stencil(0, n); });            // one phase
//
// Any number of runtimes may live in a process, one after the other or at
// once: nothing of a runtime is global (its policies reach it through the
// policy_context they are attached with, its extensions are its own). Each
// has its own pinned workers, so runtimes alive at once share the cores they
// were placed on. The thread that calls run() is worker 0 for that phase (one
// phase at a time per runtime; a thread runs one phase at a time, so a phase
// cannot start another runtime's); the other workers sleep between phases.
// Process-wide, and handed over between runtimes: the one sticky pin of a
// calling thread (CWS_PIN_CALLER=sticky, see caller_binding) and the
// stack-overflow handler (installed while any runtime lives).

#include <cstddef>
#include <cstdint>
#include <memory>  // std::addressof, unique_ptr
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "cws/bounded_history.hpp"
#include "cws/config.hpp"
#include "cws/detail/locality_memo.hpp"
#include "cws/extension.hpp"
#include "cws/locality.hpp"
#include "cws/observer.hpp"
#include "cws/place_tree.hpp"
#include "cws/policy.hpp"
#include "cws/run_report.hpp"
#include "cws/stats.hpp"
#include "cws/topology.hpp"

namespace cws {

namespace detail {
class scheduler;
// Throws cws::error (one line: `what`, the name shortened, the reason) unless
// `name` is a valid schedule name (see schedule::max_name_bytes).
void check_schedule_name(std::string_view name, std::string_view what);
}  // namespace detail

// A named slot for one recurring phase: its policy and its history.
class schedule {
 public:
  // A schedule name is valid UTF-8 without control characters (C0, DEL, C1),
  // at most this many bytes: the limit trace files put on every string
  // (cws::traces::limits::string_bytes), so a runtime never records a phase
  // its own save_traces or trace stream would refuse.
  static constexpr std::size_t max_name_bytes = 4096;

  const std::string& name() const noexcept { return name_; }
  std::string_view policy_name() const noexcept { return policy_->name(); }
  scheduling_policy& policy() noexcept { return *policy_; }
  std::uint64_t iterations() const noexcept { return iterations_; }
  // The reports of the last runtime_config::history runs (CWS_HISTORY),
  // oldest first: statistics, what ran and why, balance, locality,
  // relocalization, the policy's note. A run writes its report over the
  // oldest one's storage once the history is full (no allocation in steady
  // state), so a reference into it is valid until that entry leaves: copy a
  // report to keep it longer. While a run's policy ends its phase
  // (scheduling_policy::end_phase), the history holds the runs before it.
  const bounded_history<run_report>& history() const noexcept { return history_; }
  // The report of the latest run, history().back(); nullptr before the first.
  const run_report* last_report() const noexcept { return history_.empty() ? nullptr : &history_.back(); }
  // Its statistics part.
  const phase_stats* last() const noexcept { return last_report(); }
  // Replay the template of schedule `other` instead of this one's own (a
  // phase whose recursion matches, e.g. follow("init") so that the tasks run
  // where first touch put the data). Meaningful to replaying policies; an
  // empty name stops following. Throws cws::error for a name no schedule can
  // have (see max_name_bytes).
  schedule& follow(std::string_view other);
  const std::string& follows() const noexcept { return follows_; }
  // This schedule's place among its runtime's schedules, in creation order
  // (phase_info::schedule_index).
  std::uint32_t index() const noexcept { return info_.schedule_index; }
  // What the latest run's tasks declared they touched (touch.hpp), per
  // worker; empty when they declared nothing.
  const touch_map& touches() const noexcept { return touches_; }
  // The latest runtime::relocalize of this schedule; nullptr before the first.
  const relocalization_report* last_relocalization() const noexcept {
    return relocalized_ ? &relocalization_ : nullptr;
  }

 private:
  friend class runtime;
  schedule(std::string name, std::unique_ptr<scheduling_policy> p, std::size_t history, std::uint32_t index);
  std::string name_;
  std::unique_ptr<scheduling_policy> policy_;
  std::uint64_t iterations_ = 0;
  // What every run of this schedule passes to the policy and the observers,
  // kept up to date by the constructor and follow(), so that a phase neither
  // compares nor copies its strings: a schedule's state is cold by the time
  // an application with many loops runs it again, and each string read is a
  // cache miss. info_version_ counts its changes; a history slot that holds
  // the current version already has the strings (run_report::phase_version_).
  phase_info info_;
  std::uint64_t info_version_ = 1;
  std::string follows_;
  bounded_history<run_report> history_;
  touch_map touches_;
  detail::locality_memo locality_memo_;  // what the latest report's locality was made from
  relocalization_report relocalization_;
  bool relocalized_ = false;
};

class runtime {
 public:
  runtime();  // runtime_config::from_env()
  explicit runtime(const runtime_config& cfg);
  ~runtime();
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;

  const runtime_config& config() const noexcept;
  const cws::topology& topology() const noexcept;
  unsigned workers() const noexcept;
  const std::vector<worker_placement>& placement() const noexcept;
  // The hierarchical place tree the hinted policies route and steal on
  // (place_tree.hpp): from the topology, or from CWS_HPT's XML file.
  const cws::place_tree& places() const noexcept;
  // Multi-line description: topology, its source, worker -> core/node/PU map, place tree, knobs
  // (the core's, then those each extension describes, runtime_extension::describe).
  std::string describe() const;

  // Finds the slot `name`, or creates it with `policy` ("random" by default).
  // Throws cws::error for an unknown policy name, when the slot exists with
  // a different policy, or for a name longer than schedule::max_name_bytes,
  // not valid UTF-8, or holding a control character.
  cws::schedule& schedule(std::string_view name, std::string_view policy = cws::policy::random);
  // The slot `name`, or nullptr when no schedule has that name (creates nothing).
  const cws::schedule* find_schedule(std::string_view name) const noexcept;

  // Runs `root` as the root task of one phase on the calling thread (worker 0)
  // and returns when everything it spawned has finished, with the run's
  // report (s.last_report(), the newest entry of s.history(): valid until
  // runtime_config::history more runs of `s` replaced it). An exception
  // thrown by the phase is rethrown here after the phase ended; the runtime
  // stays usable.
  template <class F>
  const run_report& run(cws::schedule& s, F&& root) {
    using fn_t = std::remove_reference_t<F>;  // may be const, or a function type
    static_assert(std::is_invocable_v<fn_t&>, "cws::runtime::run needs a callable taking no arguments");
    if constexpr (std::is_function_v<fn_t>) {  // a plain function: run it through a pointer to it
      fn_t* const f = root;
      return run(s, f);
    } else {
      return run_phase(
          s, [](void* f) { (*static_cast<fn_t*>(f))(); },
          const_cast<void*>(static_cast<const void*>(std::addressof(root))));
    }
  }
  template <class F>
  const run_report& run(F&& root) {
    return run(schedule("default"), std::forward<F>(root));
  }

  // Moves every page the latest run of `s` touched to its desired node (the
  // node whose workers touched most of its bytes in that run), through the
  // page-home backend in use, and tells the observers (the report goes into
  // the trace). A schedule whose latest run declared no touches examines
  // nothing. Called between phases. Throws cws::error if the backend fails
  // outright (individual pages the kernel refuses are counted as failed).
  const relocalization_report& relocalize(cws::schedule& s);
  // The page-home backend: its name() says which one this runtime uses.
  numa::page_homes& page_homes() noexcept;

  // Whether later runs are timed: each run_report then carries a
  // phase_timeline (fork, first steal, leaves, join, after-phase work; see
  // phase_timeline.hpp). Off by default: a timed run makes about ten more
  // clock reads. Call between phases.
  void time_phases(bool on) noexcept { time_phases_ = on; }
  bool times_phases() const noexcept { return time_phases_; }

  // Observers see every later phase. They must outlive their registration.
  void add_observer(observer& o);
  void remove_observer(observer& o);

  // The instance of a registered extension (see extension.hpp), or nullptr.
  runtime_extension* extension(std::string_view name) const noexcept;

  // Trace files (provided by cws::traces, which the cws::cws umbrella links):
  // save every phase recorded so far / seed schedules from a saved file.
  // Throw cws::error naming the file and the problem.
  void save_traces(const std::string& path) const;
  void load_traces(const std::string& path);
  // Streams every phase completed from now on to `path` (a streaming trace
  // file: a header, then one independently checksummed record per phase), so
  // a program killed at any moment leaves every completed phase readable. An
  // empty path stops streaming and closes the file. runtime_config::trace_path
  // (CWS_TRACE) starts streaming when the runtime is created.
  void trace_to(const std::string& path);

  // The most recently created runtime still alive, or nullptr. A convenience
  // for code that has no runtime at hand (numa::allocate without a topology
  // takes its topology); nothing in cws depends on it otherwise.
  static runtime* current() noexcept;

 private:
  const run_report& run_phase(cws::schedule& s, void (*fn)(void*), void* arg);
  std::unique_ptr<detail::scheduler> sched_;
  std::vector<std::unique_ptr<cws::schedule>> schedules_;  // boxed: references stay valid
  std::vector<std::pair<std::string, std::unique_ptr<runtime_extension>>> extensions_;
  bool time_phases_ = false;
};

}  // namespace cws
