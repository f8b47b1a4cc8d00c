// Safe output files and safe readers (safe_file.hpp): every trace writer
// (write / save_traces, the stream writer) creates its temporary file
// exclusively, so a planted "F.tmp" cannot redirect it; refuses a destination
// that is a symlink, FIFO, device or directory; keeps an existing file's
// permissions; leaves no temporary file behind. Readers refuse FIFOs and
// devices without blocking, and refuse a huge foreign file after its first
// bytes, in bounded memory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cws/cws.hpp"
#include "cws/traces/safe_file.hpp"
#include "cws/traces/stream.hpp"
#include "cws/traces/trace_file.hpp"
#include "helpers.hpp"
#include "support/runtime_fixture.hpp"
#include "synthetic.hpp"

namespace {

namespace tr = cws::traces;
namespace fs = std::filesystem;
using cws::test::error_of;

using writer = std::function<void(const std::string&)>;

// The three ways a trace file is written.
void write_synthetic(const std::string& path) { tr::write(path, cws::test::synthetic_trace()); }

void save_traces(const std::string& path) {
  cws::runtime rt(cws::test::config(2, cws::test::four_cores));
  rt.run(rt.schedule("fib"), [] { (void)cws::test::fib(10); });
  rt.save_traces(path);
}

void stream(const std::string& path) {
  cws::runtime rt(cws::test::config(2, cws::test::four_cores));
  rt.trace_to(path);
  rt.run(rt.schedule("fib"), [] { (void)cws::test::fib(10); });
  rt.trace_to("");
}

struct named_writer {
  const char* name;
  writer write;
};
const named_writer writers[] = {{"write", write_synthetic}, {"save_traces", save_traces}, {"stream", stream}};

bool is_symlink(const std::string& p) { return fs::is_symlink(fs::symlink_status(p)); }

// Someone plants "F.tmp" -> victim (the old writers' fixed temporary name):
// the write goes to F, the victim is untouched.
TEST(SafeFiles, PlantedTemporaryNameNeverRedirectsTheWrite) {
  for (const named_writer& w : writers) {
    SCOPED_TRACE(w.name);
    cws::test::scratch_dir dir;
    const std::string victim = dir.file("victim"), out = dir.file("o.cwst");
    cws::test::spit(victim, "precious");
    fs::create_symlink(victim, out + ".tmp");
    w.write(out);
    EXPECT_EQ(cws::test::slurp(victim), "precious");
    EXPECT_TRUE(is_symlink(out + ".tmp"));
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(out)));
    EXPECT_FALSE(tr::read(out).phases.empty());
    EXPECT_EQ(cws::test::leftover_temporaries(out), std::vector<std::string>{out + ".tmp"});  // the planted one only
  }
}

// What sits at the destination and is not a regular file stays as it is.
TEST(SafeFiles, DestinationsThatAreNotRegularFilesAreRefused) {
  for (const named_writer& w : writers) {
    SCOPED_TRACE(w.name);
    cws::test::scratch_dir dir;
    const std::string victim = dir.file("victim");
    cws::test::spit(victim, "precious");

    const std::string link = dir.file("link.cwst");
    fs::create_symlink(victim, link);
    EXPECT_EQ(error_of([&] { w.write(link); }),
              link + ": not a regular file (a symbolic link); refusing to replace it");
    EXPECT_TRUE(is_symlink(link));
    EXPECT_EQ(cws::test::slurp(victim), "precious");

    const std::string null_link = dir.file("null.cwst");  // a device, through a symlink
    fs::create_symlink("/dev/null", null_link);
    EXPECT_EQ(error_of([&] { w.write(null_link); }),
              null_link + ": not a regular file (a symbolic link); refusing to replace it");
    EXPECT_TRUE(is_symlink(null_link));

    const std::string fifo = dir.file("fifo.cwst");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EQ(error_of([&] { w.write(fifo); }), fifo + ": not a regular file (a FIFO); refusing to replace it");
    EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));

    const std::string sub = dir.file("sub.cwst");
    fs::create_directory(sub);
    EXPECT_EQ(error_of([&] { w.write(sub); }), sub + ": is a directory");
    EXPECT_TRUE(fs::is_directory(sub));

    // A device node itself, where this process may make one (root, outside
    // a restricted container): /dev/null's numbers.
    const std::string dev = dir.file("dev.cwst");
    if (::mknod(dev.c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0) {
      EXPECT_EQ(error_of([&] { w.write(dev); }),
                dev + ": not a regular file (a character device); refusing to replace it");
      EXPECT_TRUE(fs::is_character_file(fs::symlink_status(dev)));
    }
    for (const std::string& p : {link, null_link, fifo, sub, dev})
      EXPECT_TRUE(cws::test::leftover_temporaries(p).empty()) << p;
  }
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(SafeFiles, ReplacingAFileKeepsItsPermissions) {
  const mode_t mask = ::umask(022);
  ::umask(mask);
  for (const named_writer& w : writers) {
    SCOPED_TRACE(w.name);
    cws::test::scratch_dir dir;
    const std::string path = dir.file("t.cwst");
    cws::test::spit(path, "old");
    ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
    w.write(path);
    EXPECT_EQ(mode_of(path), 0640u);
    EXPECT_FALSE(tr::read(path).phases.empty());
    ASSERT_EQ(::chmod(path.c_str(), 0604), 0);
    w.write(path);
    EXPECT_EQ(mode_of(path), 0604u);
    // A new file: 0666 minus the umask, as for any file a program creates.
    const std::string fresh = dir.file("new.cwst");
    w.write(fresh);
    EXPECT_EQ(mode_of(fresh), 0666u & ~mask);
  }
}

TEST(SafeFiles, CheckOutputPathNamesTheProblemAndCreatesNothing) {
  cws::test::scratch_dir dir;
  EXPECT_NO_THROW(tr::check_output_path(dir.file("absent.cwst")));
  EXPECT_FALSE(fs::exists(dir.file("absent.cwst")));
  cws::test::spit(dir.file("there.cwst"), "x");
  EXPECT_NO_THROW(tr::check_output_path(dir.file("there.cwst")));
  const std::string missing = dir.file("no/such/dir/x.cwst");
  EXPECT_EQ(error_of([&] { tr::check_output_path(missing); }),
            missing + ": cannot write in " + dir.file("no/such/dir") + " (No such file or directory)");
  const std::string in_file = dir.file("there.cwst/x.cwst");
  EXPECT_EQ(error_of([&] { tr::check_output_path(in_file); }).rfind(in_file + ": ", 0), 0u);
  fs::create_directory(dir.file("d"));
  EXPECT_EQ(error_of([&] { tr::check_output_path(dir.file("d")); }), dir.file("d") + ": is a directory");
  fs::create_symlink(dir.file("there.cwst"), dir.file("l.cwst"));
  EXPECT_EQ(error_of([&] { tr::check_output_path(dir.file("l.cwst")); }),
            dir.file("l.cwst") + ": not a regular file (a symbolic link); refusing to replace it");
  EXPECT_EQ(error_of([] { tr::check_output_path(""); }), "empty output path");
}

// A failed write (here: the trace is refused before anything is written, and
// a write error through output_file) leaves neither the file nor a temporary.
TEST(SafeFiles, FailedWritesLeaveNothingBehind) {
  cws::test::scratch_dir dir;
  const std::string path = dir.file("bad.cwst");
  tr::trace_file f = cws::test::synthetic_trace();
  f.header.options.workers = 0;
  EXPECT_EQ(error_of([&] { tr::write(path, f); }).rfind(path + ": ", 0), 0u);
  {
    tr::output_file out(path);
    EXPECT_TRUE(fs::exists(out.temporary_path()));
    EXPECT_EQ(out.temporary_path().rfind(path + ".tmp-", 0), 0u);
    out.write("partial");
  }  // not committed
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(cws::test::leftover_temporaries(path).empty());
}

// Runs `body` in a child process killed after 10 s: a reader that blocks
// fails the test instead of hanging the suite. The child exits 0 when `body`
// returns true.
void expect_in_bounded_time(const std::function<bool()>& body) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::alarm(10);
    bool ok = false;
    try {
      ok = body();
    } catch (...) {
    }
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "the reader did not return (killed by signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << ")";
  if (WIFEXITED(status)) {
    EXPECT_EQ(WEXITSTATUS(status), 0) << "wrong error message";
  }
}

TEST(SafeFiles, ReadingAFifoFailsAtOnce) {
  cws::test::scratch_dir dir;
  const std::string fifo = dir.file("fifo.cwst");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string expected = fifo + ": not a regular file (a FIFO)";
  expect_in_bounded_time([&] { return cws::test::error_of([&] { tr::read(fifo); }) == expected; });
  expect_in_bounded_time([&] { return cws::test::error_of([&] { tr::read_with_report(fifo); }) == expected; });
  expect_in_bounded_time([&] {
    cws::runtime rt(cws::test::config(1));
    return cws::test::error_of([&] { rt.load_traces(fifo); }) == expected;
  });
}

long max_rss_kib() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// A 2 GiB sparse file: refused from its first bytes (foreign), or, after a
// complete trace, from the end record on; never read into memory.
TEST(SafeFiles, HugeFilesAreRefusedInBoundedMemory) {
  cws::test::scratch_dir dir;
  constexpr off_t two_gib = off_t{2} << 30;
  const std::string zeros = dir.file("zeros.cwst");
  cws::test::spit(zeros, "");
  fs::resize_file(zeros, two_gib);
  const std::string grown = dir.file("grown.cwst");
  tr::write(grown, cws::test::synthetic_trace());
  fs::resize_file(grown, two_gib);

  const long before = max_rss_kib();
  EXPECT_EQ(error_of([&] { tr::read(zeros); }), zeros + ": not a cws trace file");
  const std::string msg = error_of([&] { tr::read(grown); });
  EXPECT_NE(msg.find("bytes of unexpected data after the end record"), std::string::npos) << msg;
  const tr::read_report rep = tr::read_with_report(grown);
  EXPECT_EQ(rep.file.phases.size(), 2u);
  EXPECT_GT(rep.trailing_bytes, std::uint64_t{1} << 30);
  const long grew_kib = max_rss_kib() - before;
  EXPECT_LT(grew_kib, 64 * 1024) << "reading grew the peak RSS by " << grew_kib << " KiB";
}

}  // namespace
