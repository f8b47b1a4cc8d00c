// The block-time window between phases (block_window.hpp), driven with
// chosen times: it spins, yields, then is over; a change of the keep-alive
// word (bumped by the caller's alone phases) starts it over; and the caller
// bumps the word at most once a quarter window, never with no window.

#include <gtest/gtest.h>

#include <cstdint>

#include "block_window.hpp"

namespace {

using cws::detail::block_window;
using stage = block_window::stage;
constexpr std::uint64_t us = 1000;

TEST(block_window, spins_through_the_first_half_yields_through_the_second_then_is_over) {
  block_window w(1000 * us, 50 * us, 7);
  EXPECT_EQ(w.at(1000 * us, 7), stage::spin);
  EXPECT_EQ(w.at(1024 * us, 7), stage::spin);
  EXPECT_EQ(w.at(1025 * us, 7), stage::yield);
  EXPECT_EQ(w.at(1049 * us, 7), stage::yield);
  EXPECT_EQ(w.at(1050 * us, 7), stage::over);
  EXPECT_EQ(w.at(5000 * us, 7), stage::over);
}

TEST(block_window, a_bumped_keepalive_word_starts_the_window_over) {
  block_window w(0, 50 * us, 0);
  EXPECT_EQ(w.at(40 * us, 0), stage::yield);
  EXPECT_EQ(w.at(45 * us, 1), stage::spin);  // an alone phase began: 50 us from here
  EXPECT_EQ(w.at(90 * us, 1), stage::yield);
  EXPECT_EQ(w.at(95 * us, 1), stage::over);  // nothing since: the helper parks
}

TEST(block_window, a_change_first_seen_after_the_window_ran_out_still_starts_it_over) {
  // The helper lost its core for longer than the window; the caller kept
  // running alone phases meanwhile.
  block_window w(0, 50 * us, 3);
  EXPECT_EQ(w.at(2000 * us, 9), stage::spin);
  EXPECT_EQ(w.at(2050 * us, 9), stage::over);
}

TEST(block_window, a_run_of_alone_phases_keeps_a_helper_out_of_the_futex) {
  // Alone phases every 10 us for 1 ms, each bumping the word when
  // keepalive_due says so: the helper's window never runs out, and once
  // they stop it runs out one window after the last bump.
  const std::uint64_t length = 50 * us;
  std::uint64_t word = 0, last_bump = 0;
  block_window w(0, length, word);
  for (std::uint64_t t = 0; t <= 1000 * us; t += 10 * us) {
    if (block_window::keepalive_due(t, last_bump, length)) {
      ++word;
      last_bump = t;
    }
    EXPECT_NE(w.at(t + 5 * us, word), stage::over) << t;
  }
  EXPECT_EQ(w.at(last_bump + 5 * us + length, word), stage::over);  // seen 5 us after the bump
}

TEST(block_window, the_caller_bumps_at_most_once_a_quarter_window_and_never_without_one) {
  EXPECT_FALSE(block_window::keepalive_due(112 * us, 100 * us, 50 * us));
  EXPECT_TRUE(block_window::keepalive_due(113 * us - 500, 100 * us, 50 * us));  // 12.5 us: a quarter
  EXPECT_TRUE(block_window::keepalive_due(900 * us, 100 * us, 50 * us));
  EXPECT_FALSE(block_window::keepalive_due(900 * us, 100 * us, 0));  // CWS_BLOCKTIME=0: helpers park at once
  EXPECT_TRUE(block_window::keepalive_due(13 * us, 0, 50 * us));     // the first alone phase of a runtime
}

}  // namespace
