#include "cws/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "components_hook.hpp"
#include "cws/error.hpp"
#include "quoted.hpp"
#include "scheduler.hpp"
#include "cws/platform/stack_guard.hpp"

namespace cws {

namespace {
// Room for a run report's note, reserved once per history slot (run_phase).
constexpr std::size_t note_capacity = 512;

// Live runtimes, oldest first: only for runtime::current(). Nothing on a
// phase's path reads it.
struct live_list {
  std::mutex mutex;
  std::vector<runtime*> runtimes;
};
live_list& live() {
  static live_list* l = new live_list;  // never destroyed: runtimes with static storage may outlive statics
  return *l;
}
void enlist(runtime* self) {
  live_list& l = live();
  std::lock_guard lock(l.mutex);
  l.runtimes.push_back(self);
}
void delist(runtime* self) noexcept {
  live_list& l = live();
  std::lock_guard lock(l.mutex);
  std::erase(l.runtimes, self);
}

// Why `name` cannot be a schedule name, or empty when it can be. The first invalid UTF-8
// sequence (overlong forms, surrogates and code points past U+10FFFF
// included) or control character (C0, DEL, C1) is reported with its offset.
std::string name_problem(std::string_view name) {
  if (name.size() > schedule::max_name_bytes)
    return fmt::format("{} bytes, more than the {} a trace file holds", name.size(), schedule::max_name_bytes);
  for (std::size_t i = 0; i < name.size();) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(name[k]); };
    const unsigned c = b(i);
    std::size_t len = 0;
    char32_t cp = 0;
    if (c < 0x80) {
      len = 1, cp = c;
    } else if (c >= 0xc2 && c <= 0xdf) {
      len = 2, cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3, cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4, cp = c & 0x07;
    } else {
      return fmt::format("not valid UTF-8 (byte {:#04x} at offset {})", c, i);
    }
    if (i + len > name.size()) return fmt::format("not valid UTF-8 (truncated sequence at offset {})", i);
    for (std::size_t k = 1; k < len; ++k) {
      if ((b(i + k) & 0xc0) != 0x80) return fmt::format("not valid UTF-8 (byte {:#04x} at offset {})", b(i + k), i + k);
      cp = (cp << 6) | (b(i + k) & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
      return fmt::format("not valid UTF-8 (overlong form, surrogate or out-of-range code point at offset {})", i);
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
      return fmt::format("control character U+{:04X} at offset {}", static_cast<unsigned>(cp), i);
    i += len;
  }
  return {};
}
}  // namespace

void detail::check_schedule_name(std::string_view name, std::string_view what) {
  if (std::string problem = name_problem(name); !problem.empty())
    throw error(fmt::format("{} {}: {} (a schedule name is at most {} bytes of UTF-8 without control characters)",
                            what, detail::quoted(name, 48), problem, schedule::max_name_bytes));
}

schedule::schedule(std::string name, std::unique_ptr<scheduling_policy> p, std::size_t history, std::uint32_t index)
    : name_(std::move(name)), policy_(std::move(p)), history_(history) {
  info_.schedule = name_;
  info_.policy = policy_->name();
  info_.schedule_index = index;
}

schedule& schedule::follow(std::string_view other) {
  if (!other.empty()) detail::check_schedule_name(other, "schedule::follow: schedule name");
  if (other == follows_) return *this;
  follows_ = other;
  info_.follows = follows_;
  ++info_version_;
  return *this;
}

runtime::runtime() : runtime(runtime_config::from_env()) {}

runtime::runtime(const runtime_config& cfg) {
  detail::register_components();
  try {
    sched_ = std::make_unique<detail::scheduler>(cfg);
    extensions_ = extension_registry::instantiate(*this);
    if (cfg.trace_path) trace_to(*cfg.trace_path);
  } catch (...) {
    while (!extensions_.empty()) extensions_.pop_back();
    sched_.reset();
    throw;
  }
  enlist(this);
}

runtime::~runtime() {
  delist(this);
  schedules_.clear();                                   // policies first: they may hold on to extensions
  while (!extensions_.empty()) extensions_.pop_back();  // reverse order of creation
  sched_.reset();
}

runtime_extension* runtime::extension(std::string_view name) const noexcept {
  for (const auto& [n, ext] : extensions_)
    if (n == name) return ext.get();
  return nullptr;
}

void runtime::save_traces(const std::string& path) const {
  trace_io* io = trace_io::installed();
  if (io == nullptr)
    throw error("cws::runtime::save_traces: trace files come with cws::cws (link cws::cws, or pkg-config cws)");
  io->save(*this, path);
}

void runtime::load_traces(const std::string& path) {
  trace_io* io = trace_io::installed();
  if (io == nullptr)
    throw error("cws::runtime::load_traces: trace files come with cws::cws (link cws::cws, or pkg-config cws)");
  io->load(*this, path);
}

void runtime::trace_to(const std::string& path) {
  trace_io* io = trace_io::installed();
  if (io == nullptr)
    throw error("cws::runtime::trace_to: trace files come with cws::cws (link cws::cws, or pkg-config cws)");
  io->stream_to(*this, path);
}

runtime* runtime::current() noexcept {
  live_list& l = live();
  std::lock_guard lock(l.mutex);
  return l.runtimes.empty() ? nullptr : l.runtimes.back();
}

const runtime_config& runtime::config() const noexcept { return sched_->config(); }
const cws::topology& runtime::topology() const noexcept { return sched_->topology(); }
unsigned runtime::workers() const noexcept { return sched_->workers(); }
const std::vector<worker_placement>& runtime::placement() const noexcept { return sched_->placement(); }
const cws::place_tree& runtime::places() const noexcept { return sched_->places(); }

std::string runtime::describe() const {
  const runtime_config& c = config();
  std::string out = fmt::format("topology: {} [{}]\n", topology().summary(), topology().source());
  out += fmt::format("cpus:     {}\n", topology().cpu_rule());
  out += fmt::format("workers:  {} (pin={}, idle={}, nesting={}, seed={:#x})\n", workers(), c.pin ? "on" : "off",
                     to_string(c.idle), c.max_nesting, c.seed);
  const std::size_t caller_kib = detail::caller_stack_limit_kib();
  const caller_pinning asked = c.pin ? c.pin_caller : caller_pinning::off;
  const caller_pinning used = sched_->caller_pinning_in_effect();
  out += fmt::format(
      "phases:   blocktime {} us, caller pinning {}{}, history {} runs per schedule\n", c.blocktime_us, to_string(used),
      used == asked ? "" : " (sticky needs cws's pthread_create interposer, not in effect here)", c.history);
  out += fmt::format("stacks:   helpers {} KiB (CWS_STACK_KIB); worker 0 is the calling thread: {}\n", c.stack_kib,
                     caller_kib ? fmt::format("{} KiB (ulimit -s)", caller_kib) : std::string("unlimited (ulimit -s)"));
  out += fmt::format("pages:    {}\n", sched_->placement_state().description());
  for (const worker_placement& p : placement())
    out += fmt::format("  worker {:>3} -> core {:>3}, NUMA node {:>2}, PU {:>3}\n", p.worker, p.core, p.numa_node,
                       p.pin_pu);
  out += places().describe();
  for (const auto& [name, ext] : extensions_) out += ext->describe();  // e.g. cws::schedulers' knobs
  return out;
}

cws::schedule& runtime::schedule(std::string_view name, std::string_view policy) {
  for (auto& s : schedules_) {
    if (s->name() != name) continue;
    if (s->policy_name() != policy)
      throw error(fmt::format("schedule '{}' already exists with policy '{}' (asked for '{}')", name, s->policy_name(),
                              policy));
    return *s;
  }
  detail::check_schedule_name(name, "runtime::schedule: name");  // before it reaches any trace or message
  auto made = policy_registry::create(policy);  // throws for an unknown name
  auto slot = std::unique_ptr<cws::schedule>(new cws::schedule(std::string(name), std::move(made), config().history,
                                                                static_cast<std::uint32_t>(schedules_.size())));
  slot->policy().attach(policy_context{*this, *slot});
  schedules_.push_back(std::move(slot));
  return *schedules_.back();
}

const cws::schedule* runtime::find_schedule(std::string_view name) const noexcept {
  for (const auto& s : schedules_)
    if (s->name() == name) return s.get();
  return nullptr;
}

const run_report& runtime::run_phase(cws::schedule& s, void (*fn)(void*), void* arg) {
  phase_info& info = s.info_;  // its strings are current (schedule::info_)
  info.iteration = s.iterations_;
  info.workers = workers();
  // Written in place into the history's next slot (the storage of the run
  // it evicts), which joins the history once the phase ran: a phase refused
  // before it started leaves the history as it was. A slot holds runs of
  // this schedule only, so its strings are already right unless the
  // schedule's follow() changed since it was written.
  run_report& report = s.history_.pending();
  if (report.phase_version_ != s.info_version_) {
    report.phase = info;
    report.phase_version_ = s.info_version_;
  } else {
    report.phase.iteration = info.iteration;
    report.phase.workers = info.workers;
  }
  // A policy's note grows a slot's string the first time a longer one lands
  // there: evolve's probes, written only on a loaded machine, are the longest
  // (about 350 characters). Room for them once per slot, so that a note
  // allocates nothing once the history is full, whatever the machine does.
  if (report.note.capacity() < note_capacity) report.note.reserve(note_capacity);
  using clock = std::chrono::steady_clock;
  const std::optional<clock::time_point> called =
      time_phases_ ? std::optional<clock::time_point>(clock::now()) : std::nullopt;
  std::exception_ptr error = sched_->run(info, s.policy(), fn, arg, report, s.touches_, s.locality_memo_, called);
  report.relocalized_ = false;  // this run's touches have not been acted on yet
  s.history_.commit();
  ++s.iterations_;
  if (error) std::rethrow_exception(error);
  const auto checked = called ? clock::now() : clock::time_point{};
  if (!s.touches_.empty() && s.policy().relocalize_after_phase()) s.policy().relocalized(relocalize(s));
  if (called) {
    const auto now = clock::now();
    report.timeline->relocalize_s = std::chrono::duration<double>(now - checked).count();
    report.timeline->total_s = std::chrono::duration<double>(now - *called).count();
  }
  return report;
}

const relocalization_report& runtime::relocalize(cws::schedule& s) {
  s.relocalization_ = sched_->relocalize(s.touches_, s.name(), s.iterations_ ? s.iterations_ - 1 : 0);
  s.relocalized_ = true;
  if (s.iterations_ > 0) {                          // made from the latest run's touches: part of its report
    run_report& latest = s.history_.back();
    latest.relocalization_ = s.relocalization_;  // reuses the strings' capacity
    latest.relocalized_ = true;
  }
  return s.relocalization_;
}

numa::page_homes& runtime::page_homes() noexcept { return sched_->placement_state().homes(); }

void runtime::add_observer(observer& o) { sched_->add_observer(o); }
void runtime::remove_observer(observer& o) { sched_->remove_observer(o); }

}  // namespace cws
