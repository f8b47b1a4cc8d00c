// make_golden OUTDIR — writes the golden trace files of the current format
// version (traces/golden/README.md says when to run it: once per released
// format version; never rewrite the files of an older version).
//
//   v<N>-synthetic-4w-audit.cwst      text archive of cws::test::synthetic_trace()
//   v<N>-synthetic-4w-audit.xml.cwst  the same as an XML archive
//   v<N>-fib12-2w.cwst                a real run: fib(12), 3 iterations, 2 workers on
//                                     the synthetic topology "pack:2 numa:1 core:1 pu:1"
//                                     (host and creation time replaced by fixed values)
// and prints what the golden test should expect of the fib file.
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "cws/cws.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "cws/steal_tree/recorder.hpp"
#include "cws/traces/trace_file.hpp"
#include "support/runtime_fixture.hpp"
#include "synthetic.hpp"

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

    // A run with a few steals (the first iteration may see none while the
    // workers wake up; retry a few times).
    for (int attempt = 0; attempt < 200; ++attempt) {
      cws::runtime rt(cws::test::config(2, "pack:2 numa:1 core:1 pu:1"));
      auto& s = rt.schedule("fib");
      for (int it = 0; it < 3; ++it) rt.run(s, [] { (void)cws::test::fib(12); });
      cws::traces::trace_file f = cws::traces::capture(rt);
      std::uint64_t steals = 0, runs_with_steals = 0;
      for (const auto& r : f.phases) {
        const std::uint64_t n = cws::steal_tree::summarize(r.steals).steals;
        steals += n;
        runs_with_steals += n > 0;
      }
      if (steals < 4 || runs_with_steals < 2) continue;
      f.header.host = "golden";
      f.header.created = "2024-01-01T00:00:00Z";
      const std::string path = dir + "/" + v + "-fib12-2w.cwst";
      cws::traces::write(path, f, cws::traces::archive_kind::text);
      std::printf("%s: %zu runs\n", path.c_str(), f.phases.size());
      for (const auto& r : f.phases) {
        const auto t = cws::steal_tree::summarize(r.steals);
        std::printf("  %s #%llu: tasks %llu, steals %llu, segments %llu, depth %u, wall_s %.17g\n", r.schedule.c_str(),
                    static_cast<unsigned long long>(r.iteration), static_cast<unsigned long long>(t.tasks),
                    static_cast<unsigned long long>(t.steals), static_cast<unsigned long long>(t.segments), t.depth,
                    r.wall_s);
      }
      return 0;
    }
    std::fprintf(stderr, "make_golden: no fib run with 4 steals in 2 iterations after 200 attempts\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_golden: %s\n", e.what());
    return 1;
  }
}
