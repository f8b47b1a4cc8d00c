// The schedulers' CWS_* table (cws/schedulers/knobs.hpp), parsed by the
// core's runtime_config::from_env through the shared parsers.

#include "cws/schedulers/knobs.hpp"

#include <fmt/format.h>

#include <memory>
#include <string>

#include "cws/env_knobs.hpp"
#include "cws/extension.hpp"
#include "cws/runtime.hpp"

namespace cws::schedulers {

namespace {

using env_knobs::parse_bool;
using env_knobs::parse_ranged;

constexpr env_knobs::knob variables[] = {
    {"CWS_EVOLVE_BOUND",
     [](runtime_config& c, const char* n, std::string_view v) {
       knobs_of(c).replay.evolve_bound = parse_ranged(n, v, 1, 1000, "an integer (1..1000)");
     }},
    {"CWS_EVOLVE_SLOWDOWN",
     [](runtime_config& c, const char* n, std::string_view v) {
       knobs_of(c).replay.evolve_slowdown_pct = parse_ranged(n, v, 0, 1000, "a percentage (1..1000), or 0 for never");
     }},
    {"CWS_STALL_MS",
     [](runtime_config& c, const char* n, std::string_view v) {
       knobs_of(c).replay.stall_ms = parse_ranged(n, v, 1, 60000, "milliseconds (1..60000)");
     }},
    {"CWS_REPLAY_GRACE_US",
     [](runtime_config& c, const char* n, std::string_view v) {
       knobs_of(c).replay.grace_us =
           parse_ranged(n, v, 0, 10000000, "microseconds (1..10000000), or 0 to wait for the thief");
     }},
    {"CWS_EVOLVE_RELOCALIZE", [](runtime_config& c, const char* n,
                                 std::string_view v) { knobs_of(c).replay.evolve_relocalize = parse_bool(n, v); }},
    {"CWS_EVOLVE_CONTENTION", [](runtime_config& c, const char* n,
                                 std::string_view v) { knobs_of(c).replay.evolve_contention = parse_bool(n, v); }},
    {"CWS_EVOLVE_BALANCE",
     [](runtime_config& c, const char* n, std::string_view v) {
       knobs_of(c).replay.evolve_balance_pct =
           parse_ranged(n, v, 0, 1000, "a percentage over 1/P (0..1000; 0 = balance not required)");
     }},
    {"CWS_ELIDE",
     [](runtime_config& c, const char* n, std::string_view v) { knobs_of(c).replay.elide = parse_bool(n, v); }},
    {"CWS_COARSEN_TRIES",
     [](runtime_config& c, const char* n, std::string_view v) {
       knobs_of(c).replay.coarsen_tries = parse_ranged(n, v, 1, 64, "an integer (1..64)");
     }},
    {"CWS_TEMPLATE_TRIES",
     [](runtime_config& c, const char* n, std::string_view v) {
       knobs_of(c).replay.template_tries =
           parse_ranged(n, v, 0, 1000, "an integer (0..1000; 1 = adopt the first run, 0 = auto)");
     }},
    {"CWS_REPLAY_ALONE_US",
     [](runtime_config& c, const char* n, std::string_view v) {
       knobs_of(c).replay.alone_us =
           parse_ranged(n, v, 0, 1000000, "microseconds (1..1000000), or 0 to never run a replay alone");
     }},
    {"CWS_HINTED_HET",
     [](runtime_config& c, const char* n, std::string_view v) { knobs_of(c).hinted.het = parse_bool(n, v); }},
    {"CWS_HINTED_HET_LIMIT",
     [](runtime_config& c, const char* n, std::string_view v) {
       knobs_of(c).hinted.het_limit = parse_ranged(n, v, 0, 1000000, "a task count (0..1000000)");
     }},
    {"CWS_HINTED_RELAXED",
     [](runtime_config& c, const char* n, std::string_view v) { knobs_of(c).hinted.relaxed = parse_bool(n, v); }},
};

std::string_view on_off(bool b) { return b ? "on" : "off"; }

// Says, in runtime::describe(), which knobs the runtime's policies run with.
class knobs_description final : public runtime_extension {
 public:
  explicit knobs_description(const runtime_config& cfg) {
    const knobs& k = knobs_of(cfg);
    const replay_knobs& r = k.replay;
    text_ = fmt::format(
        "replay:   evolve bound {}, slowdown {} %, balance {} %, relocalize {}, contention {}; stall {} ms, "
        "grace {}, elide {}, coarsen tries {}, template tries {}, alone {}\n",
        r.evolve_bound, r.evolve_slowdown_pct, r.evolve_balance_pct, on_off(r.evolve_relocalize),
        on_off(r.evolve_contention), r.stall_ms,
        r.grace_us != 0 ? fmt::format("{} us", r.grace_us) : std::string("off"), on_off(r.elide), r.coarsen_tries,
        r.template_tries != 0 ? std::to_string(r.template_tries) : std::string("auto (5 on one NUMA node, else 1)"),
        r.alone_us == replay_knobs::alone_auto ? std::string("auto (timed up to 20 us on one NUMA node, else off)")
        : r.alone_us != 0                     ? fmt::format("timed up to {} us", r.alone_us)
                                              : std::string("off"));
    text_ += fmt::format("hinted:   het {} (limit {}), relaxed {}\n", on_off(k.hinted.het), k.hinted.het_limit,
                         on_off(k.hinted.relaxed));
  }
  std::string describe() const override { return text_; }

 private:
  std::string text_;
};

}  // namespace

knobs& knobs_of(runtime_config& cfg) { return cfg.extensions.get<knobs>(); }

const knobs& knobs_of(const runtime_config& cfg) noexcept {
  static const knobs defaults;
  const knobs* set = cfg.extensions.find<knobs>();
  return set ? *set : defaults;
}

void register_knobs() {
  env_knobs::add_table(variables);
  extension_registry::add("scheduler_knobs", [](runtime& rt) -> std::unique_ptr<runtime_extension> {
    return std::make_unique<knobs_description>(rt.config());
  });
}

}  // namespace cws::schedulers
