// The recorder's history bounded in bytes (runtime_config::history_bytes,
// CWS_HISTORY_MB): steal-heavy runs make K runs per schedule a gigabyte, so
// the window drops its oldest runs, across schedules, while the records hold
// more than the bound, and keeps each schedule's latest run whatever it holds.
// Deterministic: the window is fed built records, the recorder synthetic
// segment events (no scheduling involved), so every count below is exact.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cws/traces/trace_file.hpp"
#include "record_checks.hpp"

namespace {

namespace st = cws::steal_tree;

// A record of `schedule` whose tree has `steals` stolen segments, all children
// of the root (what a phase with that many steals records).
st::phase_record built_record(const std::string& schedule, std::uint64_t iteration, std::uint32_t steals) {
  st::phase_record r;
  r.schedule = schedule;
  r.iteration = iteration;
  r.policy = "random";
  r.stats.resize(2);
  r.steals.workers = 2;
  r.steals.segments.resize(steals + 1);
  r.steals.worker_segments.resize(2);
  r.steals.worker_segments[0].push_back(0);
  for (std::uint32_t i = 1; i <= steals; ++i) {
    r.steals.segments[i].worker = 1;
    r.steals.segments[i].parent = 0;
    r.steals.segments[i].level = 1;
    r.steals.segments[i].step = i - 1;
    r.steals.segments[0].steals.push_back(st::steal_point{1, i - 1, 1, i});
    r.steals.worker_segments[1].push_back(i);
  }
  return r;
}

// The window's records as "schedule#iteration", oldest first.
std::vector<std::string> kept(const st::record_window& w) {
  std::vector<std::string> out;
  for (const st::phase_record& r : w) out.push_back(r.schedule + "#" + std::to_string(r.iteration));
  return out;
}

// Writes a run of `schedule` into the window, as the recorder does, then trims.
void add(st::record_window& w, const st::phase_record& r) {
  w.next(r.schedule) = r;
  w.trim();
}

TEST(history_bytes, the_window_drops_the_oldest_runs_past_the_bound_and_keeps_each_latest) {
  const st::phase_record big = built_record("a", 0, 4096);
  // One big run's share of the bound: the record and its vectors.
  st::record_window probe(64);
  add(probe, big);
  const std::size_t run = probe.record_storage();
  ASSERT_GT(run, 4096 * sizeof(st::steal_point));
  ASSERT_EQ(run, sizeof(st::phase_record) + st::record_bytes(probe.back()));

  // Room for four and a half runs: c's one run and a's latest three stay.
  const std::size_t bound = 4 * run + run / 2;
  st::record_window w(64, bound);
  EXPECT_EQ(w.max_bytes(), bound);
  st::phase_record c = big;
  c.schedule = "c";
  add(w, c);
  std::size_t first_full = 0;
  for (std::uint64_t i = 0; i < 200; ++i) {
    st::phase_record a = big;
    a.iteration = i;
    add(w, a);
    ASSERT_LE(w.record_storage(), bound) << "after a#" << i;
    ASSERT_LE(w.bytes(), bound + run) << "after a#" << i;
    if (i == 20) first_full = w.bytes();
  }
  EXPECT_EQ(kept(w), (std::vector<std::string>{"c#0", "a#197", "a#198", "a#199"}));
  EXPECT_EQ(w.trimmed(), 197u);
  EXPECT_EQ(w.evicted(), 0u) << "the byte bound dropped them before the run count did";
  EXPECT_LE(w.bytes(), first_full) << "flat: 180 more runs hold nothing more";
  ASSERT_NE(w.latest("c"), nullptr);
  EXPECT_EQ(w.latest("c")->steals.segments.size(), 4097u);
}

TEST(history_bytes, a_latest_run_larger_than_the_bound_stays_alone) {
  const std::size_t bound = 1024;  // less than any of the runs below
  st::record_window w(8, bound);
  for (std::uint64_t i = 0; i < 5; ++i) {
    st::phase_record r = built_record("a", i, 512);
    add(w, r);
    st::phase_record s = built_record("b", i, 256);
    add(w, s);
  }
  // Over the bound with the latest runs alone: nothing else is kept, and the
  // latest run of every schedule is.
  EXPECT_EQ(kept(w), (std::vector<std::string>{"a#4", "b#4"}));
  ASSERT_NE(w.latest("a"), nullptr);
  EXPECT_EQ(w.latest("a")->steals.segments.size(), 513u);
  // The dropped runs' storage went back to the system: what is held is the two
  // latest runs and empty slots.
  const std::size_t latest = st::record_bytes(*w.latest("a")) + st::record_bytes(*w.latest("b"));
  EXPECT_LE(w.record_storage(), latest + 4 * sizeof(st::phase_record));
}

TEST(history_bytes, runs_below_the_bound_keep_the_whole_history) {
  st::record_window w(8, std::size_t{1} << 20);
  for (std::uint64_t i = 0; i < 50; ++i) {
    st::phase_record r = built_record("s", i, 16);
    add(w, r);
  }
  EXPECT_EQ(w.size(), 8u);
  EXPECT_EQ(w.front().iteration, 42u);
  EXPECT_EQ(w.trimmed(), 0u);
  EXPECT_EQ(w.evicted(), 42u);
  // No bound: nothing is dropped for bytes, however large.
  st::record_window unbounded(8, 0);
  for (std::uint64_t i = 0; i < 20; ++i) add(unbounded, built_record("s", i, 4096));
  EXPECT_EQ(unbounded.size(), 8u);
  EXPECT_EQ(unbounded.trimmed(), 0u);
}

// Clear() leaves spare storage for reuse; past the bound it is freed first,
// before any kept run.
TEST(history_bytes, spare_storage_left_by_clear_counts_and_is_freed_first) {
  const st::phase_record big = built_record("a", 0, 2048);
  st::record_window probe(64);
  add(probe, big);
  const std::size_t run = probe.record_storage();
  const std::size_t bound = 3 * run + run / 2;
  st::record_window w(64, bound);
  for (std::uint64_t i = 0; i < 3; ++i) {
    st::phase_record r = big;
    r.iteration = i;
    add(w, r);
  }
  EXPECT_EQ(w.size(), 3u);
  w.clear();
  // Twice a's size, in one of the three spare slots: 4 runs' worth with the
  // two other spares, over the bound, and b's latest run cannot go.
  add(w, built_record("b", 0, 4096));
  EXPECT_EQ(kept(w), (std::vector<std::string>{"b#0"}));
  EXPECT_EQ(w.trimmed(), 0u);
  EXPECT_LE(w.record_storage(), bound) << "spare slots kept their trees";
}

// ---- the recorder, fed synthetic segment events

// One phase of `schedule` on 2 workers in which worker 1 steals `steals`
// tasks from the root segment, as the core reports it.
void feed_phase(st::recorder& rec, const std::string& schedule, std::uint64_t iteration, std::uint32_t steals) {
  cws::phase_info info;
  info.schedule = schedule;
  info.iteration = iteration;
  info.policy = "random";
  info.workers = 2;
  rec.on_phase_begin(info);
  const cws::segment_id root = cws::make_segment_id(0, 0);
  rec.on_segment_begin(0, root, cws::task_tag{}, 1);
  for (std::uint32_t i = 0; i < steals; ++i) {
    const cws::segment_id id = cws::make_segment_id(1, i);
    rec.on_segment_begin(1, id, cws::task_tag{root, 1, i}, 2 + i);
    rec.on_segment_end(1, id, 1, 3 + i);
  }
  rec.on_segment_end(0, root, 1, 4 + steals);
  cws::phase_stats stats;
  stats.phase = info;
  stats.per_worker.resize(2);
  stats.per_worker[0].tasks = 1;
  stats.per_worker[0].segments = 1;
  stats.per_worker[1].tasks = steals;
  stats.per_worker[1].segments = steals;
  stats.per_worker[1].steals = steals;
  rec.on_phase_end(stats);
}

TEST(history_bytes, steal_heavy_phases_stay_within_the_bound_and_save_traces_keeps_every_latest_run) {
  cws::runtime_config c = cws::test::config(2);
  c.history = 64;
  c.history_bytes = std::size_t{2} << 20;
  cws::runtime rt(c);
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->history_bound(), c.history_bytes);
  rt.run(rt.schedule("light"), [] { cws::test::fib(10); });  // runs once, before everything else

  constexpr std::uint32_t steals = 20'000;  // ~1 MB per recorded run
  std::size_t run = 0;
  std::size_t held_at_50 = 0;
  for (std::uint64_t i = 0; i < 300; ++i) {
    feed_phase(*rec, "heavy", i, steals);
    const st::phase_record* last = rec->latest("heavy");
    ASSERT_NE(last, nullptr);
    ASSERT_EQ(last->steals.segments.size(), steals + 1u);
    run = std::max(run, sizeof(st::phase_record) + st::record_bytes(*last));
    ASSERT_LE(rec->history_bytes(), c.history_bytes + run) << "phase " << i;
    if (i == 50) held_at_50 = rec->history_bytes();
  }
  EXPECT_GT(run, c.history_bytes / 4) << "the runs are meant to be large against the bound";
  EXPECT_LE(rec->history_bytes(), held_at_50) << "flat from phase 50 to 300";
  EXPECT_LT(rec->phases().size(), 64u);
  EXPECT_GT(rec->phases().trimmed(), 0u);
  ASSERT_NE(rec->latest("light"), nullptr);
  EXPECT_EQ(rec->latest("light")->iteration, 0u);
  EXPECT_EQ(rec->phases().front().schedule, "light");

  const std::string path = ::testing::TempDir() + "history_bytes.cwst";
  rt.save_traces(path);
  const cws::traces::trace_file f = cws::traces::read(path);
  bool light = false;
  bool heavy = false;
  for (const st::phase_record& r : f.phases) {
    light |= r.schedule == "light" && r.iteration == 0;
    heavy |= r.schedule == "heavy" && r.iteration == 299 && r.steals.segments.size() == steals + 1u;
  }
  EXPECT_TRUE(light && heavy) << "save_traces must hold every schedule's latest run";
  std::remove(path.c_str());
}

}  // namespace
