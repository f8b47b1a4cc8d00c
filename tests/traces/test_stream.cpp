// Streaming trace files from a live runtime (runtime::trace_to, CWS_TRACE):
// the streamed file holds what save_traces writes for the same runs; a child
// process killed with SIGKILL at random moments leaves a file whose complete
// records are exactly the phases it finished; an unmodified program streams
// through the environment; recording off is one clear error; and what a
// streamed phase costs on disk (bytes per steal) and in time.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cws/cws.hpp"
#include "cws/steal_tree/analysis.hpp"
#include "cws/traces/stream.hpp"
#include "cws/traces/trace_file.hpp"
#include "helpers.hpp"
#include "stream_child.hpp"
#include "support/runtime_fixture.hpp"

extern char** environ;

namespace {

namespace tr = cws::traces;
namespace st = cws::steal_tree;
using cws::test::error_of;

void touch_all(cws::numa::array<std::uint64_t>& data) {
  cws::parallel_for_range(
      std::size_t{0}, data.size(),
      [&data](std::size_t lo, std::size_t hi) { cws::touch(data.data() + lo, (hi - lo) * sizeof(std::uint64_t)); },
      256);
}

// The same runs, streamed and saved: the streamed file (relocalizations as
// their own records) reads as the saved one (relocalizations inside their
// run's record); both are record streams (format version 4 and later).
TEST(StreamFile, StreamedFileReadsAsSaveTracesFile) {
  cws::test::scratch_dir dir;
  const std::string streamed = dir.file("streamed.cwst"), saved = dir.file("saved.cwst");
  {
    cws::runtime rt(cws::test::config(2, cws::test::four_cores));
    rt.trace_to(streamed);
    ASSERT_TRUE(tr::streaming(rt).has_value());
    EXPECT_EQ(tr::streaming(rt)->path, streamed);
    auto& fib = rt.schedule("fib");
    auto& touch = rt.schedule("touch");
    auto data = cws::numa::allocate<std::uint64_t>(8 * 512, cws::numa::interleaved);
    for (int i = 0; i < 3; ++i) {
      rt.run(fib, [] { EXPECT_EQ(cws::test::fib(14), 377u); });
      rt.run(touch, [&data] { touch_all(data); });
      rt.relocalize(touch);
    }
    rt.relocalize(touch);  // twice after the last run
    const tr::stream_status s = *tr::streaming(rt);
    EXPECT_EQ(s.phases, 6u);
    EXPECT_EQ(s.records, 10u);  // 6 runs, 4 relocalizations
    EXPECT_FALSE(s.stopped);
    EXPECT_EQ(s.bytes, std::filesystem::file_size(streamed));  // every record is in the file already
    rt.save_traces(saved);
  }  // destroying the runtime closes the stream
  const tr::read_report rep = tr::read_with_report(streamed);
  EXPECT_TRUE(rep.complete()) << rep.summary();
  EXPECT_EQ(rep.records, 11u);  // and the end record
  tr::trace_file a = tr::read(streamed);
  const tr::trace_file b = tr::read(saved);
  EXPECT_EQ(a.header.format_version, tr::format_version);
  EXPECT_EQ(b.header.format_version, tr::format_version);
  ASSERT_EQ(a.phases.size(), 6u);
  EXPECT_EQ(a.phases[5].relocalizations.size(), 2u);
  EXPECT_TRUE(a.phases[0].relocalizations.empty());
  a.header.created = b.header.created;  // the stream began a moment earlier
  EXPECT_TRUE(tr::identical(a, b));
}

TEST(StreamFile, StopSwitchAndErrors) {
  cws::test::scratch_dir dir;
  const std::string one = dir.file("one.cwst"), two = dir.file("two.cwst");
  {
    cws::runtime rt(cws::test::config(2));
    auto& s = rt.schedule("fib");
    rt.trace_to(one);
    rt.run(s, [] { (void)cws::test::fib(12); });
    rt.trace_to(one);  // the same path again changes nothing
    rt.run(s, [] { (void)cws::test::fib(12); });
    tr::stream_to(rt, two, tr::archive_kind::binary);  // closes one, opens two
    rt.run(s, [] { (void)cws::test::fib(12); });
    EXPECT_EQ(tr::read(one).phases.size(), 2u);  // closed: complete
    rt.trace_to("");
    EXPECT_FALSE(tr::streaming(rt).has_value());
    rt.run(s, [] { (void)cws::test::fib(12); });  // not streamed
    EXPECT_EQ(error_of([&] { rt.trace_to(dir.file("no/such/dir/x.cwst")); }),
              dir.file("no/such/dir/x.cwst") + ": cannot write in " + dir.file("no/such/dir") +
                  " (No such file or directory)");
  }
  const tr::trace_file f = tr::read(two);
  EXPECT_EQ(f.header.archive, tr::archive_kind::binary);
  ASSERT_EQ(f.phases.size(), 1u);
  EXPECT_EQ(f.phases[0].iteration, 2u);
  EXPECT_TRUE(cws::test::leftover_temporaries(two).empty());
}

// Recording off: trace_to and CWS_TRACE (runtime_config::trace_path) are one
// clear error, and no file is created.
TEST(StreamFile, RecordingOffIsOneClearError) {
  cws::test::scratch_dir dir;
  const std::string path = dir.file("off.cwst");
  const std::string expect =
      path + ": cannot stream phase records, recording is off (CWS_RECORD=0 or runtime_config::record)";
  cws::runtime_config c = cws::test::config(2);
  c.record = false;
  {
    cws::runtime rt(c);
    EXPECT_EQ(error_of([&] { rt.trace_to(path); }), expect);
  }
  c.trace_path = path;
  EXPECT_EQ(error_of([&] { cws::runtime rt(c); }), expect);
  EXPECT_FALSE(std::filesystem::exists(path));
}

// ---------------------------------------------------------------- child processes

struct child_run {
  std::vector<cws::test::child_message> messages;
  int status = 0;
};

// Runs cws_traces_stream_child with CWS_TRACE=path (and the given CWS_*
// variables, every other CWS_* variable of this process removed). With
// kill_after_us >= 0 it is killed with SIGKILL that long after its first
// report; otherwise it runs `phases` phases to the end.
child_run run_child(const std::vector<std::string>& cws_env, long phases, long kill_after_us) {
  int p[2];
  if (::pipe(p) != 0) throw std::runtime_error("pipe failed");
  ::fcntl(p[0], F_SETFD, FD_CLOEXEC);
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "CWS_", 4) != 0) env.emplace_back(*e);
  env.insert(env.end(), cws_env.begin(), cws_env.end());
  std::vector<char*> envp;
  for (std::string& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string fd = std::to_string(p[1]), n = std::to_string(phases);
  std::string prog = CWS_TRACES_STREAM_CHILD;
  char* argv[] = {prog.data(), fd.data(), n.data(), nullptr};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execve(argv[0], argv, envp.data());
    ::_exit(127);
  }
  ::close(p[1]);
  child_run out;
  auto read_one = [&](int timeout_ms) {
    pollfd pfd{p[0], POLLIN, 0};
    if (::poll(&pfd, 1, timeout_ms) <= 0) return false;
    cws::test::child_message m;
    if (::read(p[0], &m, sizeof m) != static_cast<ssize_t>(sizeof m)) return false;
    out.messages.push_back(m);
    return true;
  };
  if (kill_after_us >= 0) {
    read_one(20000);  // started: its runtime streams
    std::this_thread::sleep_for(std::chrono::microseconds(kill_after_us));
    ::kill(pid, SIGKILL);
  }
  while (read_one(60000)) {
  }
  ::close(p[0]);
  ::waitpid(pid, &out.status, 0);
  return out;
}

// Each file checked against what the child reported: every phase run it
// reported finished is in the file, in order, with the same iteration, task
// count and wall time (bit for bit); so is every relocalization it reported.
// The streamer writes a record before rt.run returns, and the child reports
// after: at most one run (or one relocalization) may be in the file without
// having been reported, when the kill fell between the two.
void check_against_reports(const tr::read_report& rep, const std::vector<cws::test::child_message>& messages) {
  std::vector<cws::test::child_message> runs, relocs;
  for (const auto& m : messages) (m.kind == 1 ? runs : relocs).push_back(m);
  const auto& phases = rep.file.phases;
  ASSERT_GE(phases.size(), runs.size());
  EXPECT_LE(phases.size(), runs.size() + 1);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    SCOPED_TRACE(i);
    const st::phase_record& r = phases[i];
    EXPECT_EQ(r.schedule, cws::test::child_schedules[runs[i].schedule]);
    EXPECT_EQ(r.iteration, runs[i].iteration);
    std::uint64_t tasks = 0;
    for (const cws::worker_stats& w : r.stats) tasks += w.tasks;
    EXPECT_EQ(tasks, runs[i].tasks);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(r.wall_s), runs[i].wall_bits);
  }
  std::size_t in_file = 0;
  for (const st::phase_record& r : phases) in_file += r.relocalizations.size();
  EXPECT_GE(in_file, relocs.size());
  EXPECT_LE(in_file, relocs.size() + 1);
  for (const auto& m : relocs) {
    bool found = false;
    for (const st::phase_record& r : phases)
      for (const cws::relocalization_report& x : r.relocalizations)
        found |= r.schedule == "touch" && x.iteration == m.iteration && x.pages_examined == m.wall_bits;
    EXPECT_TRUE(found) << "relocalization of touch #" << m.iteration;
  }
}

const std::vector<std::string> child_env(const std::string& path) {
  return {"CWS_TRACE=" + path, "CWS_WORKERS=2", "CWS_TOPOLOGY=" + cws::test::four_cores};
}

// An unmodified program (it never calls trace_to) streams through CWS_TRACE;
// it finishes, so its file is complete.
TEST(StreamChild, CwsTraceStreamsAnUnmodifiedProgram) {
  cws::test::scratch_dir dir;
  const std::string path = dir.file("env.cwst");
  const child_run r = run_child(child_env(path), 8, -1);
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.status;
  const tr::read_report rep = tr::read_with_report(path);
  EXPECT_TRUE(rep.complete()) << rep.summary();
  EXPECT_EQ(rep.file.phases.size(), 8u);
  EXPECT_EQ(rep.file.header.options.workers, 2u);
  EXPECT_EQ(rep.file.header.options.topology_request, cws::test::four_cores);
  check_against_reports(rep, r.messages);
  EXPECT_EQ(r.messages.size(), 10u);  // 8 runs, relocalizations after touch #0 and #2
  // With recording off the program fails with one line.
  std::vector<std::string> off = child_env(dir.file("off.cwst"));
  off.push_back("CWS_RECORD=0");
  const child_run o = run_child(off, 2, -1);
  EXPECT_TRUE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 2) << o.status;
  EXPECT_TRUE(o.messages.empty());
  EXPECT_FALSE(std::filesystem::exists(dir.file("off.cwst")));
}

// The point of streaming: killed at any moment (here SIGKILL at random times,
// 24 times), a program leaves a file whose complete records are exactly the
// phases it finished; at most the record being written is torn. (SIGKILL
// rarely lands inside a write(2) of a few hundred bytes; torn tails at every
// byte are covered by StreamRecords.TornTailAtEveryOffsetOfTheLastRecord.)
TEST(StreamChild, SigkillAtRandomMomentsLeavesEveryFinishedPhase) {
  cws::test::scratch_dir dir;
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<long> delay_us(0, 30000);
  int torn = 0, at_boundary = 0;
  std::size_t most = 0;
  for (int round = 0; round < 24; ++round) {
    SCOPED_TRACE(round);
    const std::string path = dir.file("kill" + std::to_string(round) + ".cwst");
    const long delay = delay_us(rng);
    const child_run r = run_child(child_env(path), 0, delay);
    ASSERT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL) << r.status;
    ASSERT_FALSE(r.messages.empty()) << "the child never finished a phase";
    const tr::read_report rep = tr::read_with_report(path);  // the header is always whole
    EXPECT_FALSE(rep.closed);
    EXPECT_TRUE(rep.damaged.empty());
    EXPECT_FALSE(rep.unreadable.has_value());
    EXPECT_EQ(rep.intact, rep.records);
    if (rep.torn_record) {
      ++torn;
      EXPECT_EQ(rep.summary(), "file ends inside record " + std::to_string(*rep.torn_record) + "; " +
                                   std::to_string(*rep.torn_record - 1) + " complete records");
    } else {
      ++at_boundary;
    }
    check_against_reports(rep, r.messages);
    most = std::max(most, rep.file.phases.size());
  }
  std::printf("[ kill ] 24 kills: %d torn tails, %d at a record boundary; up to %zu phase runs per file\n", torn,
              at_boundary, most);
}

// ---------------------------------------------------------------- sizes

// Not a pass/fail figure: bytes per steal of a streamed file in the text and
// binary archive, and what streaming a record costs the runtime's calling
// thread (time from rt.run's call to its return, minus the phase's wall time,
// with and without streaming).
TEST(StreamFile, BytesPerStealAndTimePerRecord) {
  cws::test::scratch_dir dir;
  struct mode {
    const char* name;
    std::optional<tr::archive_kind> kind;
  };
  double baseline_us = 0;
  for (const mode& m :
       {mode{"off", std::nullopt}, mode{"text", tr::archive_kind::text}, mode{"binary", tr::archive_kind::binary}}) {
    const std::string path = dir.file(std::string(m.name) + ".cwst");
    constexpr int runs = 40;
    std::uint64_t steals = 0, header = 0;
    double beyond_s = 0;
    {
      cws::runtime rt(cws::test::config(4, cws::test::four_cores));
      if (m.kind) {
        tr::stream_to(rt, path, *m.kind);
        header = tr::streaming(rt)->bytes;
      }
      auto& s = rt.schedule("fib");
      for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const cws::phase_stats& ps = rt.run(s, [] { (void)cws::test::fib(20); });
        beyond_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - ps.wall_s;
        steals += ps.steals();
      }
    }
    const double us = beyond_s / runs * 1e6;
    if (!m.kind) {
      baseline_us = us;
      continue;
    }
    const std::uint64_t size = std::filesystem::file_size(path);
    const std::uint64_t records = size - header - (tr::record_frame::size + 8);  // without header and end record
    std::printf(
        "[ size ] stream %-6s %d runs on 4 workers, %llu steals: %llu bytes (header %llu), %.1f bytes per "
        "steal incl. per-run overhead, %.0f bytes per run; %.1f us per run beyond the phase (%.1f without "
        "streaming)\n",
        m.name, runs, static_cast<unsigned long long>(steals), static_cast<unsigned long long>(size),
        static_cast<unsigned long long>(header), steals ? static_cast<double>(records) / steals : 0.0,
        static_cast<double>(records) / runs, us, baseline_us);
    EXPECT_TRUE(tr::read_with_report(path).complete());
  }
}

}  // namespace
