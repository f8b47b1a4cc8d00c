// cws-trace and hostile files: outputs (convert, timeline --chrome) never
// follow or replace a symlink, FIFO or directory and ignore a planted
// "OUT.tmp"; inputs that are FIFOs or huge foreign files are refused at once;
// names that are not UTF-8 still give valid JSON.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_fixture.hpp"
#include "synthetic.hpp"

namespace {

namespace tr = cws::traces;
namespace fs = std::filesystem;
using cws::test::Cli;
using cws::test::json;
using cws::test::quote;
using cws::test::result;

class CliSafety : public Cli {
 protected:
  // Like run(), killed after 10 s (exit code 124): a command that blocks
  // fails its test instead of hanging the suite.
  result run_timed(const std::string& args) {
    const std::string out = dir.file("stdout"), err = dir.file("stderr");
    const std::string cmd =
        "timeout 10 " + quote(CWS_TRACE_CLI) + " " + args + " >" + quote(out) + " 2>" + quote(err) + " </dev/null";
    const int status = std::system(cmd.c_str());
    result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    r.out = cws::test::slurp(out);
    r.err = cws::test::slurp(err);
    return r;
  }
};

TEST_F(CliSafety, ConvertIgnoresAPlantedTemporaryName) {
  const std::string victim = dir.file("victim"), out = dir.file("o.cwst");
  cws::test::spit(victim, "precious");
  fs::create_symlink(victim, out + ".tmp");
  const result r = run_timed("convert " + quote(syn2) + " --to binary " + quote(out));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(cws::test::slurp(victim), "precious");
  EXPECT_EQ(tr::read(out).header.archive, tr::archive_kind::binary);
}

TEST_F(CliSafety, OutputsThatAreNotRegularFilesAreRefused) {
  const std::string victim = dir.file("victim");
  cws::test::spit(victim, "precious");
  const std::string link = dir.file("link.cwst"), fifo = dir.file("fifo.json"), sub = dir.file("sub");
  fs::create_symlink(victim, link);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_directory(sub);
  const struct {
    std::string path, problem;
  } outputs[] = {{link, "not a regular file (a symbolic link); refusing to replace it"},
                 {fifo, "not a regular file (a FIFO); refusing to replace it"},
                 {sub, "is a directory"}};
  for (const auto& o : outputs) {
    SCOPED_TRACE(o.path);
    for (const std::string& args : {"convert " + quote(syn2) + " --to text " + quote(o.path),
                                    "timeline " + quote(syn2) + " --chrome " + quote(o.path),
                                    "coarsen " + quote(syn2) + " --max-level 1 " + quote(o.path)}) {
      const result r = run_timed(args);
      EXPECT_EQ(r.code, 4) << args;
      EXPECT_EQ(r.err, "cws-trace: " + o.path + ": " + o.problem + "\n") << args;
    }
  }
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
  EXPECT_TRUE(fs::is_directory(sub));
  EXPECT_EQ(cws::test::slurp(victim), "precious");
}

TEST_F(CliSafety, FifoAndHugeForeignInputsAreRefusedAtOnce) {
  const std::string fifo = dir.file("in.cwst");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string cmd : {"info ", "validate ", "show "}) {
    const result r = run_timed(cmd + quote(fifo));
    EXPECT_EQ(r.code, 2) << cmd << r.err;
    EXPECT_EQ(r.err, "cws-trace: " + fifo + ": not a regular file (a FIFO)\n") << cmd;
  }
  const std::string huge = dir.file("huge.cwst");
  cws::test::spit(huge, "");
  fs::resize_file(huge, std::uintmax_t{2} << 30);  // sparse: no disk space
  const result r = run_timed("info " + quote(huge));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "cws-trace: " + huge + ": not a cws trace file\n");
}

// Schedule and host names with bytes that are not UTF-8: every JSON output
// parses (the bytes become U+FFFD).
TEST_F(CliSafety, NonUtf8NamesGiveValidJson) {
  tr::trace_file f = cws::test::synthetic_trace();
  const std::string bad = "sten\xff\xfe";
  for (auto& r : f.phases) {
    r.schedule = bad;
    for (auto& x : r.relocalizations) x.schedule = bad;
  }
  f.header.host = "host\xc3";
  const std::string path = dir.file("names.cwst");
  tr::write(path, f);
  for (const std::string cmd : {"info", "show", "validate", "locality", "diff"}) {
    SCOPED_TRACE(cmd);
    const std::string args = cmd + " " + quote(path) + (cmd == "diff" ? " " + quote(path) : "");
    const json j = run_json(args, 0);
    EXPECT_EQ(j.value("ok", false), true) << j.dump();
  }
  const json info = run_json("info " + quote(path), 0);
  EXPECT_NE(info.dump().find("host\xef\xbf\xbd"), std::string::npos) << info.dump();
  const std::string chrome = dir.file("t.json");
  const result r = run_timed("timeline " + quote(path) + " --chrome " + quote(chrome));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(json::accept(cws::test::slurp(chrome))) << "the Chrome trace is not valid JSON";
}

}  // namespace
