// Allocations per phase in steady state (counting_new.cpp counts every global
// operator new of this binary, on every thread). Per-phase bookkeeping — the
// recorder's phase record, the schedule's run report, the store's trees, a
// policy's begin/end — reuses the storage of the run that leaves the history
// window, so once the window is full and the storage has grown to the phase's
// size it allocates nothing.
//
// The core's own share (lib/) is measured apart and left out: what it makes
// between phases with recording off under `random`, and whatever is made
// while the workers run (its mailboxes allocate under routing policies; the
// recorder's per-worker buffers, which persist, grow there too). A
// steady-state figure is the count over `measure` phases after `warmup`
// phases (more than the window, so eviction is on).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string_view>

#include "counting_new.hpp"
#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"

namespace {

constexpr unsigned window = 16;  // runtime_config::history: small, so that the warm-up evicts
constexpr int warmup = 400;
constexpr int measure = 2000;

cws::runtime_config cfg(bool record) {
  cws::runtime_config c = cws::test::config(2);
  c.record = record;
  c.history = window;
  return c;
}

using body = std::function<void()>;

// Counts what is allocated while the workers run (between the observers'
// phase begin and end), with two observers around the recorder: `closer`
// before it (its on_phase_end runs first), `opener` after it (its
// on_phase_begin runs last).
struct phase_window {
  struct closer_t final : cws::observer {
    phase_window* w = nullptr;
    void on_phase_end(const cws::phase_stats&) override { w->inside += cws::test::allocations() - w->start; }
  } closer;
  struct opener_t final : cws::observer {
    phase_window* w = nullptr;
    void on_phase_begin(const cws::phase_info&) override { w->start = cws::test::allocations(); }
  } opener;
  std::uint64_t start = 0;
  std::uint64_t inside = 0;

  explicit phase_window(cws::runtime& rt) {
    closer.w = opener.w = this;
    auto* rec = cws::steal_tree::recorder_of(rt);
    if (rec != nullptr) rt.remove_observer(*rec);
    rt.add_observer(closer);
    if (rec != nullptr) rt.add_observer(*rec);
    rt.add_observer(opener);
  }
};

struct count {
  double total = 0;   // per phase
  double inside = 0;  // per phase, while the workers ran
  double outside() const { return total - inside; }
};

// Allocations per phase over `measure` phases of `s`, after `warmup`.
count per_phase(cws::runtime& rt, cws::schedule& s, const body& phase) {
  for (int i = 0; i < warmup; ++i) rt.run(s, phase);
  phase_window w(rt);
  const std::uint64_t before = cws::test::allocations();
  for (int i = 0; i < measure; ++i) rt.run(s, phase);
  const std::uint64_t total = cws::test::allocations() - before;
  rt.remove_observer(w.opener);
  rt.remove_observer(w.closer);
  return {static_cast<double>(total) / measure, static_cast<double>(w.inside) / measure};
}

// A schedule's steady state under `policy` (follow: a stows schedule replaying
// "init", a random schedule that ran once, long before).
count steady(std::string_view policy, const body& phase, bool record = true) {
  cws::runtime rt(cfg(record));
  if (policy == "follow") {
    auto& init = rt.schedule("init");
    rt.run(init, phase);
    auto& s = rt.schedule("copy", cws::policy::stows).follow("init");
    return per_phase(rt, s, phase);
  }
  return per_phase(rt, rt.schedule("s", policy), phase);
}

const body empty_phase = [] {};
const body fib_phase = [] { (void)cws::test::fib(12); };

// Per policy: allocations per phase between phases, beyond what the core
// alone makes there (random, recording off).
struct figures {
  count core;
  count random, stows, relws, evolve, follow;
  double beyond(const count& c) const { return c.outside() - core.outside(); }
};

figures measure_all(const body& phase) {
  figures f;
  f.core = steady("random", phase, false);
  f.random = steady("random", phase);
  f.stows = steady("stows", phase);
  f.relws = steady("relws", phase);
  f.evolve = steady("evolve", phase);
  f.follow = steady("follow", phase);
  return f;
}

void print(const char* what, const figures& f) {
  std::printf(
      "allocations per phase (%s, 2 workers, window %u, %d phases after %d):\n"
      "  core alone (random, recording off): %.3f between phases, %.3f while the workers ran\n"
      "  recording + replay bookkeeping beyond the core: random %.3f, stows %.3f, relws %.3f, evolve %.3f, "
      "follow %.3f\n"
      "  while the workers ran (core mailboxes, recorder buffers): random %.3f, stows %.3f, relws %.3f, "
      "evolve %.3f, follow %.3f\n",
      what, window, measure, warmup, f.core.outside(), f.core.inside, f.beyond(f.random), f.beyond(f.stows),
      f.beyond(f.relws), f.beyond(f.evolve), f.beyond(f.follow), f.random.inside, f.stows.inside, f.relws.inside,
      f.evolve.inside, f.follow.inside);
}

// Phases without steals: every tree is one segment, so nothing grows after
// the warm-up and the bookkeeping allocates nothing at all — evolve included,
// although on a noisy machine it may go back from stows to relws (a lasting
// slowdown: slowdown_watch.hpp), writing notes and new templates. (Its
// probes' notes, the longest, first came only under such a load, and grew a
// report's string then: 1-4 allocations in 2 000 phases beside a parallel
// build. Each history slot now has room for them from the start.)
TEST(history_allocations, empty_phases_allocate_nothing_beyond_the_core) {
  if (!cws::test::counting()) GTEST_SKIP() << "operator new is the sanitizer's here; counted in Release builds";
  const figures f = measure_all(empty_phase);
  print("empty phases", f);
  EXPECT_EQ(f.beyond(f.random), 0.0);
  EXPECT_EQ(f.beyond(f.stows), 0.0);
  EXPECT_EQ(f.beyond(f.relws), 0.0);
  EXPECT_EQ(f.beyond(f.evolve), 0.0);
  EXPECT_EQ(f.beyond(f.follow), 0.0);
}

// Phases with random steals: trees of varying shape. A tree larger than any
// its storage held before grows a vector (rarer as the sizes have been
// seen); a template that stays (stows, follow) costs nothing. Measured on 2
// cores: random 0.003-0.018, relws 0.02-0.035, evolve 0.004-0.17 (more on a
// loaded machine, where it leaves stows more often and records new trees).
// Beside a parallel ctest run, random reached 0.02-0.16 once a helper late
// for a phase skips it instead of holding its end (docs/scheduler.md,
// Joining): the trees' sizes vary more there, and new largest ones keep
// turning up. The bounds leave room for that: what they rule out is
// allocation that grows with the phases (one per phase or more).
TEST(history_allocations, stealing_phases_stay_within_a_small_bound) {
  if (!cws::test::counting()) GTEST_SKIP() << "operator new is the sanitizer's here; counted in Release builds";
  const figures f = measure_all(fib_phase);
  print("fib(12) phases", f);
  EXPECT_LE(f.beyond(f.random), 0.5);
  EXPECT_EQ(f.beyond(f.stows), 0.0);
  EXPECT_LE(f.beyond(f.relws), 0.5);
  EXPECT_LE(f.beyond(f.evolve), 0.5);
  EXPECT_EQ(f.beyond(f.follow), 0.0);
}

}  // namespace
