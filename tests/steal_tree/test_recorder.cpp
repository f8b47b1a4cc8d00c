// The recorder on real runs: attachment through the extension registry and
// CWS_RECORD (config.record), the phase history, the tree's agreement with the
// core's statistics, audit mode against the tree (fib and a memcopy-like
// parallel_for, several seeds, 2 workers and synthetic 4- and 8-worker
// topologies), the O(segments + steals) size of what is recorded, and the
// locality and relocalization reports kept with each run.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "record_checks.hpp"

namespace {

namespace st = cws::steal_tree;
using cws::test::config;

TEST(steal_tree_recorder, attached_by_default) {
  cws::runtime rt(config(2));  // cws::cws registers its components when the first runtime is created
  const auto names = cws::extension_registry::names();
  EXPECT_NE(std::find(names.begin(), names.end(), "steal_tree"), names.end());
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rt.extension("steal_tree"), static_cast<cws::runtime_extension*>(rec));
  EXPECT_FALSE(rec->audit());
  EXPECT_FALSE(rec->wants_task_events());
  EXPECT_TRUE(rec->phases().empty());
  EXPECT_EQ(rec->latest("default"), nullptr);
}

TEST(steal_tree_recorder, record_off_gives_no_recorder) {
  auto cfg = config(2);
  cfg.record = false;
  cfg.audit = true;  // audit without recording is meaningless: still nothing
  cws::runtime rt(cfg);
  EXPECT_EQ(st::recorder_of(rt), nullptr);
  EXPECT_EQ(rt.extension("steal_tree"), nullptr);
  std::uint64_t r = 0;
  rt.run([&] { r = cws::test::fib(15); });
  EXPECT_EQ(r, cws::test::serial_fib(15));
}

TEST(steal_tree_recorder, history_latest_and_clear) {
  cws::runtime rt(config(2));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  auto& a = rt.schedule("a");
  auto& b = rt.schedule("b");
  for (int i = 0; i < 3; ++i) {
    const auto& sa = rt.run(a, [] { cws::test::fib(16); });
    cws::test::check_tree(*rec->latest("a"), sa, "a");
    const auto& sb = rt.run(b, [] { cws::test::fib(12); });
    cws::test::check_tree(*rec->latest("b"), sb, "b");
  }
  ASSERT_EQ(rec->phases().size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(rec->phases()[i].schedule, i % 2 ? "b" : "a");
    EXPECT_EQ(rec->phases()[i].iteration, i / 2);
    EXPECT_EQ(rec->phases()[i].policy, "random");
  }
  EXPECT_EQ(rec->latest("a"), &rec->phases()[4]);
  EXPECT_EQ(rec->latest("b"), &rec->phases()[5]);
  EXPECT_EQ(rec->latest("c"), nullptr);
  rec->clear();
  EXPECT_TRUE(rec->phases().empty());
  EXPECT_EQ(rec->latest("a"), nullptr);
  rt.run(a, [] { cws::test::fib(10); });
  ASSERT_EQ(rec->phases().size(), 1u);
  EXPECT_EQ(rec->phases()[0].iteration, 3u);
}

TEST(steal_tree_recorder, single_worker_records_one_segment) {
  cws::runtime rt(config(1));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  const auto before = std::chrono::steady_clock::now();
  const auto& s = rt.run([] { cws::test::fib(18); });
  const auto after = std::chrono::steady_clock::now();
  const st::tree& t = rec->latest("default")->steals;
  ASSERT_EQ(t.segments.size(), 1u);
  EXPECT_EQ(t.segments[0].tasks, cws::test::fib_spawns(18) + 1);
  EXPECT_TRUE(t.segments[0].steals.empty());
  EXPECT_EQ(st::summarize(t), (st::totals{cws::test::fib_spawns(18) + 1, 0, 1, 1}));
  // Times relative to the phase start, which lies inside [before, after]:
  // an ordering, true however long the OS keeps any thread waiting.
  EXPECT_LE(std::chrono::nanoseconds(t.segments[0].end_ns), after - before);
  cws::test::check_tree(*rec->latest("default"), s, "1 worker");
}

// A phase nobody stole from takes the recorder's short merge (one segment).
// With a window of one run per schedule, it is written over the record of a
// phase with a steal: nothing of that run's tree (its second segment, the
// steal point, worker 1's segment list) may survive in the new one.
TEST(steal_tree_recorder, unstolen_phase_written_over_a_stolen_one_keeps_nothing_of_it) {
  auto cfg = config(2);
  cfg.history = 1;
  cws::runtime rt(cfg);
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  auto& s = rt.schedule("reused");
  const cws::phase_stats& stolen = cws::test::run_forced_steal(rt, s);
  ASSERT_EQ(rec->latest("reused")->steals.segments.size(), 2u);
  cws::test::check_tree(*rec->latest("reused"), stolen, "forced steal");

  const cws::phase_stats& alone = rt.run(s, [] {});
  ASSERT_EQ(alone.steals(), 0u) << "an empty phase has nothing to steal";
  ASSERT_EQ(rec->phases().size(), 1u);
  const st::tree& t = rec->latest("reused")->steals;
  ASSERT_EQ(t.segments.size(), 1u);
  EXPECT_TRUE(t.segments[0].steals.empty());
  EXPECT_EQ(t.segments[0].tasks, 1u);
  ASSERT_EQ(t.worker_segments.size(), 2u);
  EXPECT_EQ(t.worker_segments[0], std::vector<std::uint32_t>{0});
  EXPECT_TRUE(t.worker_segments[1].empty());
  EXPECT_TRUE(t.paths.empty());
  cws::test::check_tree(*rec->latest("reused"), alone, "empty phase over the stolen one");
}

// The short merge and the general one (which audit runs always take) build
// the same tree of a one-segment phase.
TEST(steal_tree_recorder, unstolen_phase_tree_is_the_general_merges) {
  st::tree trees[2];
  for (bool audit : {false, true}) {
    auto cfg = config(1);
    cfg.audit = audit;
    cws::runtime rt(cfg);
    rt.run([] { cws::test::fib(12); });
    trees[audit] = cws::steal_tree::recorder_of(rt)->latest("default")->steals;
  }
  for (st::tree& t : trees) {
    t.audit.clear();
    for (st::segment& g : t.segments) g.start_ns = g.end_ns = 0;
  }
  EXPECT_EQ(trees[0], trees[1]);
}

// Segment events of one phase on `workers` workers, fed straight to a
// recorder: worker 0's root segment, then for each other worker the
// segments it stole, each from the root or from the previous worker's first
// segment, at level 1..6 with a pedigree of that length.
struct synthetic_phase {
  unsigned workers = 2;
  struct stolen {
    unsigned worker;
    cws::segment_id parent;
    std::uint32_t level, step;
    std::vector<std::uint32_t> path;
  };
  std::vector<stolen> segments;  // in start order per worker
};

synthetic_phase random_phase(std::mt19937& rng, bool star) {
  synthetic_phase p;
  p.workers = std::array{2u, 3u, 4u, 8u}[rng() % 4];
  const cws::segment_id root = cws::make_segment_id(0, 0);
  std::uint32_t next_step = 0;
  for (unsigned w = 1; w < p.workers; ++w) {
    const unsigned count = star ? rng() % 2 : rng() % 3;  // a star: at most one each
    for (unsigned k = 0; k < count; ++k) {
      const bool from_previous = !star && w > 1 && rng() % 2 == 0 &&
                                 std::any_of(p.segments.begin(), p.segments.end(),
                                             [&](const auto& s) { return s.worker == w - 1; });
      const cws::segment_id parent = from_previous ? cws::make_segment_id(w - 1, 0) : root;
      const auto level = static_cast<std::uint32_t>(1 + rng() % 6);
      std::vector<std::uint32_t> path(level);
      for (auto& r : path) r = static_cast<std::uint32_t>(rng() % 4);
      const auto step = static_cast<std::uint32_t>(next_step++ * 3 + rng() % 3);
      p.segments.push_back({w, parent, level, step, std::move(path)});
    }
  }
  std::shuffle(p.segments.begin(), p.segments.end(), rng);  // (level, step) order is not start order
  std::stable_sort(p.segments.begin(), p.segments.end(), [](const auto& a, const auto& b) { return a.worker < b.worker; });
  return p;
}

const st::tree& feed(cws::runtime& rt, const synthetic_phase& p, std::uint64_t iteration) {
  st::recorder& rec = *st::recorder_of(rt);
  cws::phase_info info;
  info.schedule = "synthetic";
  info.iteration = iteration;
  info.policy = "random";
  info.workers = p.workers;
  rec.on_phase_begin(info);
  const cws::segment_id root = cws::make_segment_id(0, 0);
  std::uint64_t now = 100;
  rec.on_segment_begin(0, root, cws::task_tag{}, now++);
  std::vector<std::uint64_t> seq(p.workers, 0);
  for (const auto& s : p.segments) {
    const cws::segment_id id = cws::make_segment_id(s.worker, seq[s.worker]++);
    rec.on_segment_begin(s.worker, id, cws::task_tag{s.parent, s.level, s.step}, now++);
    rec.on_segment_path(s.worker, id, s.path);
    rec.on_segment_end(s.worker, id, 1 + s.step % 5, now++);
  }
  rec.on_segment_end(0, root, 7, now++);
  cws::phase_stats stats;
  stats.phase = info;
  stats.per_worker.resize(p.workers);
  rec.on_phase_end(stats);
  return rec.latest("synthetic")->steals;
}

// The recorder's short merge of a phase whose every steal was from the root
// segment (one segment per thief) and the general merge (which audit runs
// always take) build the same tree: segments in pre-order, steal points in
// (level, step) order with their thieves, indices and pedigrees, each
// worker's segment list. Phases of other shapes, which take the general
// merge in both, are mixed in, and every record is written over the
// previous one (a window of one run).
TEST(steal_tree_recorder, star_phase_tree_is_the_general_merges) {
  std::mt19937 rng(2026);
  auto make = [](bool audit) {
    auto cfg = config(8, cws::test::eight_cores);  // 8 workers on any machine
    cfg.history = 1;
    cfg.audit = audit;
    return std::make_unique<cws::runtime>(cfg);
  };
  const auto plain = make(false), audited = make(true);
  unsigned stars = 0;
  for (std::uint64_t i = 0; i < 400; ++i) {
    const bool star = i % 3 != 0;
    const synthetic_phase p = random_phase(rng, star);
    st::tree got = feed(*plain, p, i), want = feed(*audited, p, i);
    want.audit.clear();
    ASSERT_EQ(got, want) << "phase " << i << (star ? " (a star)" : "") << " on " << p.workers << " workers";
    if (star) {
      ASSERT_EQ(got.segments.size(), 1 + p.segments.size());
      stars += p.segments.size() > 1;
    }
  }
  EXPECT_GT(stars, 100u) << "too few stars with several thieves to compare";
}

// A star phase takes none of the general merge's scratch storage: after
// stars of eight segments, a phase of three that needs the general merge
// (a thief ran two segments) is the first to make the scratch arrays grow.
TEST(steal_tree_recorder, star_phases_leave_the_general_merges_storage_alone) {
  auto cfg = config(8, cws::test::eight_cores);
  cfg.history = 1;
  cws::runtime rt(cfg);
  const cws::segment_id root = cws::make_segment_id(0, 0);
  synthetic_phase star;
  star.workers = 8;
  for (unsigned w = 1; w < 8; ++w) star.segments.push_back({w, root, 1 + w % 3, w, std::vector<std::uint32_t>(1 + w % 3, 1)});
  synthetic_phase general;
  general.workers = 8;
  general.segments = {{1, root, 1, 0, {0}}, {1, root, 1, 1, {1}}};  // within the stars' buffers
  feed(rt, star, 0);
  feed(rt, star, 1);
  const std::size_t after_stars = st::recorder_of(rt)->buffer_bytes();
  feed(rt, general, 2);
  EXPECT_GT(st::recorder_of(rt)->buffer_bytes(), after_stars);
}

TEST(steal_tree_recorder, phase_that_throws_is_recorded) {
  auto cfg = config(2);
  cfg.audit = true;
  cws::runtime rt(cfg);
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  auto& s = rt.schedule("boom");
  EXPECT_THROW(rt.run(s,
                      [] {
                        cws::test::fib(16);
                        cws::spawn([] { throw std::runtime_error("child failed"); });
                        cws::test::fib(14);
                      }),
               std::runtime_error);
  ASSERT_EQ(rec->phases().size(), 1u);
  ASSERT_NE(s.last(), nullptr);
  cws::test::check_tree(rec->phases()[0], *s.last(), "throwing phase");
  cws::test::check_audit(rec->phases()[0], *s.last(), "throwing phase");
  // And the runtime keeps recording.
  const auto& ok = rt.run(s, [] { cws::test::fib(14); });
  ASSERT_EQ(rec->phases().size(), 2u);
  cws::test::check_tree(rec->phases()[1], ok, "after the throw");
}

// 1.35 million tasks, nothing recorded per task: the history grows with the
// number of segments, not with the number of tasks.
TEST(steal_tree_recorder, size_is_proportional_to_segments_not_tasks) {
  for (bool big_first : {false, true}) {
    cws::runtime rt(config(2));
    st::recorder* rec = st::recorder_of(rt);
    ASSERT_NE(rec, nullptr);
    const unsigned n = big_first ? 30 : 12;
    const auto& s = rt.run([n] { cws::test::fib(n); });
    ASSERT_EQ(s.tasks(), cws::test::fib_spawns(n) + 1);
    const st::phase_record& r = *rec->latest("default");
    cws::test::check_tree(r, s, "size");
    EXPECT_TRUE(r.steals.audit.empty());
    const std::size_t segs = r.steals.segments.size();
    // Per segment: the segment (64 bytes), one index (4) and its steal list's
    // share: lists are rounded up to a power of two, at least 4 points, so
    // that reused records rarely grow them (tree_storage.hpp): at most
    // 4 + 2 x (its steals) points, and the steals number segments - 1.
    const std::size_t per_segment = sizeof(st::segment) + 6 * sizeof(st::steal_point) + sizeof(std::uint32_t);
    // Fixed: the record, its strings and per-worker vectors, and the window's
    // bookkeeping (one schedule's entry, its ring and the order).
    const std::size_t fixed =
        sizeof(st::phase_record) + 2 * 64 + s.per_worker.size() * (sizeof(cws::worker_stats) + 24) + 256;
    EXPECT_LE(rec->history_bytes(), fixed + segs * per_segment) << segs << " segments";
    // The workers' buffers: a fixed reserve plus at most twice the segments they held.
    EXPECT_LE(rec->buffer_bytes(), 2 * 64 * 1024 + 2 * segs * 64);
    if (big_first) {
      EXPECT_LT(rec->history_bytes() + rec->buffer_bytes(), s.tasks() / 4)
          << "recording costs far less than a byte per task";
    }
  }
}

TEST(steal_tree_recorder, audit_size_is_one_record_per_task) {
  auto cfg = config(2);
  cfg.audit = true;
  cws::runtime rt(cfg);
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  EXPECT_TRUE(rec->wants_task_events());
  const auto& s = rt.run([] { cws::test::fib(20); });
  EXPECT_EQ(rec->latest("default")->steals.audit.size(), s.tasks());
}

TEST(steal_tree_recorder, detaches_when_destroyed) {
  // A second recorder on the same runtime sees the same phases; once destroyed it no longer observes.
  cws::runtime rt(config(2));
  std::vector<st::phase_record> copy;
  {
    st::recorder extra(rt);
    const auto& s = rt.run([] { cws::test::fib(15); });
    ASSERT_EQ(extra.phases().size(), 1u);
    cws::test::check_tree(extra.phases()[0], s, "extra recorder");
    copy = extra.phases();
  }
  rt.run([] { cws::test::fib(15); });
  EXPECT_EQ(st::recorder_of(rt)->phases().size(), 2u);
}

// ---------------------------------------------------------------- locality

// Each leaf of a parallel loop over `a` touches its chunk.
void touch_all(cws::numa::array<std::uint64_t>& a) {
  cws::parallel_for_range(
      std::size_t{0}, a.size(),
      [&a](std::size_t lo, std::size_t hi) { cws::touch(a.data() + lo, (hi - lo) * sizeof(std::uint64_t)); }, 512);
}

// A record keeps its phase's locality report and, in call order, every
// relocalization made from its run; runs that declare nothing have neither.
TEST(steal_tree_recorder, keeps_locality_and_relocalizations) {
  cws::runtime rt(config(2, "pack:2 numa:1 core:1 pu:1"));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  auto a = cws::numa::allocate<std::uint64_t>(16 * 512, cws::numa::interleaved);
  auto& s = rt.schedule("touching");
  auto& quiet = rt.schedule("quiet");
  const auto& s0 = rt.run(s, [&] { touch_all(a); });
  ASSERT_TRUE(s0.locality.has_value()) << "the runtime measured no locality";
  EXPECT_EQ(rec->latest("touching")->locality, s0.locality);
  EXPECT_EQ(rec->latest("touching")->locality->touched_bytes, a.size() * sizeof(std::uint64_t));
  EXPECT_TRUE(rec->latest("touching")->relocalizations.empty());
  const std::size_t before = rec->history_bytes();
  const cws::relocalization_report first = rt.relocalize(s);
  ASSERT_EQ(rec->latest("touching")->relocalizations.size(), 1u);
  EXPECT_EQ(rec->latest("touching")->relocalizations[0], first);
  EXPECT_EQ(first.schedule, "touching");
  EXPECT_EQ(first.iteration, 0u);
  EXPECT_GT(rec->history_bytes(), before);  // the report is counted

  rt.run(quiet, [] { cws::test::fib(12); });
  EXPECT_FALSE(rec->latest("quiet")->locality.has_value());
  EXPECT_TRUE(rec->latest("quiet")->relocalizations.empty());

  // The second run, relocalized twice: both reports go to it, in order.
  rt.run(s, [&] { touch_all(a); });
  const cws::relocalization_report second = rt.relocalize(s);
  const cws::relocalization_report third = rt.relocalize(s);
  ASSERT_EQ(rec->phases().size(), 3u);
  EXPECT_EQ(rec->phases()[0].relocalizations, (std::vector<cws::relocalization_report>{first}));
  EXPECT_EQ(rec->phases()[2].relocalizations, (std::vector<cws::relocalization_report>{second, third}));
  EXPECT_EQ(second.iteration, 1u);
  EXPECT_TRUE(rec->phases()[1].relocalizations.empty());
}

// A report is filed under the record of its (schedule, iteration), wherever
// that is in the history, and dropped when there is none.
TEST(steal_tree_recorder, relocalization_without_its_run_is_ignored) {
  cws::runtime rt(config(2));
  st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  auto& s = rt.schedule("a");
  rt.run(s, [] { cws::test::fib(10); });
  rt.run(s, [] { cws::test::fib(10); });
  cws::relocalization_report r;
  r.schedule = "a";
  r.iteration = 0;
  r.backend = "simulated";
  rec->on_relocalize(r);  // an older run of the schedule: still its record
  EXPECT_EQ(rec->phases()[0].relocalizations.size(), 1u);
  EXPECT_TRUE(rec->phases()[1].relocalizations.empty());
  r.iteration = 5;
  rec->on_relocalize(r);  // a run never recorded
  r.schedule = "b";
  r.iteration = 0;
  rec->on_relocalize(r);  // a schedule never recorded
  EXPECT_EQ(rec->phases()[0].relocalizations.size(), 1u);
  EXPECT_TRUE(rec->phases()[1].relocalizations.empty());
  rec->clear();
  r.schedule = "a";
  r.iteration = 1;
  rec->on_relocalize(r);  // its record was cleared
  EXPECT_TRUE(rec->phases().empty());
}

// ---------------------------------------------------------------- audit vs tree

class steal_tree_audit : public ::testing::TestWithParam<cws::test::topo_case> {};

TEST_P(steal_tree_audit, fib_and_memcopy_several_seeds) {
  cws::test::run_counts counts;
  for (std::uint64_t seed : {1ull, 2ull, 0x5eedull, 0xdeadbeefull}) {
    cws::test::run_and_check(GetParam(), seed, 18, 1 << 15, 64, 2, counts);
    if (HasFatalFailure()) return;
  }
  // However loaded the machine, each run_and_check had its forced steal: the
  // audit checks did not run on trivial trees only.
  EXPECT_GE(counts.steals, 4u);
}

INSTANTIATE_TEST_SUITE_P(topologies, steal_tree_audit, ::testing::ValuesIn(cws::test::topo_cases),
                         [](const auto& p) { return std::string(p.param.name); });

}  // namespace
