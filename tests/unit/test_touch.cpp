// Declared touches inside phases (touch.hpp): per-worker coalescing (and the
// worker's log, touch_log.hpp, on its own), spawn
// hints, the per-phase locality report and runtime::relocalize with the
// simulated backend on a synthetic two-node topology, with exact answers.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "cws/cws.hpp"
#include "support/runtime_fixture.hpp"
#include "touch_log.hpp"

namespace numa = cws::numa;
using cws::byte_range;

namespace {

const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
const std::string two_nodes = "pack:2 numa:1 core:1 pu:1";

std::uintptr_t addr(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

}  // namespace

TEST(Touch, NothingDeclaredMeansNoRangesAndNoReport) {
  cws::runtime rt(cws::test::config(2));
  auto& s = rt.schedule("plain");
  const cws::phase_stats& st = rt.run(s, [] { cws::test::fib(12); });
  EXPECT_FALSE(st.locality.has_value());
  EXPECT_TRUE(s.touches().empty());
  const cws::relocalization_report& r = rt.relocalize(s);
  EXPECT_EQ(r.pages_examined, 0u);
  EXPECT_EQ(r.pages_moved, 0u);
  EXPECT_EQ(r.schedule, "plain");
}

TEST(Touch, OutsideAPhaseTouchIsANoOp) {
  std::vector<double> v(16);
  cws::touch(v.data(), sizeof(double) * v.size());  // must not crash or record anywhere
  cws::runtime rt(cws::test::config(1));
  auto& s = rt.schedule("after");
  rt.run(s, [] {});
  EXPECT_TRUE(s.touches().empty());
}

TEST(Touch, AWorkerCoalescesInterleavedWalksOverTwoArrays) {
  cws::runtime rt(cws::test::config(1));
  auto& s = rt.schedule("walk");
  std::vector<double> a(1000), b(1000);
  rt.run(s, [&] {
    for (std::size_t i = 0; i < 1000; i += 10) {  // a leaf per 10 elements, reading a, writing b
      cws::touch(&a[i], 10 * sizeof(double));
      cws::touch(&b[i], 10 * sizeof(double));
    }
    cws::touch(&a[0], 0);  // empty: ignored
  });
  ASSERT_EQ(s.touches().per_worker.size(), 1u);
  std::vector<byte_range> want = {{addr(a.data()), addr(a.data() + 1000)}, {addr(b.data()), addr(b.data() + 1000)}};
  cws::coalesce(want);  // the two buffers may be adjacent in memory
  EXPECT_EQ(s.touches().per_worker[0], want);
  EXPECT_EQ(s.touches().bytes(), 2000 * sizeof(double));
}

TEST(Touch, OverlappingAndScatteredRangesAreMergedAtPhaseEnd) {
  cws::runtime rt(cws::test::config(1));
  auto& s = rt.schedule("scatter");
  std::vector<char> m(100000);
  const std::uintptr_t b = addr(m.data());
  rt.run(s, [&] {
    // Ten far-apart ranges push the first ones out of the merge window;
    // their overlapping repeats are merged when the phase ends.
    for (int pass = 0; pass < 2; ++pass)
      for (int k = 0; k < 10; ++k) cws::touch(m.data() + k * 5000 + pass * 50, 100);
  });
  std::vector<byte_range> want;
  for (int k = 0; k < 10; ++k) want.push_back({b + k * 5000, b + k * 5000 + 150});
  EXPECT_EQ(s.touches().per_worker[0], want);
}

TEST(Touch, SpawnHintsAreRecordedByTheWorkerThatRunsTheTask) {
  cws::runtime rt(cws::test::config(1));
  auto& s = rt.schedule("hinted");
  auto a = numa::allocate<double>(4096, numa::first_touch);
  auto b = numa::allocate<double>(4096, numa::first_touch);
  int ran = 0;
  rt.run(s, [&] {
    cws::spawn(cws::hint(a, 0, 100), [&] { ++ran; });
    cws::spawn(cws::hints(cws::hint(a, 100, 200), cws::hint(b, 10, 20)), [&] { ++ran; });
    cws::spawn(cws::hint(b, 4000, 9999), [&] { ++ran; });  // clamped to the array
    cws::sync();
  });
  EXPECT_EQ(ran, 3);
  std::vector<byte_range> want = {{addr(a.data()), addr(a.data() + 200)},
                                  {addr(b.data() + 10), addr(b.data() + 20)},
                                  {addr(b.data() + 4000), addr(b.data() + 4096)}};
  cws::coalesce(want);  // the two mappings may be adjacent (b's end touching a's start)
  EXPECT_EQ(s.touches().per_worker[0], want);
}

// Two workers on two virtual nodes; worker 1 gets exactly the task designated
// to it (user policy, STUWS), so every answer below is exact.
class TwoNodeTouches : public ::testing::Test {
 protected:
  cws::runtime rt{cws::test::config(2, two_nodes)};
  static constexpr std::size_t pages = 8;
  numa::array<char> data = numa::allocate<char>(pages * page, numa::first_touch);

  // Worker `w_first` touches the first half, the other worker the second half.
  void run_halves(cws::schedule& s, unsigned w_first) {
    rt.run(s, [&] {
      const std::size_t half = pages * page / 2;
      auto first = [&] { cws::touch(data.data(), half); };
      auto second = [&] { cws::touch(data.data() + half, half); };
      if (w_first == 1) {
        cws::designate_after_next_spawn(1);
        cws::spawn(first);
        second();
      } else {
        cws::designate_after_next_spawn(1);
        cws::spawn(second);
        first();
      }
      cws::sync();
    });
  }
};

TEST_F(TwoNodeTouches, TheBackendIsSimulatedOnASyntheticTopology) {
  EXPECT_EQ(rt.page_homes().name(), "simulated");
  EXPECT_NE(rt.describe().find("pages:    simulated (synthetic topology)"), std::string::npos) << rt.describe();
}

TEST_F(TwoNodeTouches, FirstTouchPlacesAndAMismatchedRunIsRelocalized) {
  auto& init = rt.schedule("init", "user");
  run_halves(init, 0);
  ASSERT_TRUE(init.last()->locality.has_value());
  const cws::locality_report& first = *init.last()->locality;
  EXPECT_EQ(first.pages, pages);
  EXPECT_EQ(first.touched_bytes, pages * page);
  EXPECT_EQ(first.local_bytes, pages * page);  // first touch: every page where its toucher is
  ASSERT_EQ(first.per_node.size(), 2u);
  EXPECT_EQ(first.per_node[0].touched_bytes, pages * page / 2);
  EXPECT_EQ(first.per_node[1].local_bytes, pages * page / 2);

  // Same data, halves swapped between the workers: nothing is local.
  auto& swapped = rt.schedule("swapped", "user");
  run_halves(swapped, 1);
  EXPECT_EQ(swapped.last()->locality->local_bytes, 0u);
  EXPECT_EQ(swapped.last()->locality->share(), 0.0);

  const cws::relocalization_report& r = rt.relocalize(swapped);
  EXPECT_EQ(r.schedule, "swapped");
  EXPECT_EQ(r.iteration, 0u);
  EXPECT_EQ(r.backend, "simulated");
  EXPECT_EQ(r.pages_examined, pages);
  EXPECT_EQ(r.pages_moved, pages);
  EXPECT_EQ(r.pages_failed, 0u);
  EXPECT_EQ(r.bytes_moved, pages * page);
  EXPECT_EQ(swapped.last_relocalization(), &r);

  EXPECT_EQ(rt.relocalize(swapped).pages_moved, 0u);  // already in place
  run_halves(swapped, 1);
  EXPECT_EQ(swapped.last()->locality->share(), 1.0);
  // The init schedule's layout is now the wrong one for it.
  EXPECT_EQ(rt.relocalize(init).pages_moved, pages);
}

TEST_F(TwoNodeTouches, ObserversSeeEveryRelocalization) {
  struct seen : cws::observer {
    std::vector<cws::relocalization_report> reports;
    void on_relocalize(const cws::relocalization_report& r) override { reports.push_back(r); }
  } obs;
  rt.add_observer(obs);
  auto& s = rt.schedule("halves", "user");
  run_halves(s, 0);
  run_halves(s, 1);
  rt.relocalize(s);
  rt.remove_observer(obs);
  ASSERT_EQ(obs.reports.size(), 1u);
  EXPECT_EQ(obs.reports[0].iteration, 1u);
  EXPECT_EQ(obs.reports[0].pages_moved, pages);
}

// The log itself (touch_log.hpp, internal): whatever order ranges come in,
// what it hands over is exactly the sorted, merged union of them.
TEST(TouchLog, HandsOverTheMergedUnionOfWhatWasAdded) {
  std::mt19937_64 rng(7);
  cws::detail::touch_log log;
  std::vector<byte_range> got;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<byte_range> added;
    const int count = static_cast<int>(rng() % 40);
    for (int i = 0; i < count; ++i) {
      // Small addresses: ranges often overlap, continue each other or repeat.
      const std::uintptr_t begin = 0x10000 + 8 * (rng() % 64), length = 8 * (rng() % 6);
      if (rng() % 4 == 0 && !added.empty()) {  // continue an earlier one exactly
        const byte_range& r = added[rng() % added.size()];
        const std::uintptr_t at = rng() % 2 ? r.end : r.begin - std::min<std::uintptr_t>(r.begin, length);
        added.push_back({at, at + length});
      } else {
        added.push_back({begin, begin + length});
      }
      log.add(reinterpret_cast<const void*>(added.back().begin), added.back().end - added.back().begin);
    }
    if (trial % 2) log.seal();  // the worker's own sort, or take()'s
    log.take(got);
    cws::coalesce(added);
    ASSERT_EQ(got, added) << "trial " << trial;
    EXPECT_TRUE(log.empty());
  }
}

// touch_rows inside a phase: the worker's touches are the union of the
// rows, as if each row had been declared on its own; rows that meet are one
// range; degenerate blocks declare nothing.
TEST(Touch, ABlockOfRowsIsTheUnionOfItsRows) {
  cws::runtime rt(cws::test::config(1));
  auto& s = rt.schedule("rows");
  constexpr std::size_t pitch = 64, rows = 8;
  std::vector<char> m(pitch * 40);
  const std::uintptr_t b = addr(m.data());
  rt.run(s, [&] {
    cws::touch_rows(m.data(), rows, 16, pitch);                   // a tile of 8 rows x 16 bytes
    cws::touch_rows(m.data() + 32, rows, 8, pitch);               // a tile 16 bytes to its right: not beside it
    cws::touch_rows(m.data() + pitch * 20, 4, pitch, pitch);      // rows that meet: one range
    cws::touch_rows(m.data() + pitch * 30, 3, 2 * pitch, pitch);  // rows that overlap: one range
    cws::touch_rows(m.data() + pitch * 36, 0, 8, pitch);          // no rows
    cws::touch_rows(m.data() + pitch * 37, 3, 0, pitch);          // empty rows
    cws::touch_rows(m.data(), 3, 8, SIZE_MAX / 2);                // a span past the address space: dropped
  });
  std::vector<byte_range> want;
  for (std::size_t r = 0; r < rows; ++r) {
    want.push_back({b + r * pitch, b + r * pitch + 16});
    want.push_back({b + r * pitch + 32, b + r * pitch + 40});
  }
  want.push_back({b + pitch * 20, b + pitch * 24});
  want.push_back({b + pitch * 30, b + pitch * 34});
  cws::coalesce(want);
  ASSERT_EQ(s.touches().per_worker.size(), 1u);
  EXPECT_EQ(s.touches().per_worker[0], want);
  EXPECT_EQ(s.touches().bytes(), rows * 24 + 8 * pitch);
}

// A worker relaxing a 2-D tiling band after band, tile after tile, each tile
// a range per row: the tile to the right continues every row of its left
// neighbour, and the log ends with one range, not one per row and tile. (The
// log never reads the memory: fixed addresses keep its hash slots, and so
// this count, the same on every run.)
TEST(TouchLog, TilesOfA2DTilingJoinIntoOneRangePerRunOfBands) {
  constexpr std::uintptr_t base = 0x7f0000000000, row = 512 * sizeof(int);
  constexpr std::size_t tile_rows = 16, tile_bytes = 128 * sizeof(int), bands = 8;
  cws::detail::touch_log log;
  for (std::size_t band = 0; band < bands; ++band)
    for (std::uintptr_t c0 = 0; c0 < row; c0 += tile_bytes)
      for (std::size_t i = band * tile_rows; i < (band + 1) * tile_rows; ++i)
        log.add(reinterpret_cast<const void*>(base + i * row + c0), tile_bytes);
  // About an entry per row of each band's first tile (the tiles to its right
  // joined it; a slot taken by another range makes a join missed) to sort
  // when the phase ends, instead of one per row and tile (512).
  EXPECT_LE(log.size(), bands * tile_rows * 5 / 4);
  std::vector<byte_range> got;
  log.take(got);
  EXPECT_EQ(got, (std::vector<byte_range>{{base, base + bands * tile_rows * row}}));
}

// A leaf walking more arrays than the window holds, block after block: the
// ranges that left the window are found again through the tables (a range
// enters them as it leaves the window), so the log keeps one entry per array
// however many blocks, instead of one per array and block.
TEST(TouchLog, MoreArraysThanTheWindowStayOneEntryEach) {
  constexpr std::uintptr_t base = 0x7f0000000000, array_bytes = 1 << 20, block = 1024;
  constexpr std::size_t arrays = cws::detail::touch_log::window + 2, blocks = 100;
  cws::detail::touch_log log;
  for (std::size_t b = 0; b < blocks; ++b) {
    for (std::size_t a = 0; a < arrays; ++a)
      log.add(reinterpret_cast<const void*>(base + a * array_bytes + b * block), block);
    EXPECT_EQ(log.size(), arrays) << "after block " << b;
  }
  std::vector<byte_range> got;
  log.take(got);
  ASSERT_EQ(got.size(), arrays);
  for (std::size_t a = 0; a < arrays; ++a)
    EXPECT_EQ(got[a], (byte_range{base + a * array_bytes, base + a * array_bytes + blocks * block})) << "array " << a;
}

// The log's blocks of rows (add_rows), in any mix with plain ranges: what it
// hands over is exactly the sorted, merged union of every row of every block
// and every range, whether the blocks were joined beside or below another,
// flattened into one range or expanded when the phase ended.
TEST(TouchLog, BlocksOfRowsHandOverTheUnionOfTheirRows) {
  std::mt19937_64 rng(11);
  cws::detail::touch_log log;
  std::vector<byte_range> got;
  struct block {
    std::uintptr_t begin;
    std::size_t rows, row_bytes, stride;
  };
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<byte_range> added;
    std::vector<block> blocks;
    const auto declare = [&](const block& k) {
      log.add_rows(reinterpret_cast<const void*>(k.begin), k.rows, k.row_bytes, k.stride);
      blocks.push_back(k);
      for (std::size_t r = 0; r < k.rows && k.row_bytes > 0; ++r)
        added.push_back({k.begin + r * k.stride, k.begin + r * k.stride + k.row_bytes});
    };
    const int count = static_cast<int>(rng() % 30);
    for (int i = 0; i < count; ++i) {
      const std::size_t stride = 8 * (1 + rng() % 8);
      if (rng() % 5 == 0) {  // a plain range
        const std::uintptr_t begin = 0x10000 + 8 * (rng() % 256), length = 8 * (rng() % 6);
        log.add(reinterpret_cast<const void*>(begin), length);
        added.push_back({begin, begin + length});
      } else if (rng() % 2 == 0 && !blocks.empty()) {  // beside, left of, below or above an earlier block
        const block& k = blocks[blocks.size() - 1 - rng() % std::min<std::size_t>(blocks.size(), 6)];
        const std::size_t width = 8 * (rng() % 4), height = 1 + rng() % 5;
        switch (rng() % 4) {
          case 0:
            declare({k.begin + k.row_bytes, k.rows, width, k.stride});
            break;
          case 1:
            declare({k.begin - std::min<std::uintptr_t>(k.begin, width), k.rows, width, k.stride});
            break;
          case 2:
            declare({k.begin + k.rows * k.stride, height, k.row_bytes, k.stride});
            break;
          default:
            declare({k.begin - std::min<std::uintptr_t>(k.begin, height * k.stride), height, k.row_bytes, k.stride});
        }
      } else {
        declare({0x10000 + 8 * (rng() % 256), rng() % 6, 8 * (rng() % 10), stride});
      }
    }
    if (trial % 2) log.seal();  // the worker's own sort, or take()'s
    log.take(got);
    std::erase_if(added, [](const byte_range& r) { return r.end <= r.begin; });
    cws::coalesce(added);
    ASSERT_EQ(got, added) << "trial " << trial;
    EXPECT_TRUE(log.empty());
  }
}

// The tiles of a 2-D tiling declared as blocks of rows, band after band: a
// tile and the one to its right fill the pitch and become one range, which
// the band below continues. A column of tiles narrower than the pitch, tile
// below tile, stays one block. Either way one entry, however many rows.
TEST(TouchLog, TilesDeclaredAsBlocksOfRowsStayOneEntry) {
  constexpr std::uintptr_t base = 0x7f0000000000, pitch = 512 * sizeof(int);
  constexpr std::size_t tile_rows = 16, tile_bytes = pitch / 2, bands = 8;
  cws::detail::touch_log log;
  for (std::size_t band = 0; band < bands; ++band) {
    for (std::uintptr_t c0 = 0; c0 < pitch; c0 += tile_bytes)
      log.add_rows(reinterpret_cast<const void*>(base + band * tile_rows * pitch + c0), tile_rows, tile_bytes, pitch);
    EXPECT_EQ(log.size(), 1u) << "after band " << band;
  }
  std::vector<byte_range> got;
  log.take(got);
  EXPECT_EQ(got, (std::vector<byte_range>{{base, base + bands * tile_rows * pitch}}));

  for (std::size_t band = 0; band < bands; ++band)  // the left column of tiles only
    log.add_rows(reinterpret_cast<const void*>(base + band * tile_rows * pitch), tile_rows, tile_bytes, pitch);
  EXPECT_EQ(log.size(), 1u);
  log.take(got);
  ASSERT_EQ(got.size(), bands * tile_rows);
  for (std::size_t r = 0; r < got.size(); ++r)
    EXPECT_EQ(got[r], (byte_range{base + r * pitch, base + r * pitch + tile_bytes})) << "row " << r;
}
