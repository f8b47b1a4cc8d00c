// cws_traces_stream_child FD PHASES — an unmodified cws program: it never
// calls trace_to, so only CWS_TRACE (and the other CWS_* variables) decide
// whether and where its phases are streamed. It alternates a fib phase and a
// phase whose leaves touch a cws::numa array (relocalized after every second
// such run), PHASES phase runs in all (0: until killed), and reports each
// finished run and relocalization to file descriptor FD (stream_child.hpp).
// Errors: one line on stderr, exit 2.
#include <unistd.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "cws/cws.hpp"
#include "stream_child.hpp"
#include "support/runtime_fixture.hpp"

namespace {

void report(int fd, const cws::test::child_message& m) {
  if (fd >= 0 && ::write(fd, &m, sizeof m) != static_cast<ssize_t>(sizeof m)) std::_Exit(3);  // the parent went away
}

cws::test::child_message phase_message(std::uint32_t schedule, const cws::phase_stats& s) {
  return {1, schedule, s.phase.iteration, s.tasks(), std::bit_cast<std::uint64_t>(s.wall_s)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s FD PHASES\n", argv[0]);
    return 1;
  }
  const int fd = std::atoi(argv[1]);
  const long phases = std::atol(argv[2]);
  try {
    cws::runtime rt;  // CWS_TRACE starts streaming here
    auto& fib = rt.schedule("fib");
    auto& touch = rt.schedule("touch");
    auto data = cws::numa::allocate<std::uint64_t>(8 * 512, cws::numa::interleaved);
    for (long k = 0; phases == 0 || k < phases; ++k) {
      if (k % 2 == 0) {
        report(fd, phase_message(0, rt.run(fib, [] { (void)cws::test::fib(16); })));
        continue;
      }
      const cws::phase_stats& s = rt.run(touch, [&data] {
        cws::parallel_for_range(
            std::size_t{0}, data.size(),
            [&data](std::size_t lo, std::size_t hi) {
              cws::touch(data.data() + lo, (hi - lo) * sizeof(std::uint64_t));
            },
            256);
      });
      report(fd, phase_message(1, s));
      if (k % 4 == 1) {
        const cws::relocalization_report& x = rt.relocalize(touch);
        report(fd, {2, 1, x.iteration, 0, x.pages_examined});
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stream_child: %s\n", e.what());
    return 2;
  }
  return 0;
}
