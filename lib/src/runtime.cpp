#include "cws/runtime.hpp"

#include <atomic>

#include <fmt/format.h>

#include "cws/error.hpp"
#include "scheduler.hpp"
#include "stack_guard.hpp"

// Defined by cws::cws (traces/src/components.cpp): wires the recorder, the
// replay policies and trace files in. Weak: a program linking only cws::core
// has none, and runs with the core's random policy.
extern "C" void cws_register_components() __attribute__((weak));

namespace cws {

namespace {
std::atomic<runtime*> live_runtime{nullptr};

runtime* claim(runtime* self) {
  runtime* expected = nullptr;
  if (!live_runtime.compare_exchange_strong(expected, self))
    throw error("cws::runtime: another runtime is alive in this process; destroy it first");
  return self;
}
}  // namespace

runtime::runtime() : runtime(runtime_config::from_env()) {}

runtime::runtime(const runtime_config& cfg) {
  if (cws_register_components != nullptr) cws_register_components();
  claim(this);
  try {
    sched_ = std::make_unique<detail::scheduler>(cfg);
    extensions_ = extension_registry::instantiate(*this);
    if (cfg.trace_path) trace_to(*cfg.trace_path);
  } catch (...) {
    extensions_.clear();
    sched_.reset();
    live_runtime.store(nullptr);
    throw;
  }
}

runtime::~runtime() {
  while (!extensions_.empty()) extensions_.pop_back();  // reverse order of creation
  sched_.reset();
  live_runtime.store(nullptr);
}

runtime_extension* runtime::extension(std::string_view name) const noexcept {
  for (const auto& [n, ext] : extensions_)
    if (n == name) return ext.get();
  return nullptr;
}

void runtime::save_traces(const std::string& path) const {
  trace_io* io = trace_io::installed();
  if (io == nullptr) throw error("cws::runtime::save_traces: trace files come with cws::cws (link cws::cws, or pkg-config cws)");
  io->save(*this, path);
}

void runtime::load_traces(const std::string& path) {
  trace_io* io = trace_io::installed();
  if (io == nullptr) throw error("cws::runtime::load_traces: trace files come with cws::cws (link cws::cws, or pkg-config cws)");
  io->load(*this, path);
}

void runtime::trace_to(const std::string& path) {
  trace_io* io = trace_io::installed();
  if (io == nullptr) throw error("cws::runtime::trace_to: trace files come with cws::cws (link cws::cws, or pkg-config cws)");
  io->stream_to(*this, path);
}

runtime* runtime::current() noexcept { return live_runtime.load(std::memory_order_acquire); }

const runtime_config& runtime::config() const noexcept { return sched_->config(); }
const cws::topology& runtime::topology() const noexcept { return sched_->topology(); }
unsigned runtime::workers() const noexcept { return sched_->workers(); }
const std::vector<worker_placement>& runtime::placement() const noexcept { return sched_->placement(); }

std::string runtime::describe() const {
  const runtime_config& c = config();
  std::string out = fmt::format("topology: {} [{}]\n", topology().summary(), topology().source());
  out += fmt::format("workers:  {} (pin={}, idle={}, nesting={}, seed={:#x})\n", workers(), c.pin ? "on" : "off",
                     to_string(c.idle), c.max_nesting, c.seed);
  const std::size_t caller_kib = detail::caller_stack_limit_kib();
  const caller_pinning asked = c.pin ? c.pin_caller : caller_pinning::off;
  const caller_pinning used = sched_->caller_pinning_in_effect();
  out += fmt::format("phases:   blocktime {} us, caller pinning {}{}, history {} runs per schedule\n", c.blocktime_us,
                     to_string(used),
                     used == asked ? "" : " (sticky needs cws's pthread_create interposer, not in effect here)",
                     c.history);
  out += fmt::format("stacks:   helpers {} KiB (CWS_STACK_KIB); worker 0 is the calling thread: {}\n", c.stack_kib,
                     caller_kib ? fmt::format("{} KiB (ulimit -s)", caller_kib) : std::string("unlimited (ulimit -s)"));
  out += fmt::format("pages:    {}\n", sched_->placement_state().description());
  for (const worker_placement& p : placement())
    out += fmt::format("  worker {:>3} -> core {:>3}, NUMA node {:>2}, PU {:>3}\n", p.worker, p.core, p.numa_node,
                       p.pin_pu);
  return out;
}

cws::schedule& runtime::schedule(std::string_view name, std::string_view policy) {
  for (auto& s : schedules_) {
    if (s->name() != name) continue;
    if (s->policy_name() != policy)
      throw error(fmt::format("schedule '{}' already exists with policy '{}' (asked for '{}')", name,
                              s->policy_name(), policy));
    return *s;
  }
  auto made = policy_registry::create(policy);  // throws for an unknown name
  schedules_.push_back(std::unique_ptr<cws::schedule>(new cws::schedule(std::string(name), std::move(made))));
  return *schedules_.back();
}

const phase_stats& runtime::run_phase(cws::schedule& s, void (*fn)(void*), void* arg) {
  phase_info& info = s.info_;  // assignments below reuse its strings' capacity
  if (info.schedule != s.name()) info.schedule = s.name();
  if (info.policy != s.policy_name()) info.policy = s.policy_name();
  if (info.follows != s.follows_) info.follows = s.follows_;
  info.iteration = s.iterations_;
  info.workers = workers();
  std::exception_ptr error = sched_->run(info, s.policy(), fn, arg, s.last_, s.touches_);
  ++s.iterations_;
  if (error) std::rethrow_exception(error);
  if (!s.touches_.empty() && s.policy().relocalize_after_phase()) s.policy().relocalized(relocalize(s));
  return s.last_;
}

const relocalization_report& runtime::relocalize(cws::schedule& s) {
  s.relocalization_ = sched_->relocalize(s.touches_, s.name(), s.iterations_ ? s.iterations_ - 1 : 0);
  s.relocalized_ = true;
  return s.relocalization_;
}

numa::page_homes& runtime::page_homes() noexcept { return sched_->placement_state().homes(); }

void runtime::add_observer(observer& o) { sched_->add_observer(o); }
void runtime::remove_observer(observer& o) { sched_->remove_observer(o); }

}  // namespace cws
