// A program that links only cws::core: the core's random policy works, and
// asking for anything cws::cws provides says which target to link.

#include <gtest/gtest.h>

#include <string>

#include "cws/core.hpp"

namespace {

cws::runtime_config two_workers() {
  cws::runtime_config c;
  c.workers = 2;
  return c;
}

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const cws::error& e) {
    return e.what();
  }
  return "";
}

TEST(core_only, the_random_policy_runs) {
  cws::runtime rt(two_workers());
  int x = 0;
  rt.run([&] {
    cws::spawn([&] { x += 1; });
    cws::sync();
  });
  EXPECT_EQ(x, 1);
  EXPECT_EQ(rt.extension("steal_tree"), nullptr) << "no recorder without cws::cws";
}

TEST(core_only, a_replay_policy_names_the_target_to_link) {
  cws::runtime rt(two_workers());
  for (const char* name : {"stows", "stuws", "relws", "evolve", "user"}) {
    const std::string msg = error_of([&] { rt.schedule("s", name); });
    EXPECT_NE(msg.find(std::string("policy '") + name + "' is not linked into this program"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cws::cws"), std::string::npos) << msg;
  }
}

TEST(core_only, trace_files_name_the_target_to_link) {
  cws::runtime rt(two_workers());
  rt.run([] {});
  EXPECT_NE(error_of([&] { rt.save_traces("x.cwst"); }).find("link cws::cws"), std::string::npos);
  EXPECT_NE(error_of([&] { rt.trace_to("x.cwst"); }).find("link cws::cws"), std::string::npos);
}

}  // namespace
