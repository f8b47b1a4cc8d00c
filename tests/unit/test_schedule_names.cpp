// Schedule names are checked when a schedule is created (and when one is
// followed): at most schedule::max_name_bytes bytes (the limit a trace file
// puts on every string), valid UTF-8, no control characters. A bad name is
// one short cws::error line quoting the name shortened; a good one of the
// full length is accepted and its phase saved.

#include <gtest/gtest.h>

#include <string>

#include "cws/cws.hpp"
#include "support/error_of.hpp"
#include "support/runtime_fixture.hpp"
#include "support/scratch_files.hpp"

namespace {

using cws::test::error_of;

// The error of rt.schedule(name), checked to be one short line quoting the name's start.
std::string rejected(cws::runtime& rt, const std::string& name, const std::string& shown_start) {
  std::string msg = error_of([&] { rt.schedule(name); });
  EXPECT_EQ(msg.rfind("runtime::schedule: name \"" + shown_start, 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_LT(msg.size(), 300u) << msg;
  return msg;
}

TEST(ScheduleNames, TooLongIsRefused) {
  cws::runtime rt(cws::test::config(1));
  const std::string msg = rejected(rt, std::string(cws::schedule::max_name_bytes + 1, 'a'), "aaaa");
  EXPECT_NE(msg.find("4097 bytes, more than the 4096 a trace file holds"), std::string::npos) << msg;
  EXPECT_NE(msg.find("aaa\"..."), std::string::npos) << msg;  // shortened
}

TEST(ScheduleNames, InvalidUtf8IsRefused) {
  cws::runtime rt(cws::test::config(1));
  EXPECT_NE(rejected(rt, "ab\xff", "ab\\xff").find("not valid UTF-8 (byte 0xff at offset 2)"), std::string::npos);
  EXPECT_NE(rejected(rt, "x\xc3", "x\\xc3").find("not valid UTF-8 (truncated sequence at offset 1)"),
            std::string::npos);
  EXPECT_NE(rejected(rt, "\xc3(", "\\xc3(").find("not valid UTF-8 (byte 0x28 at offset 1)"), std::string::npos);
  rejected(rt, "\xc0\xaf", "\\xc0\\xaf");              // overlong '/'
  rejected(rt, "\xe0\x80\xaf", "\\xe0\\x80\\xaf");      // overlong '/'
  rejected(rt, "\xed\xa0\x80", "\\xed\\xa0\\x80");      // a UTF-16 surrogate
  rejected(rt, "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
}

TEST(ScheduleNames, ControlCharactersAreRefused) {
  cws::runtime rt(cws::test::config(1));
  EXPECT_NE(rejected(rt, "step\nevil", "step\\x0aevil").find("control character U+000A at offset 4"),
            std::string::npos);
  rejected(rt, std::string("a\0b", 3), "a\\x00b");
  rejected(rt, "\x1b[31mred", "\\x1b[31mred");
  rejected(rt, "del\x7f", "del\\x7f");
  EXPECT_NE(rejected(rt, "c1\xc2\x85", "c1\\xc2\\x85").find("control character U+0085"), std::string::npos);
  // follow() takes a schedule name too.
  auto& s = rt.schedule("ok");
  EXPECT_EQ(error_of([&] { s.follow("a\tb"); }).rfind("schedule::follow: schedule name \"a\\x09b\"", 0), 0u);
  s.follow("");  // stops following
  EXPECT_EQ(s.follows(), "");
}

TEST(ScheduleNames, FullLengthUtf8NameIsAcceptedAndSaved) {
  cws::runtime rt(cws::test::config(1));
  // 4096 bytes: multi-byte characters and printable ASCII.
  std::string name;
  while (name.size() + 3 <= cws::schedule::max_name_bytes) name += "\xe2\x82\xac";  // U+20AC
  name.append(cws::schedule::max_name_bytes - name.size(), 'z');
  ASSERT_EQ(name.size(), cws::schedule::max_name_bytes);
  auto& s = rt.schedule(name);
  EXPECT_EQ(&rt.schedule(name), &s);  // found again, not refused
  rt.schedule("tab-free name with spaces, \xc3\xa9 and \xf0\x9f\x98\x80");
  rt.run(s, [] {});
  cws::test::scratch_dir dir;
  EXPECT_NO_THROW(rt.save_traces(dir.file("names.cwst")));
}

}  // namespace
