// make_golden OUTDIR — writes the golden trace files of the current format
// version (traces/golden/README.md says when to run it: once per released
// format version; never rewrite the files of an older version).
//
//   v<N>-synthetic-4w-audit.cwst      text archive of cws::test::synthetic_trace()
//   v<N>-synthetic-4w-audit.xml.cwst  the same as an XML archive
//   v<N>-synthetic-4w-audit.bin.cwst  the same as a binary archive (from version 2 on;
//                                     binary archives are not portable: x86-64 Linux)
//   v<N>-fib12-2w.cwst                a real run: fib(12), 3 iterations, 2 workers on
//                                     the synthetic topology "pack:2 numa:1 core:1 pu:1"
//                                     (from version 3 on: with touches, relocalized after run #0)
//                                     (host and creation time replaced by fixed values)
//   v<N>-fib12-2w.stream.cwst         from version 4 on: the same run as streamed while it
//                                     ran (runtime::trace_to): its relocalization is a
//                                     record of its own (header patched the same way)
//   v<N>-synthetic-4w-audit.torn.cwst from version 4 on: the text file cut inside its last
//                                     phase record, as a writer killed mid-record leaves it
// and prints what the golden test should expect of the fib file.
//
// From version 2 on, the fib run uses the policy "golden-designate" defined
// below, so that its statistics hold designated steals and taken-back tasks:
// the first spawns of the run designate a worker (designate_after_next_spawn);
// a designated spawn goes to that worker's mailbox, and the spawner takes it
// back at its sync if the worker has not started it yet (RELWS-like); idle
// workers take their mail first, then steal from a random victim.
//
// From version 3 on, the fib run also declares touches: an interleaved
// cws::numa array of 16 pages is split along the recursion (the spawned child
// takes the lower half of its parent's range, the continuation the upper
// half) and each leaf touches its range, so every run has a locality report;
// after run #0 the schedule is relocalized (simulated page backend: the
// topology is synthetic), which must have moved pages.
//
// From version 5 on, the runtime records every steal's pedigree itself: the
// generator refuses a run in which a steal point lacks one (a recorder bug,
// not bad luck, so no retry). golden-designate never elides (only the
// template replays do), so the fib run's `elided` counts are 0; the synthetic
// files carry non-zero ones.
//
// From version 6 on, the header holds the runtime's place tree (the fib run:
// root -> 2 nodes -> 2 workers, from the topology) and the statistics the
// hinted counters; golden-designate routes no hinted spawn, so the fib run's
// are 0 and the synthetic files carry non-zero ones.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstddef>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "cws/cws.hpp"
#include "cws/policy.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "cws/steal_tree/recorder.hpp"
#include "cws/traces/trace_file.hpp"
#include "le_bytes.hpp"  // traces/src
#include "support/runtime_fixture.hpp"
#include "synthetic.hpp"

namespace {

class designate_policy final : public cws::scheduling_policy {
 public:
  std::string_view name() const noexcept override { return "golden-designate"; }
  bool routes_spawns() const noexcept override { return true; }
  cws::spawn_target route(unsigned spawner, const cws::task_tag&, unsigned designated, cws::segment_marks&) override {
    cws::spawn_target t;
    if (designated != cws::no_designation && designated != spawner) {
      t.mailbox_of = designated;
      t.reclaimable = true;
    }
    return t;
  }
  cws::task_handle find_work(cws::worker_view& view) override {
    if (cws::task_handle t = view.take_mail()) return t;
    const unsigned n = view.workers();
    if (n < 2) return nullptr;
    unsigned victim = static_cast<unsigned>(view.random() % (n - 1));
    if (victim >= view.self()) ++victim;
    return view.steal(victim);
  }
};

// fib whose spawns at depth < 4 designate a worker: the other one at even
// depths, worker 0 at odd ones. Leaves touch their part [lo, hi) of `data`.
std::uint64_t designated_fib(unsigned n, unsigned depth, std::uint64_t* data, std::size_t lo, std::size_t hi) {
  if (n < 2) {
    cws::touch(data + lo, (hi - lo) * sizeof(std::uint64_t));
    return n;
  }
  std::uint64_t a = 0;
  const std::size_t mid = lo + (hi - lo) / 2;
  if (depth < 4) cws::designate_after_next_spawn(depth % 2 == 0 ? 1 : 0);
  cws::spawn([&a, n, depth, data, lo, mid] { a = designated_fib(n - 1, depth + 1, data, lo, mid); });
  const std::uint64_t b = designated_fib(n - 2, depth + 1, data, mid, hi);
  cws::sync();
  return a + b;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The first steal point of `r` whose pedigree is missing or not `level` ranks
// long, described, or empty when every steal has one.
std::string missing_pedigree(const cws::steal_tree::phase_record& r) {
  const cws::steal_tree::tree& t = r.steals;
  for (std::size_t i = 0; i < t.segments.size(); ++i)
    for (const cws::steal_tree::steal_point& p : t.segments[i].steals)
      if (p.path == cws::steal_tree::no_path || cws::steal_tree::path_of(t, p).size() != p.level)
        return fmt::format("run #{}: segment {}'s steal at ({},{}) has no pedigree of {} ranks (path {})", r.iteration,
                           i, p.level, p.step, p.level, p.path);
  return {};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error(path + ": cannot write");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 1;
  }
  const std::string dir = argv[1];
  const std::string v = fmt::format("v{}", cws::traces::format_version);
  try {
    const cws::traces::trace_file syn = cws::test::synthetic_trace();
    cws::traces::write(dir + "/" + v + "-synthetic-4w-audit.cwst", syn, cws::traces::archive_kind::text);
    cws::traces::write(dir + "/" + v + "-synthetic-4w-audit.xml.cwst", syn, cws::traces::archive_kind::xml);
    cws::traces::write(dir + "/" + v + "-synthetic-4w-audit.bin.cwst", syn, cws::traces::archive_kind::binary);
    {
      // A record stream torn inside its last phase record (version 4).
      const std::string bytes = cws::traces::encode(syn, cws::traces::archive_kind::text);
      std::size_t pos = cws::traces::envelope::size + cws::traces::detail::get_u64(bytes, 16);
      std::size_t last = pos;
      for (std::size_t k = 0; k < syn.phases.size(); ++k) {
        last = pos;
        pos += cws::traces::record_frame::size + cws::traces::detail::get_u64(bytes, pos + 8);
      }
      write_bytes(dir + "/" + v + "-synthetic-4w-audit.torn.cwst", bytes.substr(0, last + (pos - last) / 2));
    }
    cws::policy_registry::add("golden-designate", [] { return std::make_unique<designate_policy>(); });
    const std::string streaming = dir + "/" + v + "-fib12-2w.stream.cwst.part";

    // A run with a few steals (the first iteration may see none while the
    // workers wake up; retry a few times), some designated and some taken
    // back.
    for (int attempt = 0; attempt < 500; ++attempt) {
      cws::traces::trace_file f;
      {  // the runtime (and its stream) ends before the file is looked at
        cws::runtime rt(cws::test::config(2, "pack:2 numa:1 core:1 pu:1"));
        rt.trace_to(streaming);
        auto& s = rt.schedule("fib", "golden-designate");
        constexpr std::size_t elements = 16 * 4096 / sizeof(std::uint64_t);
        auto data = cws::numa::allocate<std::uint64_t>(elements, cws::numa::interleaved);
        for (int it = 0; it < 3; ++it) {
          rt.run(s, [&data] {
            if (designated_fib(12, 0, data.data(), 0, data.size()) != 144) throw std::runtime_error("fib(12) != 144");
          });
          if (it == 0) rt.relocalize(s);
        }
        f = cws::traces::capture(rt);
      }
      std::uint64_t steals = 0, runs_with_steals = 0, designated = 0, taken_back = 0, extra = 0, moved = 0;
      bool measured = true;
      for (const auto& r : f.phases) {
        measured &= r.locality.has_value();
        for (const cws::relocalization_report& x : r.relocalizations) moved += x.pages_moved;
        const std::uint64_t n = cws::steal_tree::summarize(r.steals).steals;
        steals += n;
        runs_with_steals += n > 0;
        for (const cws::worker_stats& w : r.stats) {
          designated += w.designated;
          taken_back += w.taken_back;
          extra += w.steals - w.designated;
        }
      }
      if (steals < 4 || runs_with_steals < 2 || designated == 0 || taken_back == 0 || extra == 0) continue;
      if (!measured || moved == 0) continue;
      for (const auto& r : f.phases)
        if (const std::string why = missing_pedigree(r); !why.empty()) {
          std::fprintf(stderr, "make_golden: %s\n", why.c_str());
          return 1;
        }
      f.header.host = "golden";
      f.header.created = "2024-01-01T00:00:00Z";
      const std::string path = dir + "/" + v + "-fib12-2w.cwst";
      cws::traces::write(path, f, cws::traces::archive_kind::text);
      std::printf("%s: %zu runs\n", path.c_str(), f.phases.size());
      std::printf("  places: %s; numa_of_node [%s], node_of_worker [%s], leaf_of_worker [%s]\n",
                  f.header.places.summary.c_str(),
                  fmt::format("{}", fmt::join(f.header.places.numa_of_node, ", ")).c_str(),
                  fmt::format("{}", fmt::join(f.header.places.node_of_worker, ", ")).c_str(),
                  fmt::format("{}", fmt::join(f.header.places.leaf_of_worker, ", ")).c_str());
      // The stream's header with the same fixed host and creation time; its records as streamed.
      const std::string stream_bytes = read_bytes(streaming);
      cws::traces::trace_file header_only;
      header_only.header = f.header;
      const std::string head = cws::traces::encode(header_only, cws::traces::archive_kind::text);
      const std::size_t old_head = cws::traces::envelope::size + cws::traces::detail::get_u64(stream_bytes, 16);
      const std::size_t new_head = cws::traces::envelope::size + cws::traces::detail::get_u64(head, 16);
      write_bytes(dir + "/" + v + "-fib12-2w.stream.cwst", head.substr(0, new_head) + stream_bytes.substr(old_head));
      std::remove(streaming.c_str());
      for (const auto& r : f.phases) {
        const auto t = cws::steal_tree::summarize(r.steals);
        std::printf("  %s #%llu: tasks %llu, steals %llu, segments %llu, depth %u, wall_s %.17g\n", r.schedule.c_str(),
                    static_cast<unsigned long long>(r.iteration), static_cast<unsigned long long>(t.tasks),
                    static_cast<unsigned long long>(t.steals), static_cast<unsigned long long>(t.segments), t.depth,
                    r.wall_s);
        for (std::size_t w = 0; w < r.stats.size(); ++w) {
          const cws::worker_stats& x = r.stats[w];
          std::printf("    worker %zu: {%llu, %llu, %llu, %llu, %llu, %.17g, %llu, %llu, %llu, %s}\n", w,
                      static_cast<unsigned long long>(x.tasks), static_cast<unsigned long long>(x.segments),
                      static_cast<unsigned long long>(x.steals), static_cast<unsigned long long>(x.failed_steals),
                      static_cast<unsigned long long>(x.nested_segments), x.idle_s,
                      static_cast<unsigned long long>(x.designated), static_cast<unsigned long long>(x.taken_back),
                      static_cast<unsigned long long>(x.elided),
                      fmt::format("{}, {}, {}, {}, {}, {}", x.hinted_leaf, x.hinted_node, x.hinted_root, x.het_inlined,
                                  x.place_steals, x.reclaimed)
                          .c_str());
        }
        if (r.locality) {
          const cws::locality_report& l = *r.locality;
          std::printf("    locality: pages %llu, touched %llu, local %llu, unknown %llu, per node:",
                      static_cast<unsigned long long>(l.pages), static_cast<unsigned long long>(l.touched_bytes),
                      static_cast<unsigned long long>(l.local_bytes), static_cast<unsigned long long>(l.unknown_bytes));
          for (const cws::node_locality& n : l.per_node)
            std::printf(" {%llu, %llu}", static_cast<unsigned long long>(n.touched_bytes),
                        static_cast<unsigned long long>(n.local_bytes));
          std::printf("\n");
        }
        for (const cws::relocalization_report& x : r.relocalizations)
          std::printf(
              "    relocalization: %s #%llu, %s, examined %llu, moved %llu, failed %llu, bytes %llu, seconds %.17g\n",
              x.schedule.c_str(), static_cast<unsigned long long>(x.iteration), x.backend.c_str(),
              static_cast<unsigned long long>(x.pages_examined), static_cast<unsigned long long>(x.pages_moved),
              static_cast<unsigned long long>(x.pages_failed), static_cast<unsigned long long>(x.bytes_moved),
              x.seconds);
        std::printf("%s", cws::steal_tree::describe(r.steals).c_str());
        std::printf("    pedigree table: [%s]\n", fmt::format("{}", fmt::join(r.steals.paths, ", ")).c_str());
        for (std::size_t i = 0; i < r.steals.segments.size(); ++i)
          for (const cws::steal_tree::steal_point& p : r.steals.segments[i].steals) {
            const std::span<const std::uint32_t> ranks = cws::steal_tree::path_of(r.steals, p);
            std::printf("    segment %zu: steal (%u,%u) by worker %u -> #%u, pedigree at %u: [%s]\n", i, p.level,
                        p.step, p.thief, p.child, p.path, fmt::format("{}", fmt::join(ranks, ", ")).c_str());
          }
      }
      return 0;
    }
    std::fprintf(stderr,
                 "make_golden: no fib run with 4 steals in 2 iterations, designated, extra and taken-back steals, "
                 "locality reports and moved pages after 500 attempts\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_golden: %s\n", e.what());
    return 1;
  }
}
