#pragma once
// Extensions: components built on top of the core (the steal-tree recorder,
// trace files) attach to every runtime without the core knowing them.
//
//   * extension_registry::add(name, factory) — the factory runs once per
//     runtime, right after its workers started, in registration order; the
//     extension lives until the runtime is destroyed (destroyed first, in
//     reverse order). Components register from one explicit call,
//     cws_register_components() in cws::cws (traces/src/components.cpp),
//     which the runtime makes when it is created; no header registers anything.
//   * runtime::extension(name) finds the instance of a runtime.
//   * runtime::describe() ends with what each instance describes of itself.
//   * trace_io: how runtime::save_traces / load_traces reach cws::traces.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cws {

class runtime;

class runtime_extension {
 public:
  virtual ~runtime_extension() = default;
  // Lines (each ending in '\n') runtime::describe() appends, e.g. the knobs
  // of the component in force for this runtime; none by default.
  virtual std::string describe() const { return {}; }
};

class extension_registry {
 public:
  using factory = std::function<std::unique_ptr<runtime_extension>(runtime&)>;
  // Registers `make` under `name`; a second registration of a name is ignored.
  // Returns true (so a component can register once from a function-local static).
  static bool add(std::string name, factory make);
  static std::vector<std::string> names();
  // Creates one instance of every registered extension for `rt` (core use).
  static std::vector<std::pair<std::string, std::unique_ptr<runtime_extension>>> instantiate(runtime& rt);
};

// Implemented by cws::traces.
class trace_io {
 public:
  virtual ~trace_io() = default;
  virtual void save(const runtime& rt, const std::string& path) = 0;
  virtual void load(runtime& rt, const std::string& path) = 0;
  // Streams every later phase record of `rt` to `path` as the phase completes
  // (runtime::trace_to, CWS_TRACE). An empty path stops streaming.
  virtual void stream_to(runtime& rt, const std::string& path) = 0;
  static bool install(trace_io* io);  // returns true; the last installation wins
  static trace_io* installed() noexcept;
};

}  // namespace cws
