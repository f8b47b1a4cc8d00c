// cws-trace on record streams (format version 4) that a killed writer left
// torn or that were damaged: validate fails (exit 2) with one line saying
// which records are complete; info, show, diff and convert use the intact
// records after one warning line on stderr.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_fixture.hpp"
#include "cws/traces/trace_file.hpp"
#include "helpers.hpp"
#include "synthetic.hpp"

namespace {

namespace tr = cws::traces;
using cws::test::Cli;
using cws::test::quote;
using cws::test::result;
using nlohmann::json;

class CliStream : public Cli {
 protected:
  void SetUp() override {
    bytes = tr::encode(cws::test::synthetic_runs(4), tr::archive_kind::text);
    at = cws::test::record_offsets(bytes);
    ASSERT_EQ(at.size(), 5u);
    cws::test::spit(complete, bytes);
    cws::test::spit(torn, bytes.substr(0, at[2] + 40));  // inside record 3
    std::string bad = bytes;
    bad[at[1] + tr::record_frame::size + 5] ^= 0x02;  // record 2's payload
    cws::test::spit(damaged_middle, bad);
  }
  std::string bytes;
  std::vector<std::size_t> at;
  const std::string complete = dir.file("complete.cwst"), torn = dir.file("torn.cwst"),
                    damaged_middle = dir.file("middle.cwst");
};

TEST_F(CliStream, CompleteStreamValidates) {
  const result r = run("validate " + quote(complete));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, complete + ": ok (format version " + std::to_string(cws::traces::format_version) +
                       ", text archive, 4 phase runs, 24 segments)\n");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(run("info " + quote(complete)).err, "");
}

TEST_F(CliStream, ValidateReportsATornTail) {
  const result r = run("validate " + quote(complete) + " " + quote(torn));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "cws-trace: " + torn + ": file ends inside record 3; 2 complete records\n");
  EXPECT_NE(r.out.find(complete + ": ok"), std::string::npos) << r.out;
  const json j = run_json("validate " + quote(torn), 2);
  EXPECT_EQ(j["ok"], false);
  const json& f = j["files"][0];
  EXPECT_EQ(f["valid"], false);
  EXPECT_EQ(f["error"], torn + ": file ends inside record 3; 2 complete records");
  EXPECT_EQ(f["complete_records"], 2);
  EXPECT_EQ(f["intact_records"], 2);
  EXPECT_EQ(f["torn_record"], 3);
  EXPECT_EQ(f["phases"], 2);
  EXPECT_EQ(f["closed"], false);
  EXPECT_TRUE(f["damaged_records"].empty());
  // Cut at a record boundary: every record complete, but the writer did not finish.
  const std::string unfinished = dir.file("unfinished.cwst");
  cws::test::spit(unfinished, bytes.substr(0, at[3]));
  EXPECT_EQ(run("validate " + quote(unfinished)).err,
            "cws-trace: " + unfinished +
                ": file ends after record 3 without the end record (the writer did not finish: killed, or still "
                "running); 3 complete records\n");
}

TEST_F(CliStream, ReadingSubcommandsUseTheCompleteRecordsWithOneWarning) {
  const std::string warning = "cws-trace: warning: " + torn +
                              ": file ends inside record 3; 2 complete records; using the 2 intact phase runs\n";
  const result i = run("info " + quote(torn));
  EXPECT_EQ(i.code, 0) << i.err;
  EXPECT_EQ(i.err, warning);
  EXPECT_NE(i.out.find("phases:    2 runs of 1 schedule"), std::string::npos) << i.out;
  const json j = run_json("info " + quote(torn), 0);
  EXPECT_EQ(j["phases"].size(), 2u);
  const result s = run("show " + quote(torn) + " --phase stencil --iteration 1");
  EXPECT_EQ(s.code, 0) << s.err;
  EXPECT_EQ(s.err, warning);
  const result d = run("diff " + quote(torn + "@stencil#1") + " " + quote(complete + "@stencil#1"));
  EXPECT_EQ(d.code, 0) << d.err;
  EXPECT_EQ(d.err, warning);
  // convert salvages the complete records into a complete file.
  const std::string out = dir.file("salvaged.cwst");
  const result c = run("convert " + quote(torn) + " --to binary " + quote(out));
  EXPECT_EQ(c.code, 0) << c.err;
  const result v = run("validate " + quote(out));
  EXPECT_EQ(v.code, 0) << v.err;
  EXPECT_NE(v.out.find("ok (format version " + std::to_string(cws::traces::format_version) +
                       ", binary archive, 2 phase runs"),
            std::string::npos)
      << v.out;
}

TEST_F(CliStream, DamagedRecordInTheMiddleIsNamedTheOthersRead) {
  const std::string problem = "record 2 damaged (payload checksum mismatch); 4 of 5 records read";
  const result r = run("validate " + quote(damaged_middle));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "cws-trace: " + damaged_middle + ": " + problem + "\n");
  const json j = run_json("validate " + quote(damaged_middle), 2);
  const json& f = j["files"][0];
  ASSERT_EQ(f["damaged_records"].size(), 1u);
  EXPECT_EQ(f["damaged_records"][0]["record"], 2);
  EXPECT_EQ(f["damaged_records"][0]["offset"], at[1]);
  EXPECT_EQ(f["closed"], true);
  EXPECT_EQ(f["phases"], 3);
  const json info = run_json("info " + quote(damaged_middle), 0);
  ASSERT_EQ(info["phases"].size(), 3u);
  EXPECT_EQ(info["phases"][1]["iteration"], 2);  // #1 is the damaged one
  EXPECT_EQ(run("info " + quote(damaged_middle)).err,
            "cws-trace: warning: " + damaged_middle + ": " + problem + "; using the 3 intact phase runs\n");
}

}  // namespace
