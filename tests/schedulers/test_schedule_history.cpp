// One typed history per schedule (cws::schedule::history()): the reports of
// the last runtime_config::history runs, oldest first, for every policy (the
// core's random one included), each holding what its policy wrote (ran_as,
// template, note, convergence) and what the core measured (locality, the
// relocalization made from its touches). rt.run returns the history's newest
// entry itself, not a copy. And the ring underneath (cws::bounded_history):
// an entry is written in place and joins the history only when committed.

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cws/cws.hpp"
#include "support/locality_scenarios.hpp"  // system_page
#include "support/runtime_fixture.hpp"

namespace {

constexpr unsigned kept = 4;   // runtime_config::history
constexpr unsigned runs = 12;  // evolve converges within its bound (CWS_EVOLVE_BOUND, 5 relws runs), then replays

// 2 NUMA nodes (simulated page homes), so that locality and relocalization mean something.
cws::runtime_config two_nodes() {
  cws::runtime_config c = cws::test::config(2, "pack:2 numa:1 core:1 pu:1");
  c.history = kept;
  // 2 workers on a loaded machine: no relearning on timing noise.
  cws::schedulers::knobs_of(c).replay.evolve_slowdown_pct = 0;
  return c;
}

// What a report says, copied when rt.run returned it.
struct seen {
  std::uint64_t iteration = 0;
  cws::ran_as ran_as = cws::ran_as::other;
  cws::ran_as planned = cws::ran_as::other;
  std::string reason, template_from, note;
  bool converged = false;
  std::optional<double> local_share;
  std::optional<std::uint64_t> pages_moved;
};

seen seen_in(const cws::run_report& r) {
  const cws::relocalization_report* moved = r.relocalization();
  return {r.phase.iteration,
          r.ran_as,
          r.planned,
          r.reason,
          r.template_from,
          r.note,
          r.converged,
          r.locality ? std::optional<double>(r.locality->share()) : std::nullopt,
          moved != nullptr ? std::optional<std::uint64_t>(moved->pages_moved) : std::nullopt};
}

void expect_same(const seen& a, const seen& b) {
  EXPECT_EQ(a.iteration, b.iteration);
  EXPECT_EQ(a.ran_as, b.ran_as) << "run " << a.iteration;
  EXPECT_EQ(a.planned, b.planned) << "run " << a.iteration;
  EXPECT_EQ(a.reason, b.reason) << "run " << a.iteration;
  EXPECT_EQ(a.template_from, b.template_from) << "run " << a.iteration;
  EXPECT_EQ(a.note, b.note) << "run " << a.iteration;
  EXPECT_EQ(a.converged, b.converged) << "run " << a.iteration;
  EXPECT_EQ(a.local_share, b.local_share) << "run " << a.iteration;
  EXPECT_EQ(a.pages_moved, b.pages_moved) << "run " << a.iteration;
}

// One phase: every leaf adds 1 to its pages of `data`, declaring them (touch.hpp).
struct sweep {
  cws::numa::array<double> data;
  std::size_t grain;
  explicit sweep(const cws::runtime& rt)
      : data(cws::numa::allocate<double>(16 * rt.workers() * (cws::test::system_page() / sizeof(double)),
                                        cws::numa::first_touch)),
        grain(cws::test::system_page() / sizeof(double)) {}
  void operator()() {
    cws::parallel_for_range(
        0, data.size(),
        [this](std::size_t lo, std::size_t hi) {
          cws::touch(&data[lo], (hi - lo) * sizeof(double));
          for (std::size_t i = lo; i < hi; ++i) data[i] += 1;
        },
        grain);
  }
};

// Runs `runs` sweeps under `policy` and checks the schedule's history against
// what each rt.run returned; gives the reports seen, oldest first.
std::vector<seen> run_and_check(std::string_view policy) {
  cws::runtime rt(two_nodes());
  sweep phase(rt);
  cws::schedule& s = rt.schedule("sweep", policy);
  EXPECT_TRUE(s.history().empty());
  EXPECT_EQ(s.last_report(), nullptr);
  std::vector<seen> returned;
  for (unsigned i = 0; i < runs; ++i) {
    const cws::run_report& r = rt.run(s, phase);
    // rt.run's result is the history's newest entry itself, not a copy.
    EXPECT_EQ(&r, &s.history().back()) << "run " << i;
    EXPECT_EQ(&r, s.last_report());
    returned.push_back(seen_in(r));
  }

  const cws::bounded_history<cws::run_report>& h = s.history();
  EXPECT_EQ(h.capacity(), kept);
  EXPECT_EQ(h.size(), kept);
  EXPECT_EQ(h.dropped(), runs - kept);
  for (std::size_t i = 0; i < h.size(); ++i) {
    const cws::run_report& r = h[i];
    EXPECT_EQ(r.phase.schedule, "sweep");
    EXPECT_EQ(r.phase.policy, policy);
    expect_same(seen_in(r), returned[runs - kept + i]);
  }
  return returned;
}

TEST(schedule_history, random_keeps_its_last_runs_with_locality) {
  const std::vector<seen> all = run_and_check(cws::policy::random);
  for (const seen& s : all) {
    EXPECT_EQ(s.ran_as, cws::ran_as::random) << "run " << s.iteration;
    EXPECT_TRUE(s.template_from.empty());
    EXPECT_FALSE(s.converged);
    EXPECT_FALSE(s.pages_moved.has_value()) << "random asks for no relocalization";
    EXPECT_TRUE(s.local_share.has_value()) << "the sweeps declare their touches: run " << s.iteration;
  }
}

TEST(schedule_history, evolve_keeps_its_decisions_and_relocalizations) {
  const std::vector<seen> all = run_and_check(cws::policy::evolve);
  EXPECT_EQ(all.front().ran_as, cws::ran_as::random_no_template);
  EXPECT_EQ(all.front().reason, "no template yet");
  EXPECT_TRUE(all.front().pages_moved.has_value()) << "evolve relocalizes after the run that becomes its template";
  std::size_t notes = 0;
  for (const seen& s : all) {
    notes += !s.note.empty();
    EXPECT_TRUE(s.local_share.has_value()) << "the sweeps declare their touches: run " << s.iteration;
    if (s.ran_as == cws::ran_as::relws) {
      EXPECT_FALSE(s.template_from.empty()) << "run " << s.iteration;
    }
  }
  EXPECT_GE(notes, 1u) << "evolve says when it converges";
  EXPECT_TRUE(all.back().converged) << "evolve converged within its bound";
}

// ------------------------------------------------------------ the ring itself

TEST(bounded_history, a_pending_entry_joins_on_commit_and_reuses_the_evicted_storage) {
  cws::bounded_history<std::string> h(2);
  h.pending() = "a";
  EXPECT_TRUE(h.empty()) << "not part of the history before commit()";
  h.commit();
  h.commit();  // nothing pending: no-op
  ASSERT_EQ(h.size(), 1u);
  const std::string* first = &h.front();
  h.pending() = "b";
  h.commit();
  EXPECT_EQ(first, &h.front()) << "growing the ring moves no entry";
  h.pending() = "c";
  EXPECT_EQ(std::vector<std::string>(h), (std::vector<std::string>{"a", "b"})) << "whole while `c` is written";
  h.commit();
  EXPECT_EQ(std::vector<std::string>(h), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(h.dropped(), 1u);
  // The next entry is written over the storage of the one evicted last.
  std::string& next = h.pending();
  EXPECT_EQ(next, "a");
  next = "d";
  h.commit();
  EXPECT_EQ(std::vector<std::string>(h), (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(h.back(), "d");
  EXPECT_EQ(h.front(), "c");
  EXPECT_EQ(h.dropped(), 2u);
  h.set_capacity(1);
  EXPECT_EQ(std::vector<std::string>(h), (std::vector<std::string>{"d"}));
}

}  // namespace
