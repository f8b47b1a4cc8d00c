// Flat memory for every policy over a long run: after the first 10 000
// phases, what the recorder and the schedule store hold does not grow (their
// windows are full and every run reuses the storage of the one it evicts).
// 10^5 phases per policy (the recorder alone is run for 10^6 phases in
// tests/steal_tree/test_history_memory.cpp); small stealing phases, so that
// trees vary in shape.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "schedulers/replay_support.hpp"

namespace {

namespace st = cws::steal_tree;
namespace cs = cws::schedulers;

constexpr std::uint64_t first = 10'000;
constexpr std::uint64_t total = 100'000;

class history_memory : public ::testing::TestWithParam<std::string> {};

TEST_P(history_memory, holds_what_the_first_ten_thousand_phases_did) {
  const std::string policy = GetParam();
  cws::runtime rt(cws::test::config(2));
  const st::recorder* rec = st::recorder_of(rt);
  ASSERT_NE(rec, nullptr);
  cws::schedule* s = nullptr;
  if (policy == "follow") {
    rt.run(rt.schedule("init"), [] { (void)cws::test::fib(8); });
    s = &rt.schedule("follow", cws::policy::stows).follow("init");
  } else {
    s = &rt.schedule(policy, policy);
  }
  auto phase = [] { (void)cws::test::fib(8); };
  auto bytes = [&] {
    return rec->history_bytes() + rec->buffer_bytes() + (policy == "random" ? 0 : cs::store_of(rt).bytes());
  };
  for (std::uint64_t i = 0; i < first; ++i) rt.run(*s, phase);
  const std::uint64_t early = bytes();
  for (std::uint64_t i = first; i < total; ++i) rt.run(*s, phase);
  const std::uint64_t late = bytes();
  std::printf("%s: recorder + store hold %llu bytes after %llu phases, %llu after %llu: %.4f bytes per phase\n",
              policy.c_str(), static_cast<unsigned long long>(early), static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(late), static_cast<unsigned long long>(total),
              (static_cast<double>(late) - static_cast<double>(early)) / (total - first));
  EXPECT_LT(late, early + (1u << 20));
  EXPECT_LE(s->history().size(), rt.config().history);
}

INSTANTIATE_TEST_SUITE_P(policies, history_memory, ::testing::Values("random", "stows", "relws", "evolve", "follow"),
                         [](const auto& p) { return p.param; });

}  // namespace
