// A program that links cws::cws gets the recorder, the replay policies and
// trace files whatever header it includes: here only <cws/core.hpp>, so no
// header can have registered anything.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cws/core.hpp"

namespace {

TEST(umbrella_wiring, linking_cws_cws_wires_every_component_without_its_headers) {
  cws::runtime_config c;
  c.workers = 2;
  cws::runtime rt(c);
  EXPECT_NE(rt.extension("steal_tree"), nullptr) << "the recorder is attached";
  auto& s = rt.schedule("step", "stows");  // a replay policy: registered
  for (int i = 0; i < 3; ++i)
    rt.run(s, [] {
      cws::spawn([] {});
      cws::sync();
    });
  const std::string path = "wiring-" + std::to_string(::getpid()) + ".cwst";
  EXPECT_NO_THROW(rt.save_traces(path));
  std::remove(path.c_str());
}

}  // namespace
