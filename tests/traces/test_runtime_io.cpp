// The runtime side: capture(), runtime::save_traces / load_traces through
// cws::trace_io, real recorded trees (with and without audit) passing the
// validation, and the size of traces on disk.
#include <gtest/gtest.h>

#include <filesystem>

#include <cstdio>
#include <string>

#include "cws/cws.hpp"
#include "cws/schedulers/knobs.hpp"
#include "cws/schedulers/schedule_store.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "cws/steal_tree/coarsen.hpp"
#include "cws/steal_tree/recorder.hpp"
#include "cws/traces/trace_file.hpp"
#include "helpers.hpp"
#include "support/runtime_fixture.hpp"
#include "support/steal_tree_builders.hpp"

namespace {

namespace tr = cws::traces;
namespace st = cws::steal_tree;
using cws::test::error_of;

TEST(RuntimeIo, SaveTracesWritesEveryRecordedPhase) {
  cws::test::scratch_dir dir;
  const std::string path = dir.file("fib.cwst");
  std::vector<st::phase_record> recorded;
  {
    cws::runtime rt(cws::test::config(2, cws::test::four_cores));
    auto& fib = rt.schedule("fib");
    auto& other = rt.schedule("other");
    for (int i = 0; i < 3; ++i) rt.run(fib, [] { EXPECT_EQ(cws::test::fib(14), 377u); });
    rt.run(other, [] { EXPECT_EQ(cws::test::fib(10), 55u); });
    rt.save_traces(path);
    const st::recorder* rec = st::recorder_of(rt);
    ASSERT_NE(rec, nullptr);
    recorded = rec->phases();
  }
  const tr::trace_file f = tr::read(path);
  EXPECT_EQ(f.header.cws_version, CWS_VERSION_FOR_TESTS);
  EXPECT_FALSE(f.header.host.empty());
  EXPECT_EQ(f.header.created.size(), 20u);  // 2024-01-01T00:00:00Z
  EXPECT_EQ(f.header.options.workers, 2u);
  EXPECT_EQ(f.header.placement.size(), 2u);
  EXPECT_TRUE(f.header.topology.synthetic);
  EXPECT_EQ(f.header.topology.numa_nodes, 2u);
  EXPECT_EQ(f.header.options.topology_request, cws::test::four_cores);
  EXPECT_NE(f.header.topology.source.find("synthetic"), std::string::npos);
  ASSERT_EQ(f.phases.size(), 4u);
  ASSERT_EQ(recorded.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_TRUE(tr::identical(f.phases[i], recorded[i])) << i;
  EXPECT_EQ(f.phases[2].schedule, "fib");
  EXPECT_EQ(f.phases[2].iteration, 2u);
  EXPECT_EQ(f.phases[3].schedule, "other");
  EXPECT_EQ(st::summarize(f.phases[0].steals).tasks, cws::test::fib_spawns(14) + 1);
}

// The header holds the runtime's place tree (format version 6): from the
// topology, or from the HPT XML file the runtime was given.
TEST(RuntimeIo, HeaderHoldsThePlaceTree) {
  {
    cws::runtime rt(cws::test::config(4, cws::test::four_cores));
    const tr::places_info p = tr::capture_header(rt).places;
    EXPECT_EQ(p.summary, rt.places().summary());
    EXPECT_EQ(p.source, "topology");
    EXPECT_EQ(p.numa_of_node, (std::vector<std::uint32_t>{0, 1}));
    EXPECT_EQ(p.node_of_worker, (std::vector<std::uint32_t>{0, 0, 1, 1}));
    EXPECT_EQ(p.leaf_of_worker, (std::vector<std::uint32_t>{0, 0, 1, 1}));
  }
  cws::test::scratch_dir dir;
  const std::string hpt = dir.file("uneven.xml");
  cws::test::spit(hpt, "<HPT><place><place><worker num=\"3\"/></place><place><worker/></place></place></HPT>");
  auto cfg = cws::test::config(4, cws::test::four_cores);
  cfg.hpt_file = hpt;
  cws::runtime rt(cfg);
  rt.run([] { EXPECT_EQ(cws::test::fib(10), 55u); });
  const std::string path = dir.file("t.cwst");
  rt.save_traces(path);
  const tr::trace_file f = tr::read(path);
  EXPECT_EQ(f.header.places.source, hpt);
  EXPECT_EQ(f.header.places.summary, rt.places().summary());
  EXPECT_EQ(f.header.places.node_of_worker, (std::vector<std::uint32_t>{0, 0, 0, 1}));
  EXPECT_EQ(f.header.places.leaf_of_worker, (std::vector<std::uint32_t>{0, 0, 0, 1}));
  ASSERT_EQ(f.phases.size(), 1u);
}

// Runs that declared touches keep their locality report and relocalizations
// through save_traces and read (format version 3).
TEST(RuntimeIo, LocalityAndRelocalizationsAreSaved) {
  cws::test::scratch_dir dir;
  const std::string path = dir.file("touch.cwst");
  std::vector<st::phase_record> recorded;
  {
    cws::runtime rt(cws::test::config(2, cws::test::four_cores));
    auto data = cws::numa::allocate<std::uint64_t>(8 * 512, cws::numa::interleaved);
    auto& s = rt.schedule("touch");
    for (int i = 0; i < 2; ++i) {
      rt.run(s, [&data] {
        cws::parallel_for_range(
            std::size_t{0}, data.size(),
            [&data](std::size_t lo, std::size_t hi) {
              cws::touch(data.data() + lo, (hi - lo) * sizeof(std::uint64_t));
            },
            256);
      });
      rt.relocalize(s);
    }
    rt.save_traces(path);
    recorded = st::recorder_of(rt)->phases();
  }
  const tr::trace_file f = tr::read(path);
  EXPECT_EQ(f.header.format_version, tr::format_version);
  ASSERT_EQ(f.phases.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(tr::identical(f.phases[i], recorded[i])) << i;
    ASSERT_TRUE(f.phases[i].locality.has_value()) << i;
    EXPECT_EQ(f.phases[i].locality->touched_bytes, 8u * 4096u) << i;
    ASSERT_EQ(f.phases[i].relocalizations.size(), 1u) << i;
    EXPECT_EQ(f.phases[i].relocalizations[0].iteration, i);
  }
}

TEST(RuntimeIo, AuditedRunsValidateAndRoundTrip) {
  cws::runtime_config c = cws::test::config(4, cws::test::four_cores);
  c.audit = true;
  c.history = 5;  // every run below
  cws::runtime rt(c);
  auto& s = rt.schedule("fib");
  for (int i = 0; i < 5; ++i) rt.run(s, [] { (void)cws::test::fib(16); });
  const tr::trace_file f = tr::capture(rt);
  EXPECT_TRUE(f.header.options.audit);
  ASSERT_EQ(f.phases.size(), 5u);
  for (const auto& r : f.phases) {
    EXPECT_EQ(r.steals.audit.size(), cws::test::fib_spawns(16) + 1);
    EXPECT_NO_THROW(tr::validate(r.steals));
  }
  for (tr::archive_kind kind : {tr::archive_kind::text, tr::archive_kind::xml, tr::archive_kind::binary})
    EXPECT_TRUE(tr::identical(tr::decode(tr::encode(f, kind), "a.cwst"), f));
}

// Coarsening real trees (nested segments, many steals per segment, 4
// workers) gives trees the trace validation accepts, in the recorder's
// layout, with the work preserved; and coarsening reaches a fixed point.
TEST(RuntimeIo, CoarsenedRecordedTreesAreValid) {
  cws::runtime_config c = cws::test::config(4, cws::test::four_cores);
  c.history = 8;  // every run below
  cws::runtime rt(c);
  auto& s = rt.schedule("fib");
  for (int i = 0; i < 8; ++i) rt.run(s, [] { (void)cws::test::fib(18); });
  tr::trace_file f = tr::capture(rt);
  ASSERT_EQ(f.phases.size(), 8u);
  std::uint64_t steals = 0, dropped = 0, deeper = 0;
  for (const auto& r : f.phases) {
    const st::totals before = st::summarize(r.steals);
    steals += before.steals;
    for (std::uint32_t level : {0u, 1u, 2u, 3u, 5u, 8u, 100u})
      for (std::uint64_t min_tasks : {0ull, 2ull, 10ull, 50ull, 500ull}) {
        st::coarsen_options o;
        o.max_level = level;
        o.min_tasks = min_tasks;
        st::coarsen_summary sum;
        const st::tree t = st::coarsen(r.steals, o, &sum);
        ASSERT_NO_THROW(tr::validate(t)) << level << " " << min_tasks;
        const st::totals after = st::summarize(t);
        EXPECT_EQ(after.tasks, before.tasks);
        EXPECT_EQ(after.segments, sum.segments_after);
        EXPECT_EQ(sum.steals_before - sum.steals_after,
                  sum.dropped_level + sum.dropped_small + sum.dropped_deeper + sum.dropped_inside);
        for (const st::segment& g : t.segments)
          for (const st::steal_point& p : g.steals) EXPECT_LE(p.level, level);
        EXPECT_EQ(st::coarsen(t, o), t);
        dropped += sum.steals_dropped();
        deeper += sum.dropped_deeper;
      }
  }
  std::printf("[ coarsen ] %llu steals in 8 runs; %llu dropped over all options, %llu by the deeper-steals rule\n",
              static_cast<unsigned long long>(steals), static_cast<unsigned long long>(dropped),
              static_cast<unsigned long long>(deeper));
  // Written and read back as a file.
  for (auto& r : f.phases) {
    st::coarsen_options o;
    o.min_tasks = 100;
    r.steals = st::coarsen(r.steals, o);
  }
  EXPECT_TRUE(tr::identical(tr::decode(tr::encode(f), "c.cwst"), f));
}

TEST(RuntimeIo, LoadTracesKeepsTheFileAndChecksTheWorkerCount) {
  cws::test::scratch_dir dir;
  const std::string path = dir.file("two.cwst");
  {
    cws::runtime rt(cws::test::config(2, cws::test::four_cores));
    rt.run(rt.schedule("fib"), [] { (void)cws::test::fib(12); });
    rt.save_traces(path);
  }
  {
    cws::runtime rt(cws::test::config(2, cws::test::four_cores));
    EXPECT_TRUE(tr::loaded_traces(rt).empty());
    rt.load_traces(path);
    ASSERT_EQ(tr::loaded_traces(rt).size(), 1u);
    const tr::trace_file& f = tr::loaded_traces(rt)[0];
    ASSERT_EQ(f.phases.size(), 1u);
    EXPECT_EQ(f.phases[0].schedule, "fib");
    EXPECT_EQ(st::summarize(f.phases[0].steals).tasks, cws::test::fib_spawns(12) + 1);
  }
  {
    // Another worker count: re-planned, not refused; the replay runs correctly.
    cws::runtime rt(cws::test::config(3, cws::test::four_cores));
    rt.load_traces(path);
    const auto& seeded = cws::schedulers::store_of(rt).at("fib");
    ASSERT_NE(seeded.templ, nullptr);
    EXPECT_EQ(seeded.templ->workers, 3u);
    EXPECT_NE(seeded.template_from.find("re-planned from 2 to 3 workers"), std::string::npos) << seeded.template_from;
    std::uint64_t result = 0;
    EXPECT_FALSE(rt.run(rt.schedule("fib", cws::policy::stows), [&] { result = cws::test::fib(12); }).diverged());
    EXPECT_EQ(result, cws::test::serial_fib(12));
    const std::string bad = dir.file("bad.cwst");
    cws::test::spit(bad, "not a trace");
    EXPECT_EQ(error_of([&] { rt.load_traces(bad); }), bad + ": not a cws trace file");
    EXPECT_EQ(error_of([&] {
                rt.save_traces(dir.file("no/dir/x.cwst"));
              }).rfind(dir.file("no/dir/x.cwst") + ": cannot write", 0),
              0u);
  }
}

// A schedule's runs that stole are its template in a file, not a later run
// that stole nothing: here the 9th replay of a small phase ran on the caller
// alone (CWS_REPLAY_ALONE_US, the trial's first run). A schedule none of
// whose runs stole is seeded with its latest run, as before.
TEST(RuntimeIo, LoadTracesSeedsFromARunThatStole) {
  cws::test::scratch_dir dir;
  const std::string path = dir.file("alone.cwst");
  {
    cws::runtime_config cfg = cws::test::config(2);
    cws::schedulers::knobs_of(cfg).replay.alone_us = 1000000;  // every phase is short: the trial starts at the 9th
    cws::runtime rt(cfg);
    auto& store = cws::schedulers::store_of(rt);
    store.seed("ab", cws::test::root_handing_spawn_to(2, 0, 1), "hand-built");
    store.seed("serial", cws::test::root_only(2), "hand-built, no steal");
    auto& ab = rt.schedule("ab", cws::policy::stows);
    auto& serial = rt.schedule("serial", cws::policy::stows);
    auto two = [] {
      cws::spawn([] {});
      cws::spawn([] {});
      cws::sync();
    };
    for (int run = 0; run < 8; ++run) ASSERT_EQ(rt.run(ab, two).designated(), 1u) << run;
    const cws::run_report& alone = rt.run(ab, two);
    ASSERT_EQ(alone.workers_joined, 1u) << alone.template_from;
    ASSERT_EQ(alone.designated(), 0u);
    for (int run = 0; run < 3; ++run) ASSERT_EQ(rt.run(serial, two).workers_joined, 1u);
    rt.save_traces(path);
  }
  cws::runtime rt(cws::test::config(2));
  rt.load_traces(path);
  const auto& ab = cws::schedulers::store_of(rt).at("ab");
  ASSERT_NE(ab.templ, nullptr);
  EXPECT_EQ(ab.templ->segments.size(), 2u);
  EXPECT_NE(ab.template_from.find(", run #7"), std::string::npos) << ab.template_from;
  const auto& serial = cws::schedulers::store_of(rt).at("serial");
  ASSERT_NE(serial.templ, nullptr);
  EXPECT_EQ(serial.templ->segments.size(), 1u);
  EXPECT_NE(serial.template_from.find(", run #2"), std::string::npos) << serial.template_from;
}

TEST(RuntimeIo, RecordingOffRefusesToSave) {
  cws::test::scratch_dir dir;
  cws::runtime_config c = cws::test::config(2);
  c.record = false;
  cws::runtime rt(c);
  rt.run([] { (void)cws::test::fib(10); });
  try {
    rt.save_traces(dir.file("off.cwst"));
    FAIL() << "saving with recording off wrote a file with nothing in it";
  } catch (const cws::error& e) {
    EXPECT_NE(std::string(e.what()).find("recording is off"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("off.cwst")));
}

// Not a pass/fail figure: prints what a trace costs on disk (DESIGN §3:
// O(workers + steals)). Asserts only the O(steals) shape: the text archive
// stays within a generous bound per segment.
TEST(RuntimeIo, TraceSizeOnDisk) {
  cws::runtime rt(cws::test::config(4, cws::test::four_cores));
  auto& s = rt.schedule("fib");
  for (int i = 0; i < 20; ++i) rt.run(s, [] { (void)cws::test::fib(20); });
  const tr::trace_file f = tr::capture(rt);
  std::uint64_t steals = 0, segments = 0;
  for (const auto& r : f.phases) {
    const st::totals t = st::summarize(r.steals);
    steals += t.steals;
    segments += t.segments;
  }
  tr::trace_file header_only = f;
  header_only.phases.clear();
  for (tr::archive_kind kind : {tr::archive_kind::text, tr::archive_kind::xml, tr::archive_kind::binary}) {
    const std::size_t all = tr::encode(f, kind).size();
    const std::size_t head = tr::encode(header_only, kind).size();
    // Per phase without steals: name, stats of 4 workers, root segment, 4 lists.
    const double per_steal = steals ? static_cast<double>(all - head) / static_cast<double>(steals) : 0;
    std::printf(
        "[ size ] %-6s %zu runs, %llu steals: %zu bytes (header %zu), %.1f bytes per steal incl. per-run "
        "overhead, %.1f bytes per worker per run\n",
        std::string(tr::to_string(kind)).c_str(), f.phases.size(), static_cast<unsigned long long>(steals), all, head,
        per_steal, static_cast<double>(all - head) / static_cast<double>(f.phases.size() * 4));
    if (kind == tr::archive_kind::text) {
      EXPECT_LT(all - head, 200 * (segments + 4 * f.phases.size()));
    }
  }
}

}  // namespace
